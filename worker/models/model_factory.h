// Model factory: turns a model id from the config into a ChatModel or Embedder.
//
//   with an endpoint                    OpenAiChatModel / OpenAiEmbedder over the hub's provider channel
//   "lexical", "lexical-D"              LexicalEmbedder
//   a registered family's prefix        that family's maker (context.builtins; the simulated family,
//                                       "sim:NAME", is registered by cli/: worker/sim/sim_models.h)
//   anything else                       InvalidArgument: no endpoint says where to reach it
//
// Stateless; thread-safe. Models keep `context.executor`, which must outlive them.
#ifndef NOVELTYGRID_WORKER_MODELS_MODEL_FACTORY_H_
#define NOVELTYGRID_WORKER_MODELS_MODEL_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "common/provider_config.h"
#include "worker/models/builtin_models.h"
#include "worker/models/model.h"
#include "worker/models/provider_hub.h"

namespace noveltygrid {

struct ModelContext {
  Executor* executor = nullptr;      // where model callbacks run; required
  ProviderHub* providers = nullptr;  // required for models with an endpoint
  // The in-process families (not owned; must outlive the factory calls); none when null.
  const BuiltinModels* builtins = nullptr;
};

// `endpoint` (optional) says how to reach the model over HTTP; without one the id must name a
// built-in model.
absl::StatusOr<std::unique_ptr<ChatModel>> MakeChatModel(const std::string& id, const ModelContext& context,
                                                         const ModelEndpoint* endpoint = nullptr);
absl::StatusOr<std::unique_ptr<Embedder>> MakeEmbedder(const std::string& id, const ModelContext& context,
                                                       const ModelEndpoint* endpoint = nullptr);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_MODEL_FACTORY_H_
