#include "worker/engines/noveltybench_engine.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/executor.h"
#include "common/hashing.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/prompts.h"
#include "common/noveltybench/scoring.h"
#include "common/settings_proto.h"
#include "common/text.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/engines/aidanbench_engine.h"
#include "worker/partition/async_partition.h"
#include "worker/partition/equivalence_decider.h"

namespace noveltygrid {
namespace {

constexpr int kJudgeRetries = 2;  // re-asks of an unparseable judge reply

// The seed of the request whose first generation is `index`: the sweep seed for index 0 (so the n = k
// request of a fresh unit sends the sweep seed), a hash of (seed, index) after it. Fixed by the index
// alone, so a resumed unit asks its missing generations exactly as the fresh run did.
uint64_t GenerationSeed(uint64_t seed, int index) {
  if (index == 0) return seed;
  return StableHasher().Add("noveltybench-generation").Add(seed).Add(static_cast<uint64_t>(index)).Finish();
}

noveltybench::NoveltyPrompts ResolvePrompts(const NoveltySettings& settings) {
  noveltybench::NoveltyPrompts prompts = noveltybench::DefaultNoveltyPrompts();
  auto over = [](std::string& entry, const std::string& setting) {
    if (!setting.empty()) entry = setting;
  };
  over(prompts.in_context_followup, settings.in_context_followup());
  over(prompts.system_prompt, settings.system_prompt());
  over(prompts.equivalence_judge, settings.equivalence_prompt());
  over(prompts.groups_judge, settings.groups_prompt());
  over(prompts.quality_judge, settings.quality_prompt());
  return prompts;
}

std::string Key(const char* role, const std::string& model) { return absl::StrCat(role, ":", model); }

// A scorer call's cost: the HTTP requests it took (an in-process call counts as one), retries and hedges.
void CountScorerCall(CallCounters& counters, const ScorerCallInfo& call) {
  counters.requests += std::max(1, call.requests);
  counters.retries += call.retries;
  counters.hedges += call.hedges;
}

// One unit. Owns itself through the shared_ptr every pending callback holds.
//
// Threading: replies arrive on any executor thread, several at once (k requests of n = 1, the quality
// judge's concurrent calls). Each is turned into an event; events run one at a time, in the order
// posted, on the thread that posted while none was running (Post). Everything below `mu_` is touched
// only by the running event, so observers and on_done never run concurrently and need no lock.
class NoveltyRun : public std::enable_shared_from_this<NoveltyRun> {
 public:
  NoveltyRun(const NoveltySettings& settings, const NoveltyModels& models, UnitSpec unit,
             std::vector<StepRecord> checkpoint, NoveltySampleObserver on_sample, UnitDoneCallback on_done,
             LeaseCheck still_leased)
      : settings_(settings),
        models_(models),
        prompts_(ResolvePrompts(settings)),
        on_sample_(std::move(on_sample)),
        on_done_(std::move(on_done)),
        still_leased_(std::move(still_leased)),
        checkpoint_(std::move(checkpoint)) {
    result_.unit = std::move(unit);
  }

  void Start() {
    Post([self = shared_from_this()] { self->Begin(); });
  }

 private:
  // ---- events ----

  void Post(Task event) {
    {
      absl::MutexLock lock(&mu_);
      events_.push_back(std::move(event));
      if (running_) return;
      running_ = true;
    }
    for (;;) {
      Task next;
      {
        absl::MutexLock lock(&mu_);
        if (events_.empty()) {
          running_ = false;
          return;
        }
        next = std::move(events_.front());
        events_.pop_front();
      }
      std::move(next)();
    }
  }

  // Wraps a model callback so that the reply is handled as an event.
  template <typename Reply, typename Handler>
  auto AsEvent(Handler handler) {
    return [self = shared_from_this(), handler = std::move(handler)](Reply reply) mutable {
      self->Post([self, handler = std::move(handler), reply = std::move(reply)]() mutable {
        if (!self->finished_) handler(*self, std::move(reply));
      });
    };
  }

  // ---- setup ----

  void Begin() {
    if (absl::Status status = Prepare(); !status.ok()) return Finish(kStopError, std::string(status.message()));
    if (static_cast<int>(result_.answers.size()) == settings_.k()) return StartPartition();
    RequestGenerations();
  }

