// LlmDecider: an LLM judge rates how likely two responses are the same idea, 0..100, in
// <similarity_score> tags (template noveltybench::NoveltyPrompts::equivalence_judge); the score is
// N / 100. The pairs of a batch are asked concurrently, one request each (temperature 0). A reply
// without a parseable LAST <similarity_score> (an integer 0..100) is asked again, up to
// `judge_retries` times; then, or on a failed call, the batch fails. See equivalence_decider.h.
//
// Thread-safe: immutable; each batch joins its concurrent replies under its own mutex. The judge must
// outlive every call in flight.
#ifndef NOVELTYGRID_WORKER_PARTITION_LLM_DECIDER_H_
#define NOVELTYGRID_WORKER_PARTITION_LLM_DECIDER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/noveltybench/prompts.h"
#include "worker/models/model.h"
#include "worker/partition/equivalence_decider.h"
#include "worker/partition/judge_call.h"

namespace noveltygrid {

class LlmDecider : public EquivalenceDecider {
 public:
  // `judge` is not owned. `judge_template` has the placeholders {prompt}, {answer1}, {answer2}.
  LlmDecider(ChatModel* judge, std::string judge_template, double threshold, uint64_t seed, int judge_retries);

  // Scores depend on the template and the prompt, so both enter the scope.
  std::optional<EquivalenceScope> CacheScope(std::string_view prompt) const override;
  void Score(const std::string& prompt, std::vector<TextPair> pairs, DeciderCallback done) override;

  // N / 100 from the LAST <similarity_score>N</similarity_score>, N an integer 0..100 (Python int()
  // semantics); nullopt otherwise.
  static std::optional<double> ParseSimilarity(const std::string& reply);

 private:
  struct Batch;
  static void Deliver(const std::shared_ptr<Batch>& batch, size_t index, double score, JudgeOutcome outcome);

  ChatModel* const judge_;
  const noveltybench::NoveltyPrompts prompts_;  // only equivalence_judge is used
  const uint64_t seed_;
  const int judge_retries_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_LLM_DECIDER_H_
