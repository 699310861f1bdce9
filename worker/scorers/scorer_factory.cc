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

// A `Scorer` for `id`: over HTTP, built by `make_http(channel)`, when there is an endpoint; else the
// simulated one when `id` is `sim_id`.
template <typename Scorer, typename Sim, typename MakeHttp>
absl::StatusOr<std::unique_ptr<Scorer>> MakeScorer(const char* role, const char* sim_id, const std::string& id,
                                                   const ModelContext& context, const ModelEndpoint* endpoint,
                                                   MakeHttp make_http) {
  if (context.executor == nullptr) return NeedsExecutor(role, id);
  if (endpoint != nullptr) {
    ASSIGN_OR_RETURN(ProviderChannel * channel, ChannelFor(role, id, *endpoint, context));
    ASSIGN_OR_RETURN(auto scorer, make_http(channel));
    return std::unique_ptr<Scorer>(std::move(scorer));
  }
  if (id == sim_id) return std::unique_ptr<Scorer>(new Sim(context.executor));
  return NotAvailable(role, id, sim_id);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PairClassifier>> MakePairClassifier(const std::string& id, const ModelContext& context,
                                                                   const ModelEndpoint* endpoint) {
  return MakeScorer<PairClassifier, SimPairClassifier>(
      "pair classifier", kSimClassifierId, id, context, endpoint, [&](ProviderChannel* channel) {
        HttpPairClassifierOptions options;
        options.id = id;
        options.path = "/predict";
        return HttpPairClassifier::Create(options, channel, context.executor);
      });
}

absl::StatusOr<std::unique_ptr<RewardModel>> MakeRewardModel(const std::string& id, const ModelContext& context,
                                                             const ModelEndpoint* endpoint) {
  return MakeScorer<RewardModel, SimRewardModel>("reward model", kSimRewardId, id, context, endpoint,
                                                 [&](ProviderChannel* channel) {
                                                   HttpRewardModelOptions options;
                                                   options.id = id;
                                                   options.model = endpoint->remote_model;
                                                   options.path = "/reward";
                                                   return HttpRewardModel::Create(options, channel, context.executor);
                                                 });
}

}  // namespace noveltygrid
