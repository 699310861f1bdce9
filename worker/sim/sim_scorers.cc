#include "worker/sim/sim_scorers.h"

#include <utility>

#include "worker/sim/sim_scoring.h"

namespace noveltygrid {

void SimPairClassifier::Classify(std::vector<TextPair> pairs, ClassifyCallback done) {
  ScoredPairs reply;
  reply.same_probability.reserve(pairs.size());
  for (const TextPair& pair : pairs) reply.same_probability.push_back(SimSameIdeaProbability(pair.first, pair.second));
  executor_->Schedule(
      [reply = std::move(reply), done = std::move(done)]() mutable { std::move(done)(std::move(reply)); });
}

void SimRewardModel::Score(std::vector<RewardItem> items, RewardCallback done) {
  RewardScores reply;
  reply.scores.reserve(items.size());
  for (const RewardItem& item : items) reply.scores.push_back(SimReward(item.prompt, item.response));
  executor_->Schedule(
      [reply = std::move(reply), done = std::move(done)]() mutable { std::move(done)(std::move(reply)); });
}

}  // namespace noveltygrid
