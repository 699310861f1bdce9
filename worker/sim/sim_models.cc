#include "worker/sim/sim_models.h"

#include <memory>
#include <string>
#include <utility>

#include "worker/sim/sim_chat_model.h"
#include "worker/sim/sim_judge_model.h"
#include "worker/sim/sim_scorers.h"

namespace noveltygrid {
namespace {

template <typename Model>
absl::StatusOr<std::unique_ptr<ChatModel>> AsChatModel(absl::StatusOr<std::unique_ptr<Model>> model) {
  if (!model.ok()) return model.status();
  return std::unique_ptr<ChatModel>(std::move(*model));
}

absl::StatusOr<std::unique_ptr<ChatModel>> MakeSimChatModel(const std::string& id, Executor* executor) {
  if (id == "sim:judge" || id == "sim:judge-flaky") return AsChatModel(SimJudgeModel::Create(id, executor));
  return AsChatModel(SimChatModel::Create(id, executor));
}

}  // namespace

void RegisterSimModels(BuiltinModels& builtins) {
  builtins.AddChatFamily("sim:", "sim:NAME", MakeSimChatModel);
  builtins.AddPairClassifier(kSimClassifierId,
                             [](Executor* executor) -> absl::StatusOr<std::unique_ptr<PairClassifier>> {
                               return std::make_unique<SimPairClassifier>(executor);
                             });
  builtins.AddRewardModel(kSimRewardId, [](Executor* executor) -> absl::StatusOr<std::unique_ptr<RewardModel>> {
    return std::make_unique<SimRewardModel>(executor);
  });
}

BuiltinModels SimBuiltinModels() {
  BuiltinModels builtins;
  RegisterSimModels(builtins);
  return builtins;
}

}  // namespace noveltygrid
