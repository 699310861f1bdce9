// The simulated NoveltyBench scorers in process: "sim:classifier" (a PairClassifier) and "sim:reward"
// (a RewardModel), answering with the pure functions serve-sim answers /predict and /v1/reward with
// (worker/sim/sim_scoring.h), so a sweep on simulated models needs neither weights nor a server. Their
// numbers describe surface features of the text, not meaning; never read them as the real models'.
//
// Thread-safe (immutable). A call computes on the caller's thread (microseconds per pair) and delivers
// through the executor, never inline; the executor must outlive every call in flight.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_SCORERS_H_
#define NOVELTYGRID_WORKER_SIM_SIM_SCORERS_H_

#include <string>
#include <vector>

#include "common/executor.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

inline constexpr char kSimClassifierId[] = "sim:classifier";
inline constexpr char kSimRewardId[] = "sim:reward";

// What both simulated scorers hold: their id and the executor replies are delivered on.
template <typename Scorer>
class SimScorer : public Scorer {
 public:
  SimScorer(const char* id, Executor* executor) : id_(id), executor_(executor) {}

  const std::string& id() const override { return id_; }

 protected:
  const std::string id_;
  Executor* const executor_;
};

class SimPairClassifier : public SimScorer<PairClassifier> {
 public:
  explicit SimPairClassifier(Executor* executor) : SimScorer(kSimClassifierId, executor) {}

  // SimSameIdeaProbability per pair; ScorerCallInfo stays zero (no HTTP).
  void Classify(std::vector<TextPair> pairs, ClassifyCallback done) override;
};

class SimRewardModel : public SimScorer<RewardModel> {
 public:
  explicit SimRewardModel(Executor* executor) : SimScorer(kSimRewardId, executor) {}

  // SimReward per item; ScorerCallInfo stays zero (no HTTP).
  void Score(std::vector<RewardItem> items, RewardCallback done) override;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SIM_SIM_SCORERS_H_
