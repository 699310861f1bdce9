#include "proto/wire.h"

namespace noveltygrid {

void ToProto(const UnitSpec& u, v1::Unit* out) {
  out->set_id(u.id);
  out->set_index(u.index);
  out->set_benchmark(u.benchmark);
  out->set_model(u.model);
  out->set_temperature(u.temperature);
  out->set_item_id(u.item_id);
  out->set_item_text(u.item_text);
  out->set_mode(u.mode);
  out->set_dataset(u.dataset);
  for (const std::string& p : u.paraphrases) out->add_paraphrases(p);
}

UnitSpec FromProto(const v1::Unit& u) {
  UnitSpec out;
  out.id = u.id();
  out.index = u.index();
  out.benchmark = u.benchmark();
  out.model = u.model();
  out.temperature = u.temperature();
  out.item_id = u.item_id();
  out.item_text = u.item_text();
  out.mode = u.mode();
  out.dataset = u.dataset();
  out.paraphrases.assign(u.paraphrases().begin(), u.paraphrases().end());
  return out;
}

void ToProto(const ModelEndpoint& e, v1::ModelEndpoint* out) {
  const ProviderConfig& p = e.provider;
  out->set_name(e.name);
  out->set_remote_model(e.remote_model);
  out->set_provider(p.name);
  out->set_base_url(p.base_url);
  out->set_api_key_env(p.api_key_env);
  out->set_api_key_file(p.api_key_file);
  out->set_max_in_flight(p.limits.max_in_flight);
  out->set_requests_per_minute(p.limits.requests_per_minute);
  out->set_tokens_per_minute(p.limits.tokens_per_minute);
  out->set_timeout_ms(absl::ToInt64Milliseconds(p.timeout));
  out->set_max_retries(p.max_retries);
  out->set_initial_backoff_ms(absl::ToInt64Milliseconds(p.initial_backoff));
  out->set_max_backoff_ms(absl::ToInt64Milliseconds(p.max_backoff));
  out->set_embed_batch(p.embed_batch);
  out->set_embed_wait_ms(absl::ToInt64Milliseconds(p.embed_wait));
  out->set_provider_extra_body_json(p.extra_body_json);
  out->set_extra_body_json(e.extra_body_json);
  out->set_dimensions(e.dimensions);
  out->set_max_tokens_field(p.max_tokens_field);
  out->set_embed_encoding(p.embed_encoding);
}

ModelEndpoint FromProto(const v1::ModelEndpoint& e) {
  ModelEndpoint out;
  ProviderConfig& p = out.provider;
  out.name = e.name();
  out.remote_model = e.remote_model();
  p.name = e.provider();
  p.base_url = e.base_url();
  p.api_key_env = e.api_key_env();
  p.api_key_file = e.api_key_file();
  p.limits.max_in_flight = e.max_in_flight();
  p.limits.requests_per_minute = e.requests_per_minute();
  p.limits.tokens_per_minute = e.tokens_per_minute();
  p.timeout = absl::Milliseconds(e.timeout_ms());
  p.max_retries = e.max_retries();
  p.initial_backoff = absl::Milliseconds(e.initial_backoff_ms());
  p.max_backoff = absl::Milliseconds(e.max_backoff_ms());
  p.embed_batch = e.embed_batch();
  p.embed_wait = absl::Milliseconds(e.embed_wait_ms());
  p.extra_body_json = e.provider_extra_body_json();
  out.extra_body_json = e.extra_body_json();
  out.dimensions = e.dimensions();
  p.max_tokens_field = e.max_tokens_field();
  p.embed_encoding = e.embed_encoding();
  return out;
}

void ToProto(const AidanSettings& s, v1::AidanSettings* out) {
  out->set_seed(s.seed);
  out->set_judge(s.judge);
  out->set_embedder(s.embedder);
  out->set_preset(s.preset.name);
  v1::PromptTemplates* t = out->mutable_templates();
  t->set_generation_base(s.templates.generation_base);
  t->set_generation_instructions(s.templates.generation_instructions);
  t->set_generation_previous_block(s.templates.generation_previous_block);
  t->set_previous_answer_item(s.templates.previous_answer_item);
  t->set_previous_answers_separator(s.templates.previous_answers_separator);
  t->set_coherence_judge(s.templates.coherence_judge);
  t->set_coherence_judge_1_10(s.templates.coherence_judge_1_10);
  t->set_similarity_judge(s.templates.similarity_judge);
  out->set_max_iterations(s.max_iterations);
  out->set_max_tokens(s.max_tokens);
  out->set_judge_retries(s.judge_retries);
  out->set_llm_novelty(s.llm_novelty);
  for (const auto& [name, endpoint] : s.endpoints) ToProto(endpoint, out->add_endpoints());
}

absl::StatusOr<AidanSettings> FromProto(const v1::AidanSettings& s) {
  AidanSettings out;
  absl::StatusOr<AidanPreset> preset = FindAidanPreset(s.preset());
  if (!preset.ok()) return preset.status();
  out.preset = *preset;
  out.seed = s.seed();
  out.judge = s.judge();
  out.embedder = s.embedder();
  const v1::PromptTemplates& t = s.templates();
  out.templates.generation_base = t.generation_base();
  out.templates.generation_instructions = t.generation_instructions();
  out.templates.generation_previous_block = t.generation_previous_block();
  out.templates.previous_answer_item = t.previous_answer_item();
  out.templates.previous_answers_separator = t.previous_answers_separator();
  out.templates.coherence_judge = t.coherence_judge();
  out.templates.coherence_judge_1_10 = t.coherence_judge_1_10();
  out.templates.similarity_judge = t.similarity_judge();
  out.max_iterations = s.max_iterations();
  out.max_tokens = s.max_tokens();
  out.judge_retries = s.judge_retries();
  out.llm_novelty = s.llm_novelty();
  for (const v1::ModelEndpoint& e : s.endpoints()) out.endpoints[e.name()] = FromProto(e);
  return out;
}

void ToProto(const NoveltySettings& s, v1::NoveltySettings* out) {
  out->set_seed(s.seed);
  out->set_k(s.k);
  out->set_max_tokens(s.max_tokens);
  out->set_ask_n(s.ask_n);
  out->set_partitioner(s.partitioner);
  out->set_threshold(s.threshold);
  out->set_partition_model(s.partition_model);
  out->set_quality(s.quality);
  out->set_quality_model(s.quality_model);
  out->set_patience(s.patience);
  out->set_in_context_followup(s.in_context_followup);
  out->set_system_prompt(s.system_prompt);
  out->set_equivalence_prompt(s.equivalence_prompt);
  out->set_quality_prompt(s.quality_prompt);
  for (const auto& [name, endpoint] : s.endpoints) ToProto(endpoint, out->add_endpoints());
}

NoveltySettings FromProto(const v1::NoveltySettings& s) {
  NoveltySettings out;
  out.seed = s.seed();
  out.k = s.k();
  out.max_tokens = s.max_tokens();
  out.ask_n = s.ask_n();
  out.partitioner = s.partitioner();
  out.threshold = s.threshold();
  out.partition_model = s.partition_model();
  out.quality = s.quality();
  out.quality_model = s.quality_model();
  out.patience = s.patience();
  out.in_context_followup = s.in_context_followup();
  out.system_prompt = s.system_prompt();
  out.equivalence_prompt = s.equivalence_prompt();
  out.quality_prompt = s.quality_prompt();
  for (const v1::ModelEndpoint& e : s.endpoints()) out.endpoints[e.name()] = FromProto(e);
  return out;
}

void ToProto(const NoveltyOutcome& n, v1::NoveltyOutcome* out) {
  for (int c : n.partition) out->add_partition(c);
  for (size_t i = 0; i < n.quality.size(); ++i) {
    v1::GenerationScore* score = out->add_scores();
    if (n.quality[i].has_value()) score->set_quality(*n.quality[i]);
    if (i < n.reward.size() && n.reward[i].has_value()) score->set_reward(*n.reward[i]);
  }
}

NoveltyOutcome FromProto(const v1::NoveltyOutcome& n) {
  NoveltyOutcome out;
  out.partition.assign(n.partition().begin(), n.partition().end());
  for (const v1::GenerationScore& score : n.scores()) {
    out.quality.push_back(score.has_quality() ? std::optional<int>(score.quality()) : std::nullopt);
    out.reward.push_back(score.has_reward() ? std::optional<double>(score.reward()) : std::nullopt);
  }
  return out;
}

void ToProto(const StepRecord& a, const Embedding* embedding, v1::Step* out) {
  out->set_answer_num(a.answer_num);
  out->set_answer(a.answer);
  out->set_coherence(a.coherence);
  out->set_novelty(a.novelty);
  if (a.llm_novelty.has_value()) out->set_llm_novelty(*a.llm_novelty);
  out->set_valid(a.valid);
  out->set_error(a.error);
  if (embedding != nullptr) out->mutable_embedding()->Add(embedding->begin(), embedding->end());
}

StepRecord FromProto(const v1::Step& a) {
  StepRecord out;
  out.answer_num = a.answer_num();
  out.answer = a.answer();
  out.coherence = a.coherence();
  out.novelty = a.novelty();
  if (a.has_llm_novelty()) out.llm_novelty = a.llm_novelty();
  out.valid = a.valid();
  out.error = a.error();
  return out;
}

Embedding EmbeddingFromProto(const v1::Step& a) { return Embedding(a.embedding().begin(), a.embedding().end()); }

void ToProto(const CallStats& calls, google::protobuf::RepeatedPtrField<v1::CallCounter>* out) {
  for (const auto& [key, c] : calls) {
    v1::CallCounter* p = out->Add();
    p->set_key(key);
    p->set_requests(c.requests);
    p->set_cache_hits(c.cache_hits);
    p->set_retries(c.retries);
    p->set_errors(c.errors);
    p->set_prompt_tokens(c.prompt_tokens);
    p->set_completion_tokens(c.completion_tokens);
  }
}

CallStats FromProto(const google::protobuf::RepeatedPtrField<v1::CallCounter>& calls) {
  CallStats out;
  for (const v1::CallCounter& p : calls) {
    CallCounters& c = out[p.key()];
    c.requests += p.requests();
    c.cache_hits += p.cache_hits();
    c.retries += p.retries();
    c.errors += p.errors();
    c.prompt_tokens += p.prompt_tokens();
    c.completion_tokens += p.completion_tokens();
  }
  return out;
}

void ToProto(const UnitResult& result, v1::CompleteRequest* out) {
  out->set_unit_id(result.unit.id);
  for (const StepRecord& a : result.answers) ToProto(a, nullptr, out->add_answers());
  out->set_stop_reason(result.stop_reason);
  out->set_error(result.error);
  out->set_max_iterations(result.max_iterations);
  if (result.novelty.has_value()) ToProto(*result.novelty, out->mutable_novelty());
}

UnitResult ResultFromProto(const v1::CompleteRequest& request, UnitSpec result_unit) {
  UnitResult result;
  result.unit = std::move(result_unit);
  for (const v1::Step& a : request.answers()) result.answers.push_back(FromProto(a));
  result.stop_reason = request.stop_reason();
  result.error = request.error();
  result.max_iterations = request.max_iterations();
  if (request.has_novelty()) result.novelty = FromProto(request.novelty());
  return result;
}

}  // namespace noveltygrid
