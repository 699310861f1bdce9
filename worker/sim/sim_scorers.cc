#include "worker/sim/sim_scorers.h"

#include <utility>

#include "worker/sim/sim_scoring.h"

namespace noveltygrid {

namespace {

// One number per item, `score(item)`, delivered as a `Reply` ({values, call}) through `executor`.
template <typename Reply, typename Item, typename Score, typename Callback>
void ScoreEach(Executor* executor, const std::vector<Item>& items, Score score, Callback done) {
  std::vector<double> values;
  values.reserve(items.size());
  for (const Item& item : items) values.push_back(score(item));
  executor->Schedule([reply = Reply{std::move(values), ScorerCallInfo{}}, done = std::move(done)]() mutable {
    std::move(done)(std::move(reply));
  });
}

}  // namespace

void SimPairClassifier::Classify(std::vector<TextPair> pairs, ClassifyCallback done) {
  ScoreEach<ScoredPairs>(
      executor_, pairs, [](const TextPair& pair) { return SimSameIdeaProbability(pair.first, pair.second); },
      std::move(done));
}

void SimRewardModel::Score(std::vector<RewardItem> items, RewardCallback done) {
  ScoreEach<RewardScores>(
      executor_, items, [](const RewardItem& item) { return SimReward(item.prompt, item.response); }, std::move(done));
}

}  // namespace noveltygrid
