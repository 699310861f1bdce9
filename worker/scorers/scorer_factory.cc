#include "worker/scorers/scorer_factory.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "worker/scorers/http_pair_classifier.h"
#include "worker/scorers/http_reward_model.h"
#include "worker/scorers/sim_scorers.h"

namespace noveltygrid {
namespace {

absl::Status NotAvailable(const char* role, const std::string& id, const char* builtin) {
  return absl::InvalidArgumentError(absl::StrCat(role, " '", id, "': not a built-in scorer (", builtin,
                                                 ") and no provider endpoint was given for it"));
}

absl::Status NeedsExecutor(const char* role, const std::string& id) {
  return absl::InvalidArgumentError(absl::StrCat(role, " '", id, "': no executor to deliver replies on"));
}

absl::StatusOr<ProviderChannel*> ChannelFor(const char* role, const std::string& id, const ModelEndpoint& endpoint,
                                            const ModelContext& context) {
  if (context.providers == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(role, " '", id, "': this process cannot reach HTTP providers"));
  }
  return context.providers->Channel(endpoint.provider);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PairClassifier>> MakePairClassifier(const std::string& id, const ModelContext& context,
                                                                   const ModelEndpoint* endpoint) {
  constexpr char kRole[] = "pair classifier";
  if (context.executor == nullptr) return NeedsExecutor(kRole, id);
  if (endpoint != nullptr) {
    ASSIGN_OR_RETURN(ProviderChannel * channel, ChannelFor(kRole, id, *endpoint, context));
    HttpPairClassifierOptions options;
    options.id = id;
    options.path = "/predict";
    ASSIGN_OR_RETURN(std::unique_ptr<HttpPairClassifier> classifier,
                     HttpPairClassifier::Create(options, channel, context.executor));
    return std::unique_ptr<PairClassifier>(std::move(classifier));
  }
  if (id == kSimClassifierId) return std::unique_ptr<PairClassifier>(new SimPairClassifier(context.executor));
  return NotAvailable(kRole, id, kSimClassifierId);
}

absl::StatusOr<std::unique_ptr<RewardModel>> MakeRewardModel(const std::string& id, const ModelContext& context,
                                                             const ModelEndpoint* endpoint) {
  constexpr char kRole[] = "reward model";
  if (context.executor == nullptr) return NeedsExecutor(kRole, id);
  if (endpoint != nullptr) {
    ASSIGN_OR_RETURN(ProviderChannel * channel, ChannelFor(kRole, id, *endpoint, context));
    HttpRewardModelOptions options;
    options.id = id;
    options.model = endpoint->remote_model;
    options.path = "/reward";
    ASSIGN_OR_RETURN(std::unique_ptr<HttpRewardModel> model,
                     HttpRewardModel::Create(options, channel, context.executor));
    return std::unique_ptr<RewardModel>(std::move(model));
  }
  if (id == kSimRewardId) return std::unique_ptr<RewardModel>(new SimRewardModel(context.executor));
  return NotAvailable(kRole, id, kSimRewardId);
}

}  // namespace noveltygrid
