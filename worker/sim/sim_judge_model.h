// SimJudgeModel: the simulated judge ("sim:judge"). It rates the text it is shown -- there are no
// hidden labels -- so it works on any generator's output, simulated or recorded.
//
//   coherence prompt (asks for <coherence_score>; LAST <question> and LAST <answer> are read):
//     replies "<coherence_score>N</coherence_score>", N in 0..100, or 1..10 when the prompt's own
//     wording (outside the question and answer) says "1 to 10", "1-10" or "1 - 10". The score comes
//     from the text: known English words, function words in grammatical proportion, sentence shape
//     (capital, end punctuation, sentence length) and overlap with the question. SimChatModel's
//     coherent answers land around 60-95, its word salad at 0-15, an empty answer at 0.
//   similarity prompt (<answer1> and <answer2>): "<similarity_score>N</similarity_score>" from the
//     lexical overlap of the two answers' content words, 0..100.
//   groups prompt (<response1>, <response2>, ... and a request for <groups>): "<groups>1, 2, 1</groups>",
//     each response joining the first group whose first response it is similar to (similarity score
//     above 50, the llm partitioner's default cut), else starting the next group.
//   anything else: a short refusal with no tag, so callers exercise their parse-failure path.
//
// "sim:judge-flaky" behaves the same except that about 30% of calls reply without a tag or with a
// non-integer score ("7.5"), to exercise retries. Which calls fail depends on a per-instance call
// counter, so a retried prompt can succeed; flaky replies are therefore not reproducible across runs.
//
// Thread-safe: the only mutable state is the flaky call counter (atomic). Complete computes on the
// caller's thread and delivers through the executor, which must outlive pending calls.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_JUDGE_MODEL_H_
#define NOVELTYGRID_WORKER_SIM_SIM_JUDGE_MODEL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/models/model.h"

namespace noveltygrid {

class SimJudgeModel : public ChatModel {
 public:
  // `id` is "sim:judge" or "sim:judge-flaky"; InvalidArgument otherwise.
  static absl::StatusOr<std::unique_ptr<SimJudgeModel>> Create(const std::string& id, Executor* executor);

  const std::string& id() const override { return id_; }
  void Complete(ChatRequest request, ChatCallback done) override;

  // The reply Complete delivers, computed synchronously. Every choice is the same judgement.
  absl::StatusOr<ChatReply> Judge(const ChatRequest& request);

  // The 0..100 coherence score of `answer` to `question`, jitter included.
  static int ScoreCoherence(std::string_view question, std::string_view answer);
  // The 0..100 similarity score of two answers, jitter included.
  static int ScoreSimilarity(std::string_view answer1, std::string_view answer2);
  // The group numbers the groups prompt is answered with, comma-separated ("1, 2, 1").
  static std::string GroupResponses(const std::vector<std::string>& responses);
  static constexpr int kSameIdeaSimilarity = 50;

 private:
  SimJudgeModel(std::string id, bool flaky, Executor* executor);

  // Constant after construction.
  const std::string id_;
  const bool flaky_;
  Executor* const executor_;
  // Calls so far; read only in flaky mode.
  std::atomic<uint64_t> calls_{0};
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SIM_SIM_JUDGE_MODEL_H_
