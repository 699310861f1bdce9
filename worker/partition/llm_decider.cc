#include "worker/partition/llm_decider.h"

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/hashing.h"
#include "common/text.h"

namespace noveltygrid {
namespace {

noveltybench::NoveltyPrompts WithTemplate(std::string judge_template) {
  noveltybench::NoveltyPrompts prompts;
  prompts.equivalence_judge = std::move(judge_template);
  return prompts;
}

}  // namespace

// One Score call: its pairs, their scores as they arrive, and the first failure.
struct LlmDecider::Batch {
  std::string prompt;
  std::vector<TextPair> pairs;
  DeciderCallback done;
  absl::Mutex mu;
  std::vector<double> scores ABSL_GUARDED_BY(mu);
  size_t outstanding ABSL_GUARDED_BY(mu) = 0;
  std::string error ABSL_GUARDED_BY(mu);
  CallCounters calls ABSL_GUARDED_BY(mu);
};

LlmDecider::LlmDecider(ChatModel* judge, std::string judge_template, double threshold, uint64_t seed, int judge_retries)
    : EquivalenceDecider(kPartitionerLlm, "judge", judge->id(), threshold),
      judge_(judge),
      prompts_(WithTemplate(std::move(judge_template))),
      seed_(seed),
      judge_retries_(judge_retries) {}

std::optional<EquivalenceScope> LlmDecider::CacheScope(std::string_view prompt) const {
  // The judge's answer depends on the template, the prompt and the seed it is sent.
  const uint64_t context = StableHasher().Add(prompts_.equivalence_judge).Add(prompt).Add(seed_).Finish();
  return EquivalenceScope{kind(), cache_model(), HexId(context)};
}

std::optional<double> LlmDecider::ParseSimilarity(const std::string& reply) {
  const std::optional<std::string> body = ExtractLastTag(reply, "similarity_score");
  if (!body.has_value()) return std::nullopt;
  const std::optional<long long> value = ParsePythonInt(*body);
  if (!value.has_value() || *value < 0 || *value > 100) return std::nullopt;
  return static_cast<double>(*value) / 100.0;
}

void LlmDecider::Score(const std::string& prompt, std::vector<TextPair> pairs, DeciderCallback done) {
  auto batch = std::make_shared<Batch>();
  batch->prompt = prompt;
  batch->pairs = std::move(pairs);
  batch->done = std::move(done);
  const size_t n = batch->pairs.size();
  {
    absl::MutexLock lock(&batch->mu);
    batch->scores.assign(n, 0.0);
    batch->outstanding = n;
  }
  for (size_t i = 0; i < n; ++i) Ask(batch, i, 0);
}

void LlmDecider::Ask(std::shared_ptr<Batch> batch, size_t index, int attempt) {
  ChatRequest request;
  request.messages.push_back(
      {"user", noveltybench::EquivalenceJudgePrompt(prompts_, batch->prompt, batch->pairs[index].first,
                                                    batch->pairs[index].second)});
  request.temperature = 0;
  request.max_tokens = noveltybench::kJudgeMaxTokens;
  request.seed = seed_;
  {
    absl::MutexLock lock(&batch->mu);
    batch->calls.requests++;
    if (attempt > 0) batch->calls.retries++;
  }
  judge_->Complete(std::move(request), [this, batch, index, attempt](absl::StatusOr<ChatReply> reply) mutable {
    std::optional<double> score;
    std::string why;
    if (!reply.ok()) {
      why = reply.status().ToString();
    } else if (reply->choices.empty()) {
      why = "the reply had no choices";
    } else {
      score = ParseSimilarity(reply->choices.front());
      if (!score.has_value()) {
        why = absl::StrCat("no integer 0-100 in <similarity_score> tags in the reply: \"",
                           SanitizeUtf8(reply->choices.front().substr(0, 200)), "\"");
      }
    }
    absl::ReleasableMutexLock lock(&batch->mu);
    if (reply.ok()) {
      CountReply(*reply, batch->calls);
    }
    if (!score.has_value() && reply.ok() && attempt < judge_retries_ && batch->error.empty()) {
      lock.Release();
      Ask(std::move(batch), index, attempt + 1);  // re-ask only a judge that answered
      return;
    }
    if (score.has_value()) {
      batch->scores[index] = *score;
    } else {
      batch->calls.errors++;
      if (batch->error.empty()) {
        batch->error = absl::StrCat("judging pair ", index + 1, " failed after ", attempt + 1, " attempt",
                                    attempt == 0 ? "" : "s", ": ", why);
      }
    }
    if (--batch->outstanding > 0) return;
    DeciderReply out;
    out.calls = batch->calls;
    if (batch->error.empty()) {
      out.scores = std::move(batch->scores);
    } else {
      out.scores = absl::InternalError(batch->error);
    }
    lock.Release();
    std::move(batch->done)(std::move(out));
  });
}

}  // namespace noveltygrid
