// The sweep configuration: what to run, parsed from YAML and validated before any work starts.
//
// LoadSweepConfig refuses a bad file with an InvalidArgument status whose message names the file, the
// key (as a dotted path such as "aidanbench.preset") and what is expected. Relative paths inside the
// file are resolved against the file's folder. `${NAME}` in any string value is replaced by the
// environment variable NAME; a missing variable is an error naming it. (Inside a flow list such as
// `models: ['${A}', b]` quote the value: braces are YAML flow syntax.)
//
// The loader (library noveltygrid_config) reads the top level in config.cc, the benchmark sections in
// config_aidanbench.cc and config_noveltybench.cc, and providers:/prices: in provider_yaml.cc.
//
// Example (examples/quickstart.yaml):
//   name: quickstart
//   seed: 7
//   models: [sim:explorer, sim:steady, sim:collapse]
//   temperatures: [0.2, 0.7, 1.2]
//   judge: sim:judge
//   embedder: lexical
//   concurrency: 32
//   aidanbench:
//     questions: ../datasets/aidanbench/questions-paper-65.jsonl
//     preset: reference-2025
//   noveltybench:                      # optional; at least one of aidanbench / noveltybench
//     datasets: {curated: ../../shared/data/noveltybench/curated.jsonl}   # or prompts: FILE
//     modes: [standard, paraphrase]
//     partitioner: classifier          # unigram, embedding, llm
#ifndef NOVELTYGRID_COMMON_CONFIG_H_
#define NOVELTYGRID_COMMON_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/aidan_preset.h"  // AidanPreset, FindAidanPreset
#include "common/dataset.h"
#include "common/env_lookup.h"  // EnvLookup, ProcessEnv (the lookup the two-argument functions use)
#include "common/noveltybench/prompts.h"
#include "common/prompts.h"
#include "common/provider_config.h"
#include "common/records.h"
#include "noveltygrid/v1/settings.pb.h"

namespace noveltygrid {

struct ModelSpec {
  std::string name;  // id used in results, e.g. "sim:explorer"
};

// AidanBench's settings before the `aidanbench:` section is read: no iteration cap, 4000 tokens, 2 judge
// retries, no LLM novelty (the parser always sets the preset, default reference-2025, and the templates).
v1::AidanSettings DefaultAidanSettings();

struct AidanBenchConfig {
  std::string questions_path;       // resolved absolute or as given
  std::vector<Question> questions;  // loaded and checked: non-empty, unique ids
  // The benchmark settings (preset name, templates -- built-in unless `templates:` names a file --,
  // max_iterations (0 = no cap, the reference behaviour), max_tokens, judge_retries (extra judge calls
  // after an unparseable reply), llm_novelty (the optional LLM similarity judge)), as every lease
  // carries them.
  v1::AidanSettings settings = DefaultAidanSettings();
  std::string templates_source = "builtin";
  std::vector<double> temperatures;  // defaults to the top-level list
  // `expected_iterations`: the loop-length prior of the cost estimate (coordinator/plan/estimate.h) by
  // model, "" for every model; not part of any unit id. Empty: learned from committed units.
  std::map<std::string, double> expected_iterations;
};

// One NoveltyBench prompt set: `prompts: FILE` (named after the file's stem, e.g. "curated") or an
// entry of `datasets: {NAME: FILE}`.
struct NoveltyDataset {
  std::string name;
  std::string path;                  // resolved
  std::vector<BenchPrompt> prompts;  // the first `limit` of the file (all when limit is 0)
};

// The `noveltybench:` section, with every default filled in (see LoadSweepConfig).
// NoveltyBench's settings as they are without a `noveltybench:` section: k = 10, 512 tokens, ask_n,
// the classifier partitioner (0.102, sim:classifier), reward quality (sim:reward), patience 0.8, and the
// prompt wording empty (the worker then uses DefaultNoveltyPrompts()).
v1::NoveltySettings DefaultNoveltySettings();

struct NoveltyBenchConfig {
  std::vector<NoveltyDataset> datasets;  // config order
  int limit = 0;                         // prompts per dataset; 0 = all
  std::vector<std::string> modes;        // kMode* names, config order; default [standard]
  // The benchmark settings (k 1..100, max_tokens, ask_n, partitioner and its threshold in [0, 1] and
  // partition_model (empty for unigram), quality and quality_model, patience, the prompt wording from
  // prompts_file or the defaults), as every lease carries them.
  v1::NoveltySettings settings = DefaultNoveltySettings();
  std::vector<double> temperatures;        // defaults to the top-level list
  std::string prompts_source = "builtin";  // or the resolved prompts_file
};

struct SweepConfig {
  std::string path;  // the file it came from
  std::string name;
  uint64_t seed = 0;
  std::vector<ModelSpec> models;
  std::vector<double> temperatures;  // each in [0, 2]
  std::string judge = "sim:judge";
  std::string embedder = "lexical";
  int concurrency = 16;  // loops in flight
  // Units planned per (benchmark, model, temperature, item), each with its own derived seed; repeat 0
  // keeps the seed and the unit ids of a sweep without repeats.
  int repeats = 1;
  std::optional<AidanBenchConfig> aidanbench;
  std::optional<NoveltyBenchConfig> noveltybench;  // at least one of the two is set
  // Models reached over HTTP (see common/provider_yaml.h for the routing), by model name; the
  // in-process simulated family is absent.
  std::map<std::string, ModelEndpoint> endpoints;
  std::map<std::string, ModelPrice> prices;  // by model name; models without a price cost nothing
  // Budgets in US dollars (0 = none): the sweep's (`budget_usd:`) and per model (`budgets: {MODEL: USD}`),
  // priced by `prices:`; see coordinator/lease/budget_policy.h.
  double budget_usd = 0;
  std::map<std::string, double> model_budgets_usd;
};

// The models of `models:` declared `temperature: omit` (config order): never sent a temperature.
std::vector<std::string> ModelsWithoutTemperature(const SweepConfig& config);

// Reads, expands and validates a sweep file. A missing file is NotFound; every other problem is
// InvalidArgument with a message of the form
//   "<file>: <dotted.key>: <what is wrong>; expected <what is expected>"
// e.g. "examples/bad.yaml: temperatures[1]: 2.5 is outside [0, 2]; expected a number between 0 and 2".
absl::StatusOr<SweepConfig> LoadSweepConfig(const std::string& path);

// Same, from text; `path` is used in messages and to resolve relative paths.
absl::StatusOr<SweepConfig> ParseSweepConfig(const std::string& yaml_text, const std::string& path);
absl::StatusOr<SweepConfig> ParseSweepConfig(const std::string& yaml_text, const std::string& path,
                                             const EnvLookup& env);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CONFIG_H_
