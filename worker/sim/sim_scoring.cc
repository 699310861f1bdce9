#include "worker/sim/sim_scoring.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/embedding.h"
#include "common/hashing.h"
#include "common/text.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_common.h"
#include "worker/sim/sim_judge_model.h"

namespace noveltygrid {
namespace {

constexpr int kClassifierDimensions = 1024;
constexpr int kClassifierMaxWords = 128;
constexpr double kLogisticSlope = 12.0;
constexpr double kLogisticMidpoint = 0.5;

}  // namespace

double SimSameIdeaProbability(std::string_view a, std::string_view b) {
  // EmbedOne never touches the executor.
  const LexicalEmbedder embedder(kClassifierDimensions, /*executor=*/nullptr);
  const Embedding va = embedder.EmbedOne(TruncateWords(a, kClassifierMaxWords));
  const Embedding vb = embedder.EmbedOne(TruncateWords(b, kClassifierMaxWords));
  // Unlike CosineSimilarity, two empty texts are the same idea (the classifier's convention).
  const DotProducts d = ComputeDotProducts(va, vb);
  double cosine;
  if (d.aa == 0 || d.bb == 0) {
    cosine = (d.aa == 0 && d.bb == 0) ? 1.0 : 0.0;
  } else {
    cosine = std::clamp(d.ab / std::sqrt(d.aa * d.bb), -1.0, 1.0);
  }
  return 1.0 / (1.0 + std::exp(-kLogisticSlope * (cosine - kLogisticMidpoint)));
}

double SimReward(std::string_view prompt, std::string_view response) {
  const int coherence = SimJudgeModel::ScoreCoherence(prompt, response);
  const uint64_t hash = StableHasher().Add("sim-reward").Add(prompt).Add(response).Finish();
  const double tie_break = static_cast<double>(hash >> 11) * 0x1.0p-53;
  return std::min(2.0, -10.0 + 0.12 * (coherence + tie_break));
}

}  // namespace noveltygrid
