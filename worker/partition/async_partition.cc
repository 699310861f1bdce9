#include "worker/partition/async_partition.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/noveltybench/partition.h"

namespace noveltygrid {
namespace {

// One partition in progress. Owns itself through the shared_ptr its pending decider call holds.
class GreedyRun : public std::enable_shared_from_this<GreedyRun> {
 public:
  GreedyRun(std::string prompt, std::vector<std::string> generations, EquivalenceDecider* decider,
            EquivalenceCache* cache, PartitionCallback done)
      : prompt_(std::move(prompt)),
        generations_(std::move(generations)),
        decider_(decider),
        cache_(cache),
        scope_(decider->CacheScope(prompt_)),
        stats_key_(decider->stats_key()),
        done_(std::move(done)) {}

  // Places generations until one needs the decider (its reply calls Advance again) or all are placed.
  void Advance() {
    while (partition_.size() < generations_.size()) {
      if (!PlaceOrAsk()) return;
    }
    Finish(std::move(partition_));
  }

 private:
  using Verdicts = std::vector<std::optional<bool>>;  // per class: equivalent? (nullopt: not known yet)

  const std::string& FirstMember(size_t c) const { return generations_[first_members_[c]]; }
  const std::string& Candidate() const { return generations_[partition_.size()]; }

  // The classes still to be asked: unknown ones before the first class known to be equivalent.
  static std::vector<size_t> OpenClasses(const Verdicts& verdicts) {
    std::vector<size_t> open;
    for (size_t c = 0; c < verdicts.size(); ++c) {
      if (verdicts[c] == true) break;
      if (!verdicts[c].has_value()) open.push_back(c);
    }
    return open;
  }

  std::vector<TextPair> PairsFor(const std::vector<size_t>& classes) const {
    std::vector<TextPair> pairs;
    pairs.reserve(classes.size());
    for (size_t c : classes) pairs.emplace_back(FirstMember(c), Candidate());
    return pairs;
  }

  // Places the next generation from the short-text rule and the cache, or asks the decider about the
  // pairs still open (then false: the reply continues the run).
  bool PlaceOrAsk() {
    Verdicts verdicts(first_members_.size());
    for (size_t c = 0; c < verdicts.size(); ++c)
      verdicts[c] = noveltybench::ShortTextEquivalence(FirstMember(c), Candidate());
    std::vector<size_t> open = OpenClasses(verdicts);
    if (!open.empty() && cache_ != nullptr && scope_.has_value()) {
      const std::vector<std::optional<double>> cached = cache_->GetMany(*scope_, PairsFor(open));
      for (size_t j = 0; j < open.size(); ++j) {
        if (!cached[j].has_value()) continue;
        verdicts[open[j]] = decider_->Equivalent(*cached[j]);
        calls_[stats_key_].cache_hits++;
      }
      open = OpenClasses(verdicts);
    }
    if (open.empty()) {
      Place(verdicts);
      return true;
    }
    std::vector<TextPair> pairs = PairsFor(open);
    // Score is the last thing this thread does with the run: the reply may continue it elsewhere.
    decider_->Score(
        prompt_, pairs,
        [self = shared_from_this(), verdicts = std::move(verdicts), open = std::move(open),
         pairs](DeciderReply reply) mutable { self->OnScores(std::move(verdicts), open, pairs, std::move(reply)); });
    return false;
  }

  void OnScores(Verdicts verdicts, const std::vector<size_t>& open, const std::vector<TextPair>& pairs,
                DeciderReply reply) {
    if (!stats_key_.empty()) calls_[stats_key_] += reply.calls;
    if (!reply.scores.ok()) return Finish(reply.scores.status());
    const std::vector<double>& scores = *reply.scores;
    if (scores.size() != pairs.size()) {
      return Finish(absl::InternalError(
          absl::StrCat("the decider returned ", scores.size(), " scores for ", pairs.size(), " pairs")));
    }
    if (cache_ != nullptr && scope_.has_value()) cache_->PutMany(*scope_, pairs, scores);
    for (size_t j = 0; j < open.size(); ++j) verdicts[open[j]] = decider_->Equivalent(scores[j]);
    Place(verdicts);
    Advance();
  }

