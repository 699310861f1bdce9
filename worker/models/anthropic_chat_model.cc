// AnthropicChatModel (anthropic_chat_model.h): the Messages API request body and reply parser.
#include "worker/models/anthropic_chat_model.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "worker/http/retry_policy.h"
#include "worker/models/openai_models.h"
#include "worker/models/openai_reply_fields.h"

namespace noveltygrid {
namespace {

using openai_reply::BadReply;

// A usage count as every reader takes it (UsageTokenCount): 0 unless a sane non-negative number.
int64_t UsageCount(const Json& usage, const char* key) {
  auto it = usage.find(key);
  if (it == usage.end() || !it->is_number()) return 0;
  return it->is_number_float() ? UsageTokenCount(it->get<double>(), false, 0)
                               : UsageTokenCount(0, true, it->get<int64_t>());
}

Json TextBlock(std::string text) { return Json{{"type", "text"}, {"text", std::move(text)}}; }

}  // namespace

absl::StatusOr<std::unique_ptr<AnthropicChatModel>> AnthropicChatModel::Create(const ModelEndpoint& endpoint,
                                                                               ProviderChannel* channel,
                                                                               Executor* executor) {
  Json extra = Json::parse(endpoint.extra_body_json.empty() ? "{}" : endpoint.extra_body_json, nullptr,
                           /*allow_exceptions=*/false);
  if (!extra.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", endpoint.name, "': extra body fields are not a JSON object"));
  }
  return std::unique_ptr<AnthropicChatModel>(new AnthropicChatModel(endpoint, channel, executor, std::move(extra)));
}

Json AnthropicChatModel::RequestBody(const ChatRequest& request) const {
  Json body = Json::object();
  body["model"] = endpoint_.remote_model;
  body["max_tokens"] = request.max_tokens;
  std::string system;
  Json messages = Json::array();
  for (const ChatMessage& m : request.messages) {
    if (m.role == "system") {
      absl::StrAppend(&system, system.empty() ? "" : "\n\n", m.content);
      continue;
    }
    const size_t prefix = m.cache_prefix;
    if (!endpoint_.provider.prompt_cache || prefix == 0 || prefix > m.content.size()) {
      messages.push_back(Json{{"role", m.role}, {"content", m.content}});
      continue;
    }
    Json blocks = Json::array();
    Json stable = TextBlock(m.content.substr(0, prefix));
    stable["cache_control"] = Json{{"type", "ephemeral"}};
    blocks.push_back(std::move(stable));
    if (prefix < m.content.size()) blocks.push_back(TextBlock(m.content.substr(prefix)));
    messages.push_back(Json{{"role", m.role}, {"content", std::move(blocks)}});
  }
  if (!system.empty()) body["system"] = system;
  body["messages"] = std::move(messages);
  if (!endpoint_.omit_temperature) body["temperature"] = request.temperature;
  body["metadata"] = Json{{"user_id", absl::StrCat("noveltygrid-seed-", request.seed)}};
  for (const auto& [key, value] : extra_.items()) body[key] = value;
  return body;
}

absl::StatusOr<ChatReply> AnthropicChatModel::ParseReply(const Json& reply) {
  if (!reply.is_object()) return BadReply("messages", "not a JSON object");
  auto content = reply.find("content");
  if (content == reply.end() || !content->is_array()) return BadReply("messages", "no \"content\" array");
  std::string text;
  bool any = false;
  for (const Json& block : *content) {
    if (!block.is_object() || block.value("type", "") != "text") continue;  // thinking, tool use: not the answer
    auto t = block.find("text");
    if (t == block.end() || !t->is_string()) return BadReply("messages", "a text block without text");
    text += t->get<std::string>();
    any = true;
  }
  if (!any) {
    return BadReply("messages",
                    absl::StrCat("no text block (stop_reason ", reply.value("stop_reason", Json()).dump(), ")"));
  }
  if (text.size() > kMaxAnswerBytes) {
    return BadReply("messages", absl::StrCat("the reply holds ", text.size(), " bytes of text, more than the ",
                                             kMaxAnswerBytes, " bytes an answer may have"));
  }
  ChatReply out;
  out.choices.push_back(std::move(text));
  if (auto usage = reply.find("usage"); usage != reply.end() && usage->is_object()) {
    out.cache_write_tokens = UsageCount(*usage, "cache_creation_input_tokens");
    out.cache_read_tokens = UsageCount(*usage, "cache_read_input_tokens");
    out.prompt_tokens = UsageCount(*usage, "input_tokens") + out.cache_write_tokens + out.cache_read_tokens;
    out.completion_tokens = UsageCount(*usage, "output_tokens");
  }
  return out;
}

void AnthropicChatModel::Complete(ChatRequest request, ChatCallback done) {
  if (request.n != 1) {
    return executor_->Schedule([done = std::move(done)]() mutable {
      std::move(done)(absl::InvalidArgumentError("the Messages API has no n: one request per sample"));
    });
  }
  channel_->PostJson("/messages", RequestBody(request),
                     [done = std::move(done)](absl::StatusOr<Json> reply, CallInfo info) mutable {
                       if (!reply.ok()) return std::move(done)(reply.status());
                       absl::StatusOr<ChatReply> parsed = ParseReply(*reply);
                       if (parsed.ok()) {
                         parsed->retries = info.retries();
                         parsed->hedges = info.hedges;
                       }
                       std::move(done)(std::move(parsed));
                     });
}

}  // namespace noveltygrid
