// AnthropicChatModel: a chat model behind Anthropic's Messages API (provider `api: anthropic`), over a
// ProviderChannel (which sends x-api-key and anthropic-version, applies limits and retries: 429 and 529
// overloaded are retried with retry-after, 400/401/403/404 fail).
//
// Request: POST /messages with model, max_tokens, system (the request's system messages, joined by a
// blank line), messages (user/assistant turns), temperature (unless the endpoint omits it), metadata
// {user_id: "noveltygrid-seed-SEED"} (the API has no seed; serve-sim reads it from there) and the
// endpoint's extra body fields. With the provider's prompt_cache, a user message's stable prefix
// (ChatMessage::cache_prefix: AidanBench's question and instructions) is sent as its own text block
// with cache_control {type: ephemeral}, the growing rest as a second block. Anthropic caches a prefix
// only from 1024 tokens (2048 on Haiku): below that the mark costs nothing and saves nothing.
//
// Reply: the text blocks of `content`, joined; usage input_tokens + cache_creation_input_tokens +
// cache_read_input_tokens is ChatReply::prompt_tokens (what the prompt held), the two cache counts are
// also reported apart; output_tokens is completion_tokens. The API has no `n`: a request for n > 1
// fails (the config refuses NoveltyBench's ask_n for these models).
#ifndef NOVELTYGRID_WORKER_MODELS_ANTHROPIC_CHAT_MODEL_H_
#define NOVELTYGRID_WORKER_MODELS_ANTHROPIC_CHAT_MODEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "common/json_util.h"
#include "common/provider_config.h"
#include "worker/http/provider_channel.h"
#include "worker/models/model.h"

namespace noveltygrid {

class AnthropicChatModel : public ChatModel {
 public:
  // `channel` and `executor` (where refusals are delivered) are not owned and must outlive the model.
  // InvalidArgument when extra_body_json is not a JSON object.
  static absl::StatusOr<std::unique_ptr<AnthropicChatModel>> Create(const ModelEndpoint& endpoint,
                                                                    ProviderChannel* channel, Executor* executor);
  const std::string& id() const override { return endpoint_.name; }
  void Complete(ChatRequest request, ChatCallback done) override;

  // The request body (exposed for tests).
  Json RequestBody(const ChatRequest& request) const;
  // A Messages API reply as a ChatReply of one choice; InvalidArgument when it holds no text.
  static absl::StatusOr<ChatReply> ParseReply(const Json& reply);

 private:
  AnthropicChatModel(ModelEndpoint endpoint, ProviderChannel* channel, Executor* executor, Json extra)
      : endpoint_(std::move(endpoint)), channel_(channel), executor_(executor), extra_(std::move(extra)) {}
  const ModelEndpoint endpoint_;
  ProviderChannel* const channel_;
  Executor* const executor_;
  const Json extra_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_ANTHROPIC_CHAT_MODEL_H_
