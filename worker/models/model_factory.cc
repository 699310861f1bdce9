#include "worker/models/model_factory.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "worker/models/anthropic_chat_model.h"
#include "worker/models/lexical_embedder.h"
#include "worker/models/openai_models.h"

namespace noveltygrid {

namespace {

absl::Status NotAvailable(const std::string& id, const ModelContext& context) {
  std::vector<std::string> builtin;
  if (context.builtins != nullptr) builtin = context.builtins->ChatFamilies();
  builtin.push_back("lexical");
  return absl::InvalidArgumentError(absl::StrCat("model '", id, "': not a built-in model (",
                                                 absl::StrJoin(builtin, ", "),
                                                 ") and no provider endpoint was given for it"));
}

absl::StatusOr<ProviderChannel*> ChannelFor(const ModelEndpoint& endpoint, const ModelContext& context) {
  if (context.providers == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("model '", endpoint.name, "': this process cannot reach HTTP providers"));
  }
  return context.providers->Channel(endpoint.provider);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChatModel>> MakeChatModel(const std::string& id, const ModelContext& context,
                                                         const ModelEndpoint* endpoint) {
  if (endpoint != nullptr) {
    absl::StatusOr<ProviderChannel*> channel = ChannelFor(*endpoint, context);
    if (!channel.ok()) return channel.status();
    if (endpoint->provider.api == kApiAnthropic) {
      absl::StatusOr<std::unique_ptr<AnthropicChatModel>> model =
          AnthropicChatModel::Create(*endpoint, *channel, context.executor);
      if (!model.ok()) return model.status();
      return std::unique_ptr<ChatModel>(std::move(*model));
    }
    absl::StatusOr<std::unique_ptr<OpenAiChatModel>> model = OpenAiChatModel::Create(*endpoint, *channel);
    if (!model.ok()) return model.status();
    return std::unique_ptr<ChatModel>(std::move(*model));
  }
  if (context.builtins != nullptr) {
    if (const BuiltinModels::ChatMaker* make = context.builtins->FindChat(id)) return (*make)(id, context.executor);
  }
  return NotAvailable(id, context);
}

absl::StatusOr<std::unique_ptr<Embedder>> MakeEmbedder(const std::string& id, const ModelContext& context,
                                                       const ModelEndpoint* endpoint) {
  if (endpoint != nullptr) {
    if (endpoint->provider.api == kApiAnthropic) {
      return absl::InvalidArgumentError(absl::StrCat("model '", id, "': provider '", endpoint->provider.name,
                                                     "' speaks the Messages API, which has "
                                                     "no embeddings"));
    }
    absl::StatusOr<ProviderChannel*> channel = ChannelFor(*endpoint, context);
    if (!channel.ok()) return channel.status();
    absl::StatusOr<HttpClient*> http = context.providers->Http();
    if (!http.ok()) return http.status();
    return std::unique_ptr<Embedder>(std::make_unique<OpenAiEmbedder>(*endpoint, *channel, *http, context.executor));
  }
  if (id == "lexical" || absl::StartsWith(id, "lexical-")) {
    absl::StatusOr<std::unique_ptr<LexicalEmbedder>> embedder = LexicalEmbedder::Create(id, context.executor);
    if (!embedder.ok()) return embedder.status();
    return std::unique_ptr<Embedder>(std::move(*embedder));
  }
  return NotAvailable(id, context);
}

}  // namespace noveltygrid
