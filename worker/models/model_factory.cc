#include "worker/models/model_factory.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "worker/models/lexical_embedder.h"
#include "worker/models/sim_chat_model.h"
#include "worker/models/sim_judge_model.h"

namespace noveltygrid {

namespace {

absl::Status NotAvailable(const std::string& id) {
  return absl::UnimplementedError(
      absl::StrCat("model '", id,
                   "': HTTP providers are not available yet (issue 5); use a sim:NAME model or the "
                   "lexical embedder"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChatModel>> MakeChatModel(const std::string& id, const ModelContext& context) {
  if (id == "sim:judge" || id == "sim:judge-flaky") {
    absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create(id, context.executor);
    if (!judge.ok()) return judge.status();
    return std::unique_ptr<ChatModel>(std::move(*judge));
  }
  if (absl::StartsWith(id, "sim:")) {
    absl::StatusOr<std::unique_ptr<SimChatModel>> model = SimChatModel::Create(id, context.executor);
    if (!model.ok()) return model.status();
    return std::unique_ptr<ChatModel>(std::move(*model));
  }
  return NotAvailable(id);
}

absl::StatusOr<std::unique_ptr<Embedder>> MakeEmbedder(const std::string& id, const ModelContext& context) {
  if (id == "lexical" || absl::StartsWith(id, "lexical-")) {
    absl::StatusOr<std::unique_ptr<LexicalEmbedder>> embedder = LexicalEmbedder::Create(id, context.executor);
    if (!embedder.ok()) return embedder.status();
    return std::unique_ptr<Embedder>(std::move(*embedder));
  }
  return NotAvailable(id);
}

}  // namespace noveltygrid
