#include "sim_server/chat_completion_json.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/json_util.h"
#include "sim_server/sim_request_json.h"
#include "worker/http/json_reader.h"
#include "worker/sim/sim_common.h"

namespace noveltygrid {
namespace {

constexpr int kDefaultMaxTokens = 4000;

// The fields of a request as given, before defaults and checks.
struct ChatFields {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<double> temperature;
  std::optional<int64_t> max_completion_tokens, max_tokens, seed, n;
};

// Defaults and the checks common to both readings.
absl::StatusOr<ModelChatRequest> Finish(ChatFields fields) {
  ModelChatRequest out;
  out.model = std::move(fields.model);
  ChatRequest& request = out.request;
  request.messages = std::move(fields.messages);
  request.temperature = fields.temperature.value_or(1.0);  // OpenAI's default
  const std::optional<int64_t> max_tokens =
      fields.max_completion_tokens.has_value() ? fields.max_completion_tokens : fields.max_tokens;
  absl::StatusOr<int> max = sim_json::MaxTokens(max_tokens.value_or(kDefaultMaxTokens));
  if (!max.ok()) return max.status();
  request.max_tokens = *max;
  request.seed = static_cast<uint64_t>(fields.seed.value_or(0));
  // ValidateRequest reports the range; keep the value representable until then.
  request.n = static_cast<int>(std::clamp<int64_t>(fields.n.value_or(1), -1, sim::kMaxChoices + 1));
  return out;
}

// --- the one-pass reading of the common shape -------------------------------------------------------

// Each Read* returns false for anything outside the common shape (the tree reading then decides).

bool ReadString(JsonReader& r, std::string* out) { return r.Peek() == JsonReader::Type::kString && r.ReadString(out); }

// An integer into *out; any other well-formed value is passed over, and *other set.
bool ReadIntOrSkip(JsonReader& r, std::optional<int64_t>* out, bool* other) {
  if (r.Peek() != JsonReader::Type::kNumber) {
    *other = true;
    return r.Skip();
  }
  double value = 0;
  bool is_integer = false;
  int64_t integer = 0;
  if (!r.ReadNumber(&value, &is_integer, &integer)) return false;
  if (is_integer) {
    *out = integer;
  } else {
    *other = true;
  }
  return true;
}

bool ReadInt(JsonReader& r, std::optional<int64_t>* out) {
  bool other = false;
  return ReadIntOrSkip(r, out, &other) && !other;
}

bool ReadDouble(JsonReader& r, std::optional<double>* out) {
  double value = 0;
  bool is_integer = false;
  int64_t integer = 0;
  if (r.Peek() != JsonReader::Type::kNumber || !r.ReadNumber(&value, &is_integer, &integer)) return false;
  *out = is_integer ? static_cast<double>(integer) : value;  // as nlohmann converts an integer
  return true;
}

bool ReadMessage(JsonReader& r, ChatMessage* message) {
  if (!r.BeginObject()) return false;
  bool role = false, content = false;
  absl::string_view key;
  while (r.NextMember(&key)) {
    if (key == "role") {
      if (role || !ReadString(r, &message->role)) return false;
      role = true;
    } else if (key == "content") {
      if (content || !ReadString(r, &message->content)) return false;
      content = true;
    } else if (!r.Skip()) {
      return false;
    }
  }
  return r.ok() && role;  // no content reads as "", as the tree reading has it
}

bool ReadMessages(JsonReader& r, std::vector<ChatMessage>* messages) {
  if (r.Peek() != JsonReader::Type::kArray || !r.BeginArray()) return false;
  while (r.NextElement()) {
    if (!ReadMessage(r, &messages->emplace_back())) return false;
  }
  return r.ok() && !messages->empty();
}

std::optional<ChatFields> ReadCommonShape(absl::string_view body) {
  JsonReader r(body);
  if (r.Peek() != JsonReader::Type::kObject || !r.BeginObject()) return std::nullopt;
  ChatFields fields;
  bool model = false, messages = false;
  // A max_tokens that is not an integer matters only without max_completion_tokens, known at the end.
  bool max_tokens_seen = false, max_tokens_other = false;
  absl::string_view key;
  while (r.NextMember(&key)) {
    bool read = true;
    std::optional<int64_t>* integer = key == "max_completion_tokens" ? &fields.max_completion_tokens
                                      : key == "seed"                ? &fields.seed
                                      : key == "n"                   ? &fields.n
                                                                     : nullptr;
    if (integer != nullptr) {
      read = !integer->has_value() && ReadInt(r, integer);
    } else if (key == "max_tokens") {
      read = !max_tokens_seen && ReadIntOrSkip(r, &fields.max_tokens, &max_tokens_other);
      max_tokens_seen = true;
    } else if (key == "model") {
      read = !model && ReadString(r, &fields.model);
      model = true;
    } else if (key == "messages") {
      read = !messages && ReadMessages(r, &fields.messages);
      messages = true;
    } else if (key == "temperature") {
      read = !fields.temperature.has_value() && ReadDouble(r, &fields.temperature);
    } else {
      read = r.Skip();
    }
    if (!read) return std::nullopt;
  }
  if (!r.ok() || !r.AtEnd() || !model || !messages) return std::nullopt;
  if (max_tokens_other && !fields.max_completion_tokens.has_value()) return std::nullopt;
  return fields;
}

// --- the tree reading ------------------------------------------------------------------------------

absl::StatusOr<ChatFields> TreeFields(const Json& json) {
  using sim_json::Find;
  using sim_json::Invalid;
  ChatFields fields;
  absl::StatusOr<std::string> model = sim_json::RequiredString(json, "model");
  if (!model.ok()) return model.status();
  fields.model = *std::move(model);
  const Json* messages = Find(json, "messages");
  if (messages == nullptr || !messages->is_array() || messages->empty()) {
    return Invalid("'messages' must be a non-empty array of {role, content}");
  }
  for (const Json& message : *messages) {
    if (!message.is_object()) return Invalid("every message must be an object {role, content}");
    absl::StatusOr<std::string> role = sim_json::RequiredString(message, "role");
    if (!role.ok()) return role.status();
    absl::StatusOr<std::string> content = sim_json::MessageContent(message);
    if (!content.ok()) return content.status();
    fields.messages.push_back({*std::move(role), *std::move(content)});
  }
  if (const Json* t = Find(json, "temperature"); t != nullptr) {
    if (!t->is_number()) return Invalid("'temperature' must be a number");
    fields.temperature = t->get<double>();
  }
  struct IntField {
    const char* key;
    std::optional<int64_t>* value;
  };
  for (const IntField& field :
       {IntField{"max_completion_tokens", &fields.max_completion_tokens}, IntField{"max_tokens", &fields.max_tokens},
        IntField{"seed", &fields.seed}, IntField{"n", &fields.n}}) {
    // max_tokens is not read at all (not even checked) when max_completion_tokens is given.
    if (field.value == &fields.max_tokens && fields.max_completion_tokens.has_value()) continue;
    absl::StatusOr<std::optional<int64_t>> value = sim_json::OptionalInt(json, field.key);
    if (!value.ok()) return value.status();
    *field.value = *value;
  }
  return fields;
}

}  // namespace

absl::StatusOr<ModelChatRequest> ParseChatCompletionTree(absl::string_view body) {
  absl::StatusOr<Json> json = sim_json::ParseObject(body);
  if (!json.ok()) return json.status();
  absl::StatusOr<ChatFields> fields = TreeFields(*json);
  if (!fields.ok()) return fields.status();
  return Finish(*std::move(fields));
}

absl::StatusOr<ModelChatRequest> ParseChatCompletion(absl::string_view body) {
  std::optional<ChatFields> fields = ReadCommonShape(body);
  if (!fields.has_value()) return ParseChatCompletionTree(body);
  return Finish(*std::move(fields));
}

std::string RenderChatCompletion(uint64_t id, int64_t created, absl::string_view model, const ChatReply& reply) {
  std::string out;
  size_t size = 320 + model.size();
  for (const std::string& choice : reply.choices) size += choice.size() + 112;
  out.reserve(size);
  absl::StrAppend(&out, R"({"id":"chatcmpl-sim-)", HexId(id), R"(","object":"chat.completion","created":)", created,
                  R"(,"model":)");
  AppendJsonString(model, &out);
  out += R"(,"system_fingerprint":"noveltygrid-sim","choices":[)";
  for (size_t i = 0; i < reply.choices.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ",", R"({"index":)", i, R"(,"message":{"role":"assistant","content":)");
    AppendJsonString(reply.choices[i], &out);
    out += R"(},"logprobs":null,"finish_reason":"stop"})";
  }
  absl::StrAppend(&out, R"(],"usage":{"prompt_tokens":)", reply.prompt_tokens, R"(,"completion_tokens":)",
                  reply.completion_tokens, R"(,"total_tokens":)", reply.prompt_tokens + reply.completion_tokens, "}}");
  return out;
}

}  // namespace noveltygrid
