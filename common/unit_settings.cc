#include "common/unit_settings.h"

#include <set>
#include <vector>

#include "common/endpoint_proto.h"
#include "common/hashing.h"
#include "common/settings_hash.h"

namespace noveltygrid {

namespace {

// The endpoints of the named models only: a benchmark's settings carry (and hash) just the models
// its units call.
std::map<std::string, ModelEndpoint> EndpointsOf(const SweepConfig& config, const std::vector<std::string>& helpers) {
  std::set<std::string> names(helpers.begin(), helpers.end());
  for (const ModelSpec& m : config.models) names.insert(m.name);
  std::map<std::string, ModelEndpoint> endpoints;
  for (const auto& [name, endpoint] : config.endpoints) {
    if (names.count(name) > 0) endpoints.emplace(name, endpoint);
  }
  return endpoints;
}

}  // namespace

AidanSettings MakeAidanSettings(const SweepConfig& config) {
  AidanSettings s;
  s.seed = config.seed;
  s.judge = config.judge;
  s.embedder = config.embedder;
  s.endpoints = EndpointsOf(config, {config.judge, config.embedder});
  if (config.aidanbench.has_value()) {
    const AidanBenchConfig& a = *config.aidanbench;
    s.preset = a.preset;
    s.templates = a.templates;
    s.max_iterations = a.max_iterations;
    s.max_tokens = a.max_tokens;
    s.judge_retries = a.judge_retries;
    s.llm_novelty = a.llm_novelty;
  }
  return s;
}

uint64_t AidanSettingsHash(const AidanSettings& s) {
  const PromptTemplates& t = s.templates;
  // judge_retries changes how hard we try, not what a successful unit computes; it is left out.
  StableHasher hasher;
  hasher.Add(s.seed)
      .Add(s.judge)
      .Add(s.embedder)
      .Add(s.preset.name)
      .Add(t.generation_base)
      .Add(t.generation_instructions)
      .Add(t.generation_previous_block)
      .Add(t.previous_answer_item)
      .Add(t.previous_answers_separator)
      .Add(t.coherence_judge)
      .Add(t.coherence_judge_1_10)
      .Add(t.similarity_judge)
      .Add(static_cast<uint64_t>(s.max_iterations))
      .Add(static_cast<uint64_t>(s.max_tokens))
      .Add(static_cast<uint64_t>(s.llm_novelty));
  AddEndpoints(s.endpoints, hasher);
  return hasher.Finish();
}

NoveltySettings MakeNoveltySettings(const SweepConfig& config) {
  NoveltySettings s = config.noveltybench.has_value() ? config.noveltybench->settings : DefaultNoveltySettings();
  s.set_seed(config.seed);
  ToProto(EndpointsOf(config, {s.partition_model(), s.quality_model()}), s.mutable_endpoints());
  return s;
}

uint64_t NoveltySettingsHash(const NoveltySettings& s) {
  // ask_n counts: one request with n = k and k requests of n = 1 draw different samples.
  StableHasher hasher;
  hasher.Add("noveltybench");
  AddSettings(s, hasher);
  return hasher.Finish();
}

}  // namespace noveltygrid
