#include "sim_server/anthropic_api.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/json_util.h"
#include "sim_server/sim_request_json.h"
#include "worker/sim/sim_common.h"

namespace noveltygrid {
namespace {

using sim_json::Find;
using sim_json::Invalid;
using sim_json::OptionalInt;
using sim_json::RequiredString;

constexpr int kMaxBreakpoints = 4;  // Anthropic's limit on cache_control blocks per request

// A request to /v1/messages as the chat models see it, plus its cache breakpoints.
struct MessagesRequest {
  std::string model;
  ChatRequest chat;
  // Shortest first: the prefix keys (model and blocks up to the breakpoint) and their tokens.
  std::vector<PromptCache::Prefix> prefixes;
  std::vector<int64_t> prefix_tokens;
};

// Hashes the blocks of a prompt in order and records a prefix at every cache_control breakpoint.
class PrefixRecorder {
 public:
  PrefixRecorder(const std::string& model, MessagesRequest* out) : out_(out) { hasher_.Add(model); }

  // `content`: a string or an array of text blocks already checked by TextContent; `part` numbers
  // the system (0) and the messages (1, 2, ...) so that block boundaries across them differ.
  absl::Status Add(uint64_t part, std::string_view role, const Json& content) {
    hasher_.Add(part).Add(role);
    if (content.is_string()) {
      Block(content.get<std::string>());
      return absl::OkStatus();
    }
    for (const Json& block : content) {
      Block(block["text"].get<std::string>());
      const Json* cache_control = Find(block, "cache_control");
      if (cache_control == nullptr) continue;
      absl::StatusOr<absl::Duration> ttl = Ttl(*cache_control);
      if (!ttl.ok()) return ttl.status();
      if (out_->prefixes.size() == kMaxBreakpoints) {
        return Invalid(absl::StrCat("A maximum of ", kMaxBreakpoints, " blocks with cache_control may be provided"));
      }
      out_->prefixes.push_back({hasher_.Finish(), *ttl});
      out_->prefix_tokens.push_back(tokens_);
    }
    return absl::OkStatus();
  }

 private:
  void Block(const std::string& text) {
    hasher_.Add(text);
    tokens_ += sim::CountWords(text);
  }

  static absl::StatusOr<absl::Duration> Ttl(const Json& cache_control) {
    const Json* type = cache_control.is_object() ? Find(cache_control, "type") : nullptr;
    if (type == nullptr || *type != "ephemeral") {
      return Invalid("'cache_control' must be {\"type\": \"ephemeral\"} (optionally with \"ttl\": \"5m\" or \"1h\")");
    }
    const Json* ttl = Find(cache_control, "ttl");
    if (ttl == nullptr || *ttl == "5m") return absl::Minutes(5);
    if (*ttl == "1h") return absl::Hours(1);
    return Invalid("cache_control 'ttl' must be \"5m\" or \"1h\"");
  }

