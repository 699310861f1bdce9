// The simulated model family as built-in models: RegisterSimModels adds it to a BuiltinModels
// (worker/models/builtin_models.h), so the factories build
//
//   "sim:judge", "sim:judge-flaky"      SimJudgeModel
//   "sim:NAME"                          SimChatModel (unknown NAME: InvalidArgument listing the known)
//   "sim:classifier" / "sim:reward"     SimPairClassifier / SimRewardModel
//
// cli/ registers it for every command that builds models; production libraries never link this one.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_MODELS_H_
#define NOVELTYGRID_WORKER_SIM_SIM_MODELS_H_

#include "worker/models/builtin_models.h"

namespace noveltygrid {

void RegisterSimModels(BuiltinModels& builtins);

// A registry holding the simulated family alone: what cli/ and the tests hand the factories.
BuiltinModels SimBuiltinModels();

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SIM_SIM_MODELS_H_
