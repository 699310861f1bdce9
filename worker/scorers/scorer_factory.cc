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

// The scorer `id` in the role `role`: `make_http(channel)` over its provider's channel when it has an
// endpoint, else its built-in maker (`find` among `ids`).
template <typename Scorer, typename MakeHttp, typename Find, typename Ids>
absl::StatusOr<std::unique_ptr<Scorer>> MakeScorer(const char* role, const std::string& id, const ModelContext& context,
                                                   const ModelEndpoint* endpoint, MakeHttp make_http, Find find,
                                                   Ids ids) {
  if (context.executor == nullptr) return NeedsExecutor(role, id);
  if (endpoint != nullptr) {
    ASSIGN_OR_RETURN(ProviderChannel * channel, ChannelFor(role, id, *endpoint, context));
    return make_http(channel);
  }
  if (context.builtins == nullptr) return NotAvailable(role, id, {});
  if (const auto* make = (context.builtins->*find)(id)) return (*make)(context.executor);
  return NotAvailable(role, id, (context.builtins->*ids)());
}

}  // namespace

absl::StatusOr<std::unique_ptr<PairClassifier>> MakePairClassifier(const std::string& id, const ModelContext& context,
                                                                   const ModelEndpoint* endpoint) {
  auto http = [&](ProviderChannel* channel) -> absl::StatusOr<std::unique_ptr<PairClassifier>> {
    HttpPairClassifierOptions options;
    options.id = id;
    options.path = "/predict";
    return HttpPairClassifier::Create(options, channel, context.executor);
  };
  return MakeScorer<PairClassifier>("pair classifier", id, context, endpoint, http, &BuiltinModels::FindPairClassifier,
                                    &BuiltinModels::PairClassifierIds);
}

absl::StatusOr<std::unique_ptr<RewardModel>> MakeRewardModel(const std::string& id, const ModelContext& context,
                                                             const ModelEndpoint* endpoint) {
  auto http = [&](ProviderChannel* channel) -> absl::StatusOr<std::unique_ptr<RewardModel>> {
    HttpRewardModelOptions options;
    options.id = id;
    options.model = endpoint->remote_model;
    options.path = "/reward";
    return HttpRewardModel::Create(options, channel, context.executor);
  };
  return MakeScorer<RewardModel>("reward model", id, context, endpoint, http, &BuiltinModels::FindRewardModel,
                                 &BuiltinModels::RewardModelIds);
}

}  // namespace noveltygrid
