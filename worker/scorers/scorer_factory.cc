#include "worker/scorers/scorer_factory.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "worker/scorers/http_pair_classifier.h"
#include "worker/scorers/http_reward_model.h"

namespace noveltygrid {
namespace {

absl::Status NotAvailable(const char* role, const std::string& id, const std::vector<std::string>& builtin) {
  return absl::InvalidArgumentError(absl::StrCat(role, " '", id, "': not a built-in scorer (",
                                                 builtin.empty() ? "none" : absl::StrJoin(builtin, ", "),
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
  if (context.builtins == nullptr) return NotAvailable(kRole, id, {});
  if (const auto* make = context.builtins->FindPairClassifier(id)) return (*make)(context.executor);
  return NotAvailable(kRole, id, context.builtins->PairClassifierIds());
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
  if (context.builtins == nullptr) return NotAvailable(kRole, id, {});
  if (const auto* make = context.builtins->FindRewardModel(id)) return (*make)(context.executor);
  return NotAvailable(kRole, id, context.builtins->RewardModelIds());
}

}  // namespace noveltygrid