  MessagesRequest* const out_;
  StableHasher hasher_;
  int64_t tokens_ = 0;
};

constexpr char kSeedUserPrefix[] = "noveltygrid-seed-";
constexpr char kBlockSeparator[] = "";  // a message's text blocks are one text to the model

absl::StatusOr<MessagesRequest> ParseMessagesRequest(const Json& json) {
  MessagesRequest request;
  absl::StatusOr<std::string> model = RequiredString(json, "model");
  if (!model.ok()) return model.status();
  request.model = *std::move(model);
  absl::StatusOr<std::optional<int64_t>> max_tokens = OptionalInt(json, "max_tokens");
  absl::StatusOr<std::optional<int64_t>> seed = OptionalInt(json, "seed");
  for (const auto* field : {&max_tokens, &seed}) {
    if (!field->ok()) return field->status();
  }
  if (!max_tokens->has_value()) return Invalid("max_tokens: Field required");
  absl::StatusOr<int> max = sim_json::MaxTokens(**max_tokens);
  if (!max.ok()) return max.status();
  ChatRequest& chat = request.chat;
  chat.max_tokens = *max;
  chat.seed = static_cast<uint64_t>(seed->value_or(0));  // the OpenAI route's default too
  // NoveltyGrid's Anthropic client carries its seed as metadata.user_id "noveltygrid-seed-N" (the real API
  // refuses unknown body fields; an opaque user id is allowed).
  if (const Json* metadata = Find(json, "metadata"); metadata != nullptr && metadata->is_object()) {
    auto user = metadata->find("user_id");
    uint64_t from_user = 0;
    if (!seed->has_value() && user != metadata->end() && user->is_string() &&
        absl::StartsWith(user->get<std::string>(), kSeedUserPrefix) &&
        absl::SimpleAtoi(user->get<std::string>().substr(sizeof(kSeedUserPrefix) - 1), &from_user)) {
      chat.seed = from_user;
    }
  }
  chat.n = 1;
  chat.temperature = 1.0;  // Anthropic's default, and OpenAI's
  if (const Json* t = Find(json, "temperature"); t != nullptr) {
    if (!t->is_number() || t->get<double>() < 0.0 || t->get<double>() > 1.0) {
      return Invalid("temperature: must be a number between 0 and 1");
    }
    chat.temperature = t->get<double>();
  }
  if (const Json* stream = Find(json, "stream"); stream != nullptr && *stream == true) {
    return Invalid("stream: serve-sim does not stream; send \"stream\": false or leave it out");
  }
  if (const Json* stops = Find(json, "stop_sequences"); stops != nullptr) {
    if (!stops->is_array() || !std::all_of(stops->begin(), stops->end(), [](const Json& s) { return s.is_string(); })) {
      return Invalid("stop_sequences: must be an array of strings");
    }
  }
  if (const Json* metadata = Find(json, "metadata"); metadata != nullptr && !metadata->is_object()) {
    return Invalid("metadata: must be an object");
  }

  PrefixRecorder prefixes(request.model, &request);
  if (const Json* system = Find(json, "system"); system != nullptr) {
    absl::StatusOr<std::string> text = sim_json::TextContent(system, "'system'", kBlockSeparator);
    if (!text.ok()) return text.status();
    if (absl::Status added = prefixes.Add(0, "system", *system); !added.ok()) return added;
    chat.messages.push_back({"system", *std::move(text)});
  }
  const Json* messages = Find(json, "messages");
  if (messages == nullptr || !messages->is_array() || messages->empty()) {
    return Invalid("messages: must be a non-empty array of {role, content}");
  }
  for (const Json& message : *messages) {
    if (!message.is_object()) return Invalid("messages: every message must be an object {role, content}");
    absl::StatusOr<std::string> role = RequiredString(message, "role");
    if (!role.ok()) return role.status();
    if (*role != "user" && *role != "assistant") {
      return Invalid(
          absl::StrCat("messages: role '", *role, "' is not 'user' or 'assistant' (use 'system' for a system prompt)"));
    }
    const Json* content = Find(message, "content");
    if (content == nullptr) return Invalid("messages: every message needs 'content'");
    absl::StatusOr<std::string> text = sim_json::MessageContent(message, kBlockSeparator);
    if (!text.ok()) return text.status();
    absl::Status added = prefixes.Add(chat.messages.size() + 1, *role, *content);
    if (!added.ok()) return added;
    chat.messages.push_back({*std::move(role), *std::move(text)});
  }
  return request;
}

absl::StatusOr<MessagesRequest> ParseBody(absl::string_view body) {
  absl::StatusOr<Json> json = sim_json::ParseObject(body);
  if (!json.ok()) return json.status();
  return ParseMessagesRequest(*json);
}

const char* ErrorType(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

}  // namespace

SimHttpReply AnthropicErrorReply(int status, absl::string_view message) {
  return SimHttpReply{
      status, DumpJson(Json{{"type", "error"}, {"error", {{"type", ErrorType(status)}, {"message", message}}}})};
}

AnthropicApi::AnthropicApi(SimApi* api, const Clock* clock, size_t cache_entries)
    : api_(api), cache_(clock, cache_entries) {}

int64_t AnthropicApi::MessagesTokens(absl::string_view body) const {
  absl::StatusOr<MessagesRequest> request = ParseBody(body);
  return request.ok() ? SimApi::AdmissionTokens(request->chat) : 0;
}

SimHttpReply AnthropicApi::Messages(absl::string_view body) {
  absl::StatusOr<MessagesRequest> request = ParseBody(body);
  if (!request.ok()) return AnthropicErrorReply(400, request.status().message());
  absl::StatusOr<SimChatAnswer> answer = api_->Chat(request->model, request->chat);
  if (!answer.ok()) {
    return AnthropicErrorReply(absl::IsNotFound(answer.status()) ? 404 : 400, answer.status().message());
  }
  const ChatReply& reply = answer->reply;

  int64_t cache_read = 0;
  int64_t cache_creation = 0;
  if (!request->prefixes.empty()) {
    const int hit = cache_.Use(request->prefixes);
    cache_read = hit >= 0 ? request->prefix_tokens[hit] : 0;
    cache_creation = request->prefix_tokens.back() - cache_read;
  }
  const int64_t input = std::max<int64_t>(reply.prompt_tokens - cache_read - cache_creation, 0);
  const bool truncated = reply.completion_tokens >= request->chat.max_tokens;
  Json content = Json::array();
  for (const std::string& text : reply.choices) content.push_back({{"type", "text"}, {"text", text}});
  return SimHttpReply{200, DumpJson(Json{{"id", absl::StrCat("msg_sim", HexId(answer->id))},
                                         {"type", "message"},
                                         {"role", "assistant"},
                                         {"model", answer->model},
                                         {"content", std::move(content)},
                                         {"stop_reason", truncated ? "max_tokens" : "end_turn"},
                                         {"stop_sequence", nullptr},
                                         {"usage",
                                          {{"input_tokens", input},
                                           {"cache_creation_input_tokens", cache_creation},
                                           {"cache_read_input_tokens", cache_read},
                                           {"output_tokens", reply.completion_tokens}}}})};
}

}  // namespace noveltygrid