  // Joins the first equivalent class (every class before it is known not to be), else opens one.
  void Place(const Verdicts& verdicts) {
    int joined = -1;
    for (size_t c = 0; c < verdicts.size() && joined < 0; ++c) {
      if (verdicts[c] == true) joined = static_cast<int>(c);
    }
    if (joined < 0) {
      joined = static_cast<int>(first_members_.size());
      first_members_.push_back(partition_.size());
    }
    partition_.push_back(joined);
  }

  void Finish(absl::StatusOr<std::vector<int>> partition) {
    std::move(done_)(PartitionOutcome{std::move(partition), std::move(calls_)});
  }

  const std::string prompt_;
  const std::vector<std::string> generations_;
  EquivalenceDecider* const decider_;
  EquivalenceCache* const cache_;
  const std::optional<EquivalenceScope> scope_;
  const std::string stats_key_;
  PartitionCallback done_;

  // Touched by one thread at a time: the one placing generations or delivering the pending reply.
  std::vector<int> partition_;         // class of each placed generation
  std::vector<size_t> first_members_;  // per class, the generation that opened it
  CallStats calls_;
};

// A whole-set decider's partition: the classes from the cache or one Group call, then GreedyPartition's
// rule over them (the short-text rule first), so the result is canonical whatever labels the judge
// chose. No call when the short-text rule decides every pair.
void PartitionAtOnce(std::string prompt, std::vector<std::string> generations, EquivalenceDecider* decider,
                     EquivalenceCache* cache, PartitionCallback done) {
  auto by_classes = [](const std::vector<std::string>& generations, const std::vector<int>& labels) {
    return noveltybench::GreedyPartitionByIndex(
        generations, [&labels](size_t first, size_t candidate) { return labels[first] == labels[candidate]; });
  };
  PartitionOutcome outcome;
  if (noveltybench::ShortTextRuleDecidesAll(generations)) {
    outcome.partition = by_classes(generations, std::vector<int>(generations.size(), 0));  // never asked
    return std::move(done)(std::move(outcome));
  }
  const std::optional<EquivalenceScope> scope = cache != nullptr ? decider->CacheScope(prompt) : std::nullopt;
  if (scope.has_value()) {
    if (std::optional<std::vector<int>> labels = cache->GetGroups(*scope, generations); labels.has_value()) {
      outcome.calls[decider->stats_key()].cache_hits++;
      outcome.partition = by_classes(generations, *labels);
      return std::move(done)(std::move(outcome));
    }
  }
  auto texts = std::make_shared<const std::vector<std::string>>(generations);
  decider->Group(
      std::move(prompt), std::move(generations),
      [texts, scope, cache, by_classes, key = decider->stats_key(), done = std::move(done)](GroupsReply reply) mutable {
        PartitionOutcome outcome;
        outcome.calls[key] += reply.calls;
        if (reply.labels.ok() && reply.labels->size() != texts->size()) {
          reply.labels = absl::InternalError(
              absl::StrCat("the decider named ", reply.labels->size(), " classes for ", texts->size(), " generations"));
        }
        if (!reply.labels.ok()) {
          outcome.partition = reply.labels.status();
        } else {
          if (scope.has_value()) cache->PutGroups(*scope, *texts, *reply.labels);
          outcome.partition = by_classes(*texts, *reply.labels);
        }
        std::move(done)(std::move(outcome));
      });
}

}  // namespace

void PartitionAsync(std::string prompt, std::vector<std::string> generations, EquivalenceDecider* decider,
                    EquivalenceCache* cache, PartitionCallback done) {
  if (decider->classes_at_once()) {
    return PartitionAtOnce(std::move(prompt), std::move(generations), decider, cache, std::move(done));
  }
  auto run = std::make_shared<GreedyRun>(std::move(prompt), std::move(generations), decider, cache, std::move(done));
  run->Advance();
}

}  // namespace noveltygrid
