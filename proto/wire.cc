#include "proto/wire.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

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
  out->set_repeat(u.repeat);
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
  out.repeat = u.repeat();
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
  out->set_reasoning_tokens(a.reasoning_tokens);
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
  out.reasoning_tokens = a.reasoning_tokens();
  return out;
}

Embedding EmbeddingFromProto(const v1::Step& a) {
  const float* data = a.embedding().data();  // contiguous: copied as one block, not float by float
  return Embedding(data, data + a.embedding_size());
}

std::optional<int> StepAnswerNum(std::string_view step) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(step.data()),
                                            static_cast<int>(step.size()));
  constexpr uint32_t kAnswerNumTag =
      WireFormatLite::MakeTag(v1::Step::kAnswerNumFieldNumber, WireFormatLite::WIRETYPE_VARINT);
  uint32_t answer_num = 0;  // int32: a negative one travels as ten bytes, and reads back as its low 32 bits
  bool has_error = false;
  while (const uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == 0) return std::nullopt;
    has_error = has_error || WireFormatLite::GetTagFieldNumber(tag) == v1::Step::kErrorFieldNumber;
    if (tag == kAnswerNumTag) {
      if (!in.ReadVarint32(&answer_num)) return std::nullopt;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return std::nullopt;
    }
  }
  // ReadTag also gives 0 for a truncated tag: only a walk that used every byte is well formed.
  if (!in.ConsumedEntireMessage() || in.CurrentPosition() != static_cast<int>(step.size())) return std::nullopt;
  // `error` is the one field a parse validates (a string must be UTF-8). Workers report no step that
  // has one, so a step that does is parsed in full, here, rather than fail when a lease sends it back.
  if (has_error && !v1::Step().ParseFromArray(step.data(), static_cast<int>(step.size()))) return std::nullopt;
  return static_cast<int>(answer_num);
}

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
    p->set_reasoning_tokens(c.reasoning_tokens);
    p->set_cache_read_tokens(c.cache_read_tokens);
    p->set_cache_write_tokens(c.cache_write_tokens);
    p->set_hedges(c.hedges);
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
    c.reasoning_tokens += p.reasoning_tokens();
    c.cache_read_tokens += p.cache_read_tokens();
    c.cache_write_tokens += p.cache_write_tokens();
    c.hedges += p.hedges();
  }
  return out;
}

void ToProto(const CallWaits& waits, v1::CallWaits* out) {
  out->set_in_flight(waits.in_flight);
  out->set_retrying(waits.retrying);
  out->set_limited(waits.limited);
  out->set_oldest_ms(absl::ToInt64Milliseconds(waits.oldest));
  out->set_stalled(waits.stalled);
  out->set_stalled_unit(waits.stalled_unit);
}

CallWaits FromProto(const v1::CallWaits& waits) {
  return CallWaits{waits.in_flight(), waits.retrying(),    waits.limited(), absl::Milliseconds(waits.oldest_ms()),
                   waits.stalled(),   waits.stalled_unit()};
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
  result.answers.reserve(request.answers_size());
  for (const v1::Step& a : request.answers()) result.answers.push_back(FromProto(a));
  result.stop_reason = request.stop_reason();
  result.error = request.error();
  result.max_iterations = request.max_iterations();
  if (request.has_novelty()) result.novelty = FromProto(request.novelty());
  return result;
}

const v1::Lease* SharedSettingsFor(const v1::LeaseResponse& response, std::string_view benchmark) {
  for (const v1::Lease& shared : response.shared()) {
    if (shared.unit().benchmark() == benchmark) return &shared;
  }
  return nullptr;
}

void TakeSharedSettings(v1::LeaseResponse* response) {
  if (response->shared_size() == 0) return;
  for (v1::Lease& lease : *response->mutable_leases()) {
    // A lease with settings of its own keeps them (merging would append a second copy of the endpoints).
    if (lease.has_aidan() || lease.has_novelty()) continue;
    if (const v1::Lease* shared = SharedSettingsFor(*response, lease.unit().benchmark())) {
      lease.MergeFrom(*shared);  // its settings; unit.benchmark is the lease's own already
    }
  }
  response->clear_shared();
}

}  // namespace noveltygrid
