#include "common/noveltybench/scoring.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/noveltybench/partition.h"

namespace noveltygrid::noveltybench {

int QualityFromReward(double reward) {
  // bisect_left: the first edge that is not less than `reward`.
  const auto it = std::find_if(kRewardThresholds.begin(), kRewardThresholds.end(),
                               [reward](double edge) { return !(edge < reward); });
  return static_cast<int>(it - kRewardThresholds.begin()) + 1;
}

double Utility(const std::vector<int>& earned, double patience) {
  double weighted = 0;
  double weights = 0;
  double w = 1;
  for (const int score : earned) {
    weighted += w * score;
    weights += w;
    w *= patience;
  }
  return weights == 0 ? 0 : weighted / weights;
}

absl::StatusOr<RowScore> ScorePartition(const std::vector<int>& partition,
                                        const std::vector<std::optional<int>>& quality, double patience) {
  if (!std::isfinite(patience) || patience <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("patience ", patience, " must be a number > 0"));
  }
  if (absl::Status valid = ValidatePartition(partition); !valid.ok()) return valid;
  if (quality.size() != partition.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("quality has ", quality.size(), " entries but partition has ", partition.size()));
  }
  RowScore score;
  const std::vector<bool> openers = ClassOpeners(partition);
  for (size_t i = 0; i < partition.size(); ++i) {
    if (!openers[i]) {
      score.generation_scores.push_back(0);
      continue;
    }
    if (!quality[i].has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("generation ", i, " opens class ", partition[i], " but has no quality score"));
    }
    const int q = *quality[i];
    if (q < kMinQuality || q > kMaxQuality) {
      return absl::InvalidArgumentError(
          absl::StrCat("quality of generation ", i, " is ", q, "; expected ", kMinQuality, "..", kMaxQuality));
    }
    score.generation_scores.push_back(q);
  }
  score.distinct = DistinctCount(partition);
  score.utility = Utility(score.generation_scores, patience);
  return score;
}

absl::StatusOr<QualityForPartition> QualityForNewPartition(const std::vector<int>& recorded,
                                                           const std::vector<std::optional<int>>& quality,
                                                           const std::vector<int>& fresh) {
  if (recorded.size() != quality.size() || fresh.size() != quality.size()) {
    return absl::InvalidArgumentError(absl::StrCat("recorded partition, quality and new partition have ",
                                                   recorded.size(), ", ", quality.size(), " and ", fresh.size(),
                                                   " entries; expected the same"));
  }
  QualityForPartition out{quality, {}};
  const std::vector<bool> openers = ClassOpeners(fresh);
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (!openers[i] || quality[i].has_value()) continue;
    const auto first = std::find(recorded.begin(), recorded.end(), recorded[i]) - recorded.begin();
    if (!quality[first].has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("generation ", i, " opens a class but neither it nor ",
                                                     "the first member of its recorded class (", first,
                                                     ") has a quality score"));
    }
    out.quality[i] = quality[first];
    out.imputed.push_back(static_cast<int>(i));
  }
  return out;
}

ScoreMeans MeanScores(const std::vector<const RowScore*>& scores) {
  ScoreMeans means;
  means.prompts = static_cast<int>(scores.size());
  if (scores.empty()) return means;
  double distinct = 0;
  double utility = 0;
  for (const RowScore* s : scores) {
    distinct += s->distinct;
    utility += s->utility;
  }
  means.mean_distinct = distinct / means.prompts;
  means.mean_utility = utility / means.prompts;
  return means;
}

}  // namespace noveltygrid::noveltybench
