#include "common/settings_proto.h"

#include "absl/time/time.h"

namespace noveltygrid {

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
  out->set_reasoning_effort(e.reasoning_effort);
  out->set_omit_temperature(e.omit_temperature);
  out->set_api(p.api);
  out->set_prompt_cache(p.prompt_cache);
  out->set_ignore_reported_limits(!p.learn_limits);
  out->set_hedge_after_ms(absl::ToInt64Milliseconds(p.hedge_after));
  out->set_hedge_percentile(p.hedge_percentile);
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
  out.reasoning_effort = e.reasoning_effort();
  out.omit_temperature = e.omit_temperature();
  p.api = e.api().empty() ? kApiOpenAi : e.api();
  p.prompt_cache = e.prompt_cache();
  p.learn_limits = !e.ignore_reported_limits();
  p.hedge_after = absl::Milliseconds(e.hedge_after_ms());
  p.hedge_percentile = e.hedge_percentile();
  return out;
}

std::map<std::string, ModelEndpoint> EndpointsByName(
    const google::protobuf::RepeatedPtrField<v1::ModelEndpoint>& endpoints) {
  std::map<std::string, ModelEndpoint> out;
  for (const v1::ModelEndpoint& e : endpoints) out[e.name()] = FromProto(e);
  return out;
}

void ToProto(const std::map<std::string, ModelEndpoint>& endpoints,
             google::protobuf::RepeatedPtrField<v1::ModelEndpoint>* out) {
  out->Clear();
  for (const auto& [name, endpoint] : endpoints) ToProto(endpoint, out->Add());
}

void ToProto(const PromptTemplates& t, v1::PromptTemplates* out) {
  out->set_generation_base(t.generation_base);
  out->set_generation_instructions(t.generation_instructions);
  out->set_generation_previous_block(t.generation_previous_block);
  out->set_previous_answer_item(t.previous_answer_item);
  out->set_previous_answers_separator(t.previous_answers_separator);
  out->set_coherence_judge(t.coherence_judge);
  out->set_coherence_judge_1_10(t.coherence_judge_1_10);
  out->set_similarity_judge(t.similarity_judge);
}

PromptTemplates FromProto(const v1::PromptTemplates& t) {
  PromptTemplates out;
  out.generation_base = t.generation_base();
  out.generation_instructions = t.generation_instructions();
  out.generation_previous_block = t.generation_previous_block();
  out.previous_answer_item = t.previous_answer_item();
  out.previous_answers_separator = t.previous_answers_separator();
  out.coherence_judge = t.coherence_judge();
  out.coherence_judge_1_10 = t.coherence_judge_1_10();
  out.similarity_judge = t.similarity_judge();
  return out;
}

}  // namespace noveltygrid
