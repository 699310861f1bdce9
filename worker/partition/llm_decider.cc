#include "worker/partition/llm_decider.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/text.h"
#include "worker/partition/judge_call.h"

namespace noveltygrid {
namespace {

noveltybench::NoveltyPrompts WithTemplate(std::string judge_template) {
  noveltybench::NoveltyPrompts prompts;
  prompts.equivalence_judge = std::move(judge_template);
  return prompts;
}

}  // namespace

// One Score call: its scores as they arrive, and the first failure.
struct LlmDecider::Batch {
  DeciderCallback done;
  std::shared_ptr<std::atomic<bool>> failed = std::make_shared<std::atomic<bool>>(false);  // stops re-asks
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
  return JudgeScope(prompts_.equivalence_judge, prompt, seed_);
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
  batch->done = std::move(done);
  const size_t n = pairs.size();
  {
    absl::MutexLock lock(&batch->mu);
    batch->scores.assign(n, 0.0);
    batch->outstanding = n;
  }
  for (size_t i = 0; i < n; ++i) {
    auto score = std::make_shared<double>(0.0);
    AskJudge(
        judge_, noveltybench::EquivalenceJudgePrompt(prompts_, prompt, pairs[i].first, pairs[i].second), seed_,
        judge_retries_,
        [score](const std::string& reply) {
          const std::optional<double> parsed = ParseSimilarity(reply);
          if (!parsed.has_value()) return absl::InvalidArgumentError("no integer 0-100 in <similarity_score> tags");
          *score = *parsed;
          return absl::OkStatus();
        },
        [batch, i, score](JudgeOutcome outcome) { Deliver(batch, i, *score, std::move(outcome)); }, batch->failed);
  }
}

void LlmDecider::Deliver(const std::shared_ptr<Batch>& batch, size_t index, double score, JudgeOutcome outcome) {
  absl::ReleasableMutexLock lock(&batch->mu);
  batch->calls += outcome.calls;
  if (outcome.status.ok()) {
    batch->scores[index] = score;
  } else if (batch->error.empty()) {
    batch->error = absl::StrCat("judging pair ", index + 1, " ", outcome.status.message());
    batch->failed->store(true, std::memory_order_release);
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
}

}  // namespace noveltygrid
