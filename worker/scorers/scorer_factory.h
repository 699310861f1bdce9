// Scorer factory: turns a scorer id from the config into a PairClassifier or RewardModel, as
// worker/models/model_factory.h does for chat models and embedders.
//
//   with an endpoint                  HttpPairClassifier (POST base_url + "/predict") /
//                                     HttpRewardModel (POST base_url + "/reward", "model" = the
//                                     endpoint's remote model) over the hub's channel of its provider
//   a registered id                   its maker, in process (context.builtins; "sim:classifier" and
//                                     "sim:reward" are registered by cli/: worker/sim/sim_models.h)
//   anything else                     InvalidArgument naming the id
//
// Stateless; thread-safe. Scorers keep `context.executor` (and the hub's channel), which must
// outlive them.
#ifndef NOVELTYGRID_WORKER_SCORERS_SCORER_FACTORY_H_
#define NOVELTYGRID_WORKER_SCORERS_SCORER_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/provider_config.h"
#include "worker/models/model_factory.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<PairClassifier>> MakePairClassifier(const std::string& id, const ModelContext& context,
                                                                   const ModelEndpoint* endpoint = nullptr);
absl::StatusOr<std::unique_ptr<RewardModel>> MakeRewardModel(const std::string& id, const ModelContext& context,
                                                             const ModelEndpoint* endpoint = nullptr);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SCORERS_SCORER_FACTORY_H_