  // Checks the unit against the settings and models, builds the decider and takes the checkpoint.
  absl::Status Prepare() {
    const UnitSpec& unit = result_.unit;
    if (settings_.k() < 1) return absl::InvalidArgumentError(absl::StrCat("k is ", settings_.k(), "; it must be >= 1"));
    if (models_.generator == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("no generator model for ", unit.model));
    }
    const std::string& mode = unit.mode;
    if (mode != kModeStandard && mode != kModeInContext && mode != kModeParaphrase && mode != kModeSystemPrompt) {
      return absl::InvalidArgumentError(absl::StrCat("unknown sampling mode '", mode, "'; expected ", kModeStandard,
                                                     ", ", kModeInContext, ", ", kModeParaphrase, " or ",
                                                     kModeSystemPrompt));
    }
    if (mode == kModeParaphrase && static_cast<int>(unit.paraphrases.size()) < settings_.k()) {
      return absl::InvalidArgumentError(
          absl::StrCat("paraphrase mode needs ", settings_.k(), " paraphrases of prompt '", unit.item_id,
                       "' (one per generation); ", "the dataset gives it ", unit.paraphrases.size()));
    }
    DeciderOptions decider;
    decider.partitioner = settings_.partitioner();
    decider.threshold = settings_.threshold();
    decider.equivalence_judge = prompts_.equivalence_judge;
    decider.groups_judge = prompts_.groups_judge;
    decider.seed = settings_.seed();
    decider.judge_retries = kJudgeRetries;
    decider.classifier = models_.classifier;
    decider.embedder = models_.embedder;
    decider.judge = models_.equivalence_judge;
    const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(settings_.endpoints());
    if (const ModelEndpoint* e = FindEndpoint(endpoints, settings_.partition_model());
        e != nullptr && EndpointChangesAnswers(settings_.partition_model(), *e)) {
      decider.model_identity = absl::StrCat(e->remote_model, "\n", e->extra_body_json, "\n", e->dimensions);
    }
    absl::StatusOr<std::unique_ptr<EquivalenceDecider>> made = MakeEquivalenceDecider(decider);
    if (!made.ok()) return made.status();
    decider_ = std::move(*made);
    if (settings_.quality() == kQualityReward) {
      if (models_.reward == nullptr) return absl::InvalidArgumentError("quality 'reward' needs a reward model");
    } else if (settings_.quality() == kQualityLlm) {
      if (models_.quality_judge == nullptr) return absl::InvalidArgumentError("quality 'llm' needs a judge model");
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown quality '", settings_.quality(), "'; expected reward or llm"));
    }
    if (static_cast<int>(checkpoint_.size()) > settings_.k()) {
      return absl::InvalidArgumentError(absl::StrCat("the checkpoint holds ", checkpoint_.size(),
                                                     " generations; the unit has only k = ", settings_.k()));
    }
    // Only a clean prefix counts (generation steps never carry errors; anything else is asked again).
    for (size_t i = 0; i < checkpoint_.size(); ++i) {
      if (checkpoint_[i].answer_num != static_cast<int>(i) + 1 || !checkpoint_[i].error.empty()) break;
      result_.answers.push_back(std::move(checkpoint_[i]));
    }
    checkpoint_.clear();
    return absl::OkStatus();
  }

  // ---- generation ----

  std::vector<ChatMessage> Conversation() const {
    const UnitSpec& unit = result_.unit;
    std::vector<ChatMessage> messages;
    if (unit.mode == kModeSystemPrompt) messages.push_back({"system", prompts_.system_prompt});
    messages.push_back({"user", unit.item_text});
    if (unit.mode == kModeInContext) {
      for (const StepRecord& earlier : result_.answers) {
        messages.push_back({"assistant", earlier.answer});
        messages.push_back({"user", prompts_.in_context_followup});
      }
    }
    return messages;
  }

  // Asks for every missing generation at once, except in-context, which asks one turn at a time.
  void RequestGenerations() {
    const UnitSpec& unit = result_.unit;
    const int first = static_cast<int>(result_.answers.size());
    if (unit.mode == kModeInContext) return Ask(first, 1, Conversation());
    if (unit.mode == kModeParaphrase) {
      for (int i = first; i < settings_.k(); ++i) Ask(i, 1, {{"user", unit.paraphrases[i]}});
      return;
    }
    // Standard and system-prompt. A resumed n = k unit repeats the fresh run's request exactly (n = k,
    // the seed of index 0) and keeps only the choices it lacks: asking n = k - first would put other
    // choices there, and the results would depend on where a worker died.
    if (settings_.ask_n()) return Ask(0, settings_.k(), Conversation(), /*keep_from=*/first);
    for (int i = first; i < settings_.k(); ++i) Ask(i, 1, Conversation());
  }

