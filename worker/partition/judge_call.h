// AskJudge: one judgement from a chat judge, asked again while it answers unparseably -- the call
// both LLM partitioners (pair by pair, and the whole set at once) make.
//
//   AskJudge(judge, prompt_text, seed, /*retries=*/2,
//            [](const std::string& reply) { return Parse(reply); },   // OK: accepted
//            [](JudgeOutcome outcome) { ... });
//
// The request is one user message, temperature 0, noveltybench::kJudgeMaxTokens, `seed`. A reply that
// `accept` refuses is asked again, up to `retries` times; a failed call is not (the provider channel
// has retried it already), nor one whose `cancelled` flag is set meanwhile (a batch that failed
// elsewhere: its other judgements are not worth paying for). The outcome's status says why the last attempt failed and
// after how many; its counters hold every request, retry, error and token of the judgement.
//
// `accept` and `done` run on the judge's executor thread; `judge` must outlive the call.
#ifndef NOVELTYGRID_WORKER_PARTITION_JUDGE_CALL_H_
#define NOVELTYGRID_WORKER_PARTITION_JUDGE_CALL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "common/records.h"
#include "worker/models/model.h"

namespace noveltygrid {

struct JudgeOutcome {
  absl::Status status;  // OK when `accept` took a reply
  CallCounters calls;
};

using JudgeAccept = std::function<absl::Status(const std::string& reply)>;
using JudgeDone = absl::AnyInvocable<void(JudgeOutcome) &&>;

void AskJudge(ChatModel* judge, std::string prompt, uint64_t seed, int retries, JudgeAccept accept, JudgeDone done,
              std::shared_ptr<const std::atomic<bool>> cancelled = nullptr);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_JUDGE_CALL_H_
