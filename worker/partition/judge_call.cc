#include "worker/partition/judge_call.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/noveltybench/prompts.h"
#include "common/text.h"

namespace noveltygrid {
namespace {

// One judgement across its attempts. Only one attempt is in flight at a time: no lock.
struct Judgement {
  ChatModel* judge;
  std::string prompt;
  uint64_t seed;
  int retries;
  JudgeAccept accept;
  JudgeDone done;
  std::shared_ptr<const std::atomic<bool>> cancelled;  // may be null
  CallCounters calls;
};

void Attempt(std::shared_ptr<Judgement> j, int attempt) {
  ChatRequest request;
  request.messages.push_back({"user", j->prompt});
  request.temperature = 0;
  request.max_tokens = noveltybench::kJudgeMaxTokens;
  request.seed = j->seed;
  j->calls.requests++;
  if (attempt > 0) j->calls.retries++;
  ChatModel* judge = j->judge;
  judge->Complete(std::move(request), [j = std::move(j), attempt](absl::StatusOr<ChatReply> reply) mutable {
    absl::Status why;
    if (!reply.ok()) {
      why = reply.status();
    } else {
      CountReply(*reply, j->calls);
      why = reply->choices.empty() ? absl::InvalidArgumentError("the reply had no choices")
                                   : j->accept(reply->choices.front());
      if (!why.ok() && !reply->choices.empty()) {
        why = absl::Status(why.code(), absl::StrCat(why.message(), " in the reply: \"",
                                                    SanitizeUtf8(reply->choices.front().substr(0, 200)), "\""));
      }
    }
    if (why.ok()) return std::move(j->done)(JudgeOutcome{absl::OkStatus(), j->calls});
    const bool cancelled = j->cancelled != nullptr && j->cancelled->load(std::memory_order_acquire);
    if (reply.ok() && attempt < j->retries && !cancelled) return Attempt(std::move(j), attempt + 1);  // it answered
    j->calls.errors++;
    const absl::Status failed(why.code(), absl::StrCat("failed after ", attempt + 1, " attempt",
                                                       attempt == 0 ? "" : "s", ": ", why.message()));
    std::move(j->done)(JudgeOutcome{failed, j->calls});
  });
}

}  // namespace

void AskJudge(ChatModel* judge, std::string prompt, uint64_t seed, int retries, JudgeAccept accept, JudgeDone done,
              std::shared_ptr<const std::atomic<bool>> cancelled) {
  auto j = std::make_shared<Judgement>(Judgement{judge, std::move(prompt), seed, retries, std::move(accept),
                                                 std::move(done), std::move(cancelled), CallCounters{}});
  Attempt(std::move(j), 0);
}

}  // namespace noveltygrid