  // Generations first .. first + n - 1, as the n choices of one request; choices before `keep_from`
  // are already checkpointed and dropped.
  void Ask(int first, int n, std::vector<ChatMessage> messages, int keep_from = 0) {
    ChatRequest request;
    request.messages = std::move(messages);
    request.temperature = result_.unit.temperature;
    request.max_tokens = settings_.max_tokens();
    request.seed = GenerationSeed(settings_.seed(), first);
    request.n = n;
    calls_[Key("generate", models_.generator->id())].requests++;
    models_.generator->Complete(
        std::move(request),
        AsEvent<absl::StatusOr<ChatReply>>([first, n, keep_from](NoveltyRun& run, absl::StatusOr<ChatReply> reply) {
          run.OnGenerated(first, n, keep_from, std::move(reply));
        }));
  }

  void OnGenerated(int first, int n, int keep_from, absl::StatusOr<ChatReply> reply) {
    CallCounters& counters = calls_[Key("generate", models_.generator->id())];
    if (!reply.ok() || static_cast<int>(reply->choices.size()) != n) {
      counters.errors++;
      return Finish(kStopError,
                    absl::StrCat("generation by ", models_.generator->id(), " failed: ",
                                 reply.ok() ? absl::StrCat("asked for ", n, " choices, got ", reply->choices.size())
                                            : reply.status().ToString()));
    }
    CountReply(*reply, counters);
    for (int j = keep_from; j < n; ++j) {
      ready_[first + j] = Ready{SanitizeUtf8(reply->choices[j]), ReasoningShare(*reply, j, n)};
    }
    ReportReady();
  }

  // Reports the generations that are next in order, then asks for the next turn or partitions.
  void ReportReady() {
    for (auto it = ready_.begin(); it != ready_.end() && it->first == static_cast<int>(result_.answers.size());
         it = ready_.erase(it)) {
      StepRecord sample;
      sample.answer_num = it->first + 1;
      sample.answer = std::move(it->second.text);
      sample.reasoning_tokens = it->second.reasoning_tokens;
      result_.answers.push_back(std::move(sample));
      if (on_sample_ && !on_sample_(result_.answers, calls_)) return Finish(kStopCancelled, "");
    }
    const int have = static_cast<int>(result_.answers.size());
    if (have == settings_.k()) return StartPartition();
    if (result_.unit.mode == kModeInContext && ready_.empty()) Ask(have, 1, Conversation());
  }

  // ---- partition ----

  // False (after finishing the unit as cancelled) when its lease was lost: no more model calls.
  bool StillLeased() {
    if (!still_leased_ || still_leased_()) return true;
    Finish(kStopCancelled, "");
    return false;
  }

  void StartPartition() {
    if (!StillLeased()) return;
    std::vector<std::string> generations;
    generations.reserve(result_.answers.size());
    for (const StepRecord& a : result_.answers) generations.push_back(a.answer);
    PartitionAsync(result_.unit.item_text, std::move(generations), decider_.get(), models_.cache,
                   AsEvent<PartitionOutcome>(
                       [](NoveltyRun& run, PartitionOutcome outcome) { run.OnPartitioned(std::move(outcome)); }));
  }

  void OnPartitioned(PartitionOutcome outcome) {
    MergeCallStats(outcome.calls, calls_);
    if (!outcome.partition.ok()) {
      return Finish(kStopError,
                    absl::StrCat("partition by ", decider_->name(), ": ", outcome.partition.status().message()));
    }
    novelty_.partition = std::move(*outcome.partition);
    if (StillLeased()) StartQuality();
  }

  // ---- quality (class openers only) ----

  void StartQuality() {
    const int k = settings_.k();
    novelty_.quality.assign(k, std::nullopt);
    novelty_.reward.assign(k, std::nullopt);
    const std::vector<bool> openers = noveltybench::ClassOpeners(novelty_.partition);
    std::vector<int> scored;
    for (int i = 0; i < k; ++i) {
      if (openers[i]) scored.push_back(i);
    }
    if (settings_.quality() == kQualityLlm) {
      judging_ = static_cast<int>(scored.size());
      for (int i : scored) Judge(i, 0);
      return;
    }
    std::vector<RewardItem> items;
    for (int i : scored) items.push_back({result_.unit.item_text, result_.answers[i].answer});
    models_.reward->Score(std::move(items), AsEvent<absl::StatusOr<RewardScores>>(
                                                [scored](NoveltyRun& run, absl::StatusOr<RewardScores> scores) {
                                                  run.OnRewards(scored, std::move(scores));
                                                }));
  }

