#include "common/unit_settings.h"

#include <set>
#include <vector>

#include "common/hashing.h"

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

// Of an endpoint only what changes the answers counts, and only when it differs from the plain
// default, so that sweeps without such endpoints keep their unit ids.
void AddEndpoints(const std::map<std::string, ModelEndpoint>& endpoints, StableHasher& hasher) {
  for (const auto& [name, endpoint] : endpoints) {
    if (!EndpointChangesAnswers(name, endpoint)) continue;
    hasher.Add(name)
        .Add(endpoint.remote_model)
        .Add(endpoint.extra_body_json)
        .Add(static_cast<uint64_t>(endpoint.dimensions));
  }
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
  NoveltySettings s;
  s.seed = config.seed;
  if (!config.noveltybench.has_value()) {
    s.endpoints = EndpointsOf(config, {s.partition_model, s.quality_model});
    return s;
  }
  const NoveltyBenchConfig& n = *config.noveltybench;
  s.k = n.k;
  s.max_tokens = n.max_tokens;
  s.ask_n = n.ask_n;
  s.partitioner = n.partitioner;
  s.threshold = n.threshold;
  s.partition_model = n.partition_model;
  s.quality = n.quality;
  s.quality_model = n.quality_model;
  s.patience = n.patience;
  s.in_context_followup = n.prompts.in_context_followup;
  s.system_prompt = n.prompts.system_prompt;
  s.equivalence_prompt = n.prompts.equivalence_judge;
  s.quality_prompt = n.prompts.quality_judge;
  s.endpoints = EndpointsOf(config, {s.partition_model, s.quality_model});
  return s;
}

uint64_t NoveltySettingsHash(const NoveltySettings& s) {
  // ask_n counts: one request with n = k and k requests of n = 1 draw different samples.
  StableHasher hasher;
  hasher.Add("noveltybench")
      .Add(s.seed)
      .Add(static_cast<uint64_t>(s.k))
      .Add(static_cast<uint64_t>(s.max_tokens))
      .Add(static_cast<uint64_t>(s.ask_n))
      .Add(s.partitioner)
      .Add(s.threshold)
      .Add(s.partition_model)
      .Add(s.quality)
      .Add(s.quality_model)
      .Add(s.patience)
      .Add(s.in_context_followup)
      .Add(s.system_prompt)
      .Add(s.equivalence_prompt)
      .Add(s.quality_prompt);
  AddEndpoints(s.endpoints, hasher);
  return hasher.Finish();
}

}  // namespace noveltygrid
