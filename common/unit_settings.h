// What a stateless worker needs, besides the unit itself, to run a unit: the protocol settings and the
// ids of the helper models. The coordinator sends these with every lease; they never hold secrets.
#ifndef NOVELTYGRID_COMMON_UNIT_SETTINGS_H_
#define NOVELTYGRID_COMMON_UNIT_SETTINGS_H_

#include <cstdint>
#include <map>
#include <string>

#include "common/config.h"
#include "common/prompts.h"

namespace noveltygrid {

struct AidanSettings {
  uint64_t seed = 0;
  std::string judge;     // model id of the coherence (and similarity) judge
  std::string embedder;  // model id of the embedder
  AidanPreset preset;
  PromptTemplates templates;
  int max_iterations = 0;
  int max_tokens = 4000;
  int judge_retries = 2;
  bool llm_novelty = false;
  // How to reach the models served over HTTP (by model name: generators, judge, embedder). Where the
  // key is found travels here, never the key.
  std::map<std::string, ModelEndpoint> endpoints;
};

AidanSettings MakeAidanSettings(const SweepConfig& config);

// NoveltyBench protocol settings (the config's `noveltybench:` section), sent with every NoveltyBench
// lease. Model fields name models the worker builds like any other (in-process "sim:..." ids, or
// endpoints below).
struct NoveltySettings {
  uint64_t seed = 0;
  int k = 10;  // generations per unit
  int max_tokens = 512;
  bool ask_n = true;  // standard / system-prompt: one request with n = k (else k requests)
  // Partitioner: "classifier" (pair classifier, P(same) > threshold), "unigram" (ROUGE-1 F >
  // threshold, offline), "embedding" (cosine > threshold), "llm" (judge's similarity / 100 > threshold).
  std::string partitioner = kPartitionerClassifier;
  double threshold = 0.102;
  std::string partition_model = "sim:classifier";  // classifier, embedder or judge id; empty for unigram
  // Quality: "reward" (reward model, REFERENCE.md buckets) or "llm" (judge's 1..10 score).
  std::string quality = kQualityReward;
  std::string quality_model = "sim:reward";
  double patience = 0.8;
  // Prompt wording; the defaults are the project's own (see common/noveltybench/prompts.h).
  std::string in_context_followup;                 // the user turn after each answer (in-context mode)
  std::string system_prompt;                       // the system message (system-prompt mode)
  std::string equivalence_prompt;                  // llm partitioner: {prompt}, {answer1}, {answer2}
  std::string quality_prompt;                      // llm quality: {prompt}, {response}
  std::map<std::string, ModelEndpoint> endpoints;  // by model name, as AidanSettings.endpoints
};

NoveltySettings MakeNoveltySettings(const SweepConfig& config);

// Hash of everything in the settings that changes what a NoveltyBench unit computes (endpoints as
// AidanSettingsHash counts them).
uint64_t NoveltySettingsHash(const NoveltySettings& settings);

// Hash of everything in the settings that changes what a unit computes. Of an endpoint only the
// provider's model name (when it differs from the model's name) and extra body fields count: where a
// model is served from does not change what it answers.
uint64_t AidanSettingsHash(const AidanSettings& settings);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_UNIT_SETTINGS_H_
