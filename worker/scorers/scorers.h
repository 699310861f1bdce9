// The NoveltyBench scorer roles, as asynchronous interfaces in the style of worker/models/model.h:
//
//   PairClassifier  are two generations the same idea? (the reference: deberta-v3-large-generation-
//                   similarity, "same" when P(LABEL_1) > 0.102)
//   RewardModel     how good is a response to a prompt? (the reference: Skywork-Reward-Gemma-2-27B,
//                   a raw reward the benchmark buckets into quality 1..10)
//
// Every call returns at once; the reply arrives through the callback, which implementations run on an
// Executor (never inline on the caller's stack), on any thread. Implementations are thread-safe. A
// scorer id is what appears in results and call statistics; it never contains secrets. The
// thresholds and buckets are the benchmark's business, not the scorers': they return raw numbers.
#ifndef NOVELTYGRID_WORKER_SCORERS_SCORERS_H_
#define NOVELTYGRID_WORKER_SCORERS_SCORERS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"

namespace noveltygrid {

// What one scorer call cost over HTTP (all zero for in-process scorers).
struct ScorerCallInfo {
  int requests = 0;  // batches the call was split into
  int attempts = 0;  // HTTP requests sent, retries included
  int retries = 0;   // attempts beyond the first of each batch
  int hedges = 0;    // duplicate requests hedging sent (CallInfo::hedges); not attempts, not retries
};

struct ScoredPairs {
  std::vector<double> same_probability;  // P(same idea) per pair, in input order, each in [0, 1]
  ScorerCallInfo call;
};

using TextPair = std::pair<std::string, std::string>;
using ClassifyCallback = absl::AnyInvocable<void(absl::StatusOr<ScoredPairs>) &&>;

class PairClassifier {
 public:
  virtual ~PairClassifier() = default;
  virtual const std::string& id() const = 0;
  // One probability per pair; an empty `pairs` gives an empty reply without a request.
  virtual void Classify(std::vector<TextPair> pairs, ClassifyCallback done) = 0;
};

struct RewardItem {
  std::string prompt;
  std::string response;
};

struct RewardScores {
  std::vector<double> scores;  // the model's raw reward per item, in input order
  ScorerCallInfo call;
};

using RewardCallback = absl::AnyInvocable<void(absl::StatusOr<RewardScores>) &&>;

class RewardModel {
 public:
  virtual ~RewardModel() = default;
  virtual const std::string& id() const = 0;
  // One raw reward per item; an empty `items` gives an empty reply without a request.
  virtual void Score(std::vector<RewardItem> items, RewardCallback done) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SCORERS_SCORERS_H_
