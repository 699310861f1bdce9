// Model factory: turns a model id from the config into a ChatModel or Embedder.
//
//   "sim:judge", "sim:judge-flaky"      SimJudgeModel
//   "sim:NAME"                          SimChatModel (unknown NAME: InvalidArgument listing the known)
//   "lexical", "lexical-D"              LexicalEmbedder
//   anything else                       Unimplemented until the HTTP providers land (issue 5)
//
// Stateless; thread-safe. Models keep `context.executor`, which must outlive them.
#ifndef NOVELTYGRID_WORKER_MODELS_MODEL_FACTORY_H_
#define NOVELTYGRID_WORKER_MODELS_MODEL_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/models/model.h"

namespace noveltygrid {

struct ModelContext {
  Executor* executor = nullptr;  // where model callbacks run; required
};

absl::StatusOr<std::unique_ptr<ChatModel>> MakeChatModel(const std::string& id, const ModelContext& context);
absl::StatusOr<std::unique_ptr<Embedder>> MakeEmbedder(const std::string& id, const ModelContext& context);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_MODEL_FACTORY_H_
