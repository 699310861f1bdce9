#include "worker/scorers/http_reward_model.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<HttpRewardModel>> HttpRewardModel::Create(const HttpRewardModelOptions& options,
                                                                         ProviderChannel* channel, Executor* executor) {
  if (options.id.empty()) return absl::InvalidArgumentError("reward model: the id is empty");
  ASSIGN_OR_RETURN(BatchTarget target, MakeBatchTarget(absl::StrCat("reward model '", options.id, "'"), channel,
                                                       executor, options.path, options.max_batch));
  return std::unique_ptr<HttpRewardModel>(new HttpRewardModel(options, std::move(target)));
}

void HttpRewardModel::Score(std::vector<RewardItem> items, RewardCallback done) {
  PostInputs(
      target_, items,
      [](const RewardItem& item) {
        return Json{{"prompt", item.prompt}, {"response", item.response}};
      },
      [this](Json& body) {
        if (!options_.model.empty()) body["model"] = options_.model;
      },
      ParseRewardReply, DeliverAs<RewardScores>(std::move(done)));
}

absl::StatusOr<std::vector<double>> ParseRewardReply(const Json& reply, size_t expected) {
  const auto scores = reply.is_object() ? reply.find("scores") : reply.end();
  if (!reply.is_object() || scores == reply.end() || !scores->is_array()) {
    return absl::InvalidArgumentError("the reply has no 'scores' array");
  }
  if (scores->size() != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("the reply has ", scores->size(), " scores for ", expected, " items"));
  }
  std::vector<double> rewards;
  rewards.reserve(expected);
  for (size_t i = 0; i < scores->size(); ++i) {
    ASSIGN_OR_RETURN(double reward, ReplyNumber((*scores)[i], absl::StrCat("score ", i)));
    rewards.push_back(reward);
  }
  return rewards;
}

}  // namespace noveltygrid