  void OnRewards(const std::vector<int>& scored, absl::StatusOr<RewardScores> scores) {
    CallCounters& counters = calls_[Key("reward", models_.reward->id())];
    if (!scores.ok()) {
      counters.requests++;
      counters.errors++;
      return QualityFailed(models_.reward->id(), scores.status().ToString());
    }
    CountScorerCall(counters, scores->call);
    if (scores->scores.size() != scored.size()) {
      counters.errors++;
      return QualityFailed(models_.reward->id(),
                           absl::StrCat("asked for ", scored.size(), " rewards, got ", scores->scores.size()));
    }
    for (size_t j = 0; j < scored.size(); ++j) {
      const double reward = scores->scores[j];
      novelty_.reward[scored[j]] = reward;
      novelty_.quality[scored[j]] = noveltybench::QualityFromReward(reward);
    }
    Complete();
  }

  void Judge(int index, int attempt) {
    ChatRequest request;
    request.messages.push_back(
        {"user", noveltybench::QualityJudgePrompt(prompts_, result_.unit.item_text, result_.answers[index].answer)});
    request.temperature = 0;
    request.max_tokens = noveltybench::kJudgeMaxTokens;
    request.seed = settings_.seed();
    CallCounters& counters = calls_[Key("judge", models_.quality_judge->id())];
    counters.requests++;
    if (attempt > 0) counters.retries++;
    models_.quality_judge->Complete(
        std::move(request),
        AsEvent<absl::StatusOr<ChatReply>>([index, attempt](NoveltyRun& run, absl::StatusOr<ChatReply> reply) {
          run.OnJudged(index, attempt, std::move(reply));
        }));
  }

  void OnJudged(int index, int attempt, absl::StatusOr<ChatReply> reply) {
    const std::string& judge = models_.quality_judge->id();
    CallCounters& counters = calls_[Key("judge", judge)];
    std::optional<int> score;
    std::string why;
    if (!reply.ok()) {
      why = reply.status().ToString();
    } else {
      CountReply(*reply, counters);
      if (reply->choices.empty()) {
        why = "the reply had no choices";
      } else {
        score = ParseCoherenceScore(reply->choices.front(), noveltybench::kMaxQuality);
        if (!score.has_value()) {
          why = absl::StrCat("no integer 0-10 in <coherence_score> tags in the reply: \"",
                             SanitizeUtf8(reply->choices.front().substr(0, 200)), "\"");
        }
      }
    }
    if (!score.has_value()) {
      if (reply.ok() && attempt < kJudgeRetries) return Judge(index, attempt + 1);  // re-ask only when it answered
      counters.errors++;
      return QualityFailed(judge, absl::StrCat("generation ", index + 1, " after ", attempt + 1, " attempt",
                                               attempt == 0 ? "" : "s", ": ", why));
    }
    novelty_.quality[index] = std::max(noveltybench::kMinQuality, *score);  // a judge's 0 counts as 1
    if (--judging_ == 0) Complete();
  }

  void QualityFailed(const std::string& model, const std::string& why) {
    Finish(kStopError, absl::StrCat("quality by ", model, ": ", why));
  }

  // ---- end ----

  void Complete() {
    result_.novelty = std::move(novelty_);
    Finish(kStopComplete, "");
  }

  void Finish(const char* reason, std::string error) {
    if (finished_) return;
    finished_ = true;
    result_.stop_reason = reason;
    result_.error = std::move(error);
    std::move(on_done_)(std::move(result_), std::move(calls_));
  }

  // Constant after construction.
  const NoveltySettings settings_;
  const NoveltyModels models_;
  const noveltybench::NoveltyPrompts prompts_;
  NoveltySampleObserver on_sample_;
  UnitDoneCallback on_done_;
  LeaseCheck still_leased_;

  absl::Mutex mu_;  // guards the event queue only
  std::deque<Task> events_ ABSL_GUARDED_BY(mu_);
  bool running_ ABSL_GUARDED_BY(mu_) = false;

  // Touched only by the running event.
  std::vector<StepRecord> checkpoint_;  // until Prepare takes it
  std::unique_ptr<EquivalenceDecider> decider_;
  UnitResult result_;  // answers: the generations reported so far
  struct Ready {
    std::string text;
    int64_t reasoning_tokens = 0;
  };
  std::map<int, Ready> ready_;  // generations received but not yet reported, by index
  NoveltyOutcome novelty_;
  int judging_ = 0;  // quality judge calls outstanding
  bool finished_ = false;
  CallStats calls_;
};

}  // namespace

void RunNoveltyUnit(const NoveltySettings& settings, const NoveltyModels& models, UnitSpec unit,
                    std::vector<StepRecord> checkpoint, NoveltySampleObserver on_sample, UnitDoneCallback on_done,
                    LeaseCheck still_leased) {
  auto run = std::make_shared<NoveltyRun>(settings, models, std::move(unit), std::move(checkpoint),
                                          std::move(on_sample), std::move(on_done), std::move(still_leased));
  run->Start();
}

}  // namespace noveltygrid
