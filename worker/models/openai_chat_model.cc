// OpenAiChatModel (openai_models.h): the chat completions request body and reply parser.
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "worker/http/json_reader.h"
#include "worker/models/openai_models.h"
#include "worker/models/openai_reply_fields.h"

namespace noveltygrid {
namespace {

using openai_reply::BadReply;
using openai_reply::ReadInteger;
using openai_reply::ReadStringMember;
using openai_reply::ReadTokenCount;

bool IsOpenRouter(const ProviderConfig& provider) {
  return provider.name == "openrouter" || absl::StrContains(provider.base_url, "openrouter.ai");
}

// The number as JSON writes it (nlohmann writes non-finite doubles as null).
void AppendDouble(double value, std::string* out) {
  if (!std::isfinite(value)) {
    out->append("null");
    return;
  }
  out->append(FormatTemperature(value));
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpenAiChatModel>> OpenAiChatModel::Create(const ModelEndpoint& endpoint,
                                                                         ProviderChannel* channel) {
  Json extra = Json::parse(endpoint.extra_body_json.empty() ? "{}" : endpoint.extra_body_json, nullptr,
                           /*allow_exceptions=*/false);
  if (!extra.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", endpoint.name, "': extra body fields are not a JSON object"));
  }
  std::vector<Field> fields;
  for (const auto& [key, value] : extra.items()) fields.emplace_back(key, DumpJson(value));
  return std::unique_ptr<OpenAiChatModel>(new OpenAiChatModel(endpoint, channel, std::move(fields)));
}

std::string OpenAiChatModel::RequestBody(const ChatRequest& request) const {
  size_t size = 160 + endpoint_.remote_model.size();
  for (const ChatMessage& m : request.messages) size += m.content.size() + m.role.size() + 32;
  for (const Field& f : extra_) size += f.first.size() + f.second.size() + 4;
  std::string body = channel_->BodyBuffer(size);
  // An extra field of the same name replaces a standard one in place (as assigning it into a tree did).
  std::vector<bool> used(extra_.size(), false);
  bool first = true;
  const auto field = [&](absl::string_view key, const auto& write_value) {
    body.push_back(first ? '{' : ',');
    first = false;
    AppendJsonString(key, &body);
    body.push_back(':');
    for (size_t i = 0; i < extra_.size(); ++i) {
      if (extra_[i].first == key) {
        used[i] = true;
        body.append(extra_[i].second);
        return;
      }
    }
    write_value();
  };
  field("model", [&] { AppendJsonString(endpoint_.remote_model, &body); });
  field("messages", [&] {
    body.push_back('[');
    for (size_t i = 0; i < request.messages.size(); ++i) {
      const ChatMessage& m = request.messages[i];
      body.append(i == 0 ? "{\"role\":" : ",{\"role\":");
      AppendJsonString(m.role, &body);
      body.append(",\"content\":");
      AppendJsonString(m.content, &body);
      body.push_back('}');
    }
    body.push_back(']');
  });
  if (!endpoint_.omit_temperature) field("temperature", [&] { AppendDouble(request.temperature, &body); });
  const std::string& max_tokens =
      endpoint_.provider.max_tokens_field.empty() ? std::string("max_tokens") : endpoint_.provider.max_tokens_field;
  field(max_tokens, [&] { absl::StrAppend(&body, request.max_tokens); });
  field("seed", [&] { absl::StrAppend(&body, request.seed); });
  if (request.n != 1) field("n", [&] { absl::StrAppend(&body, request.n); });
  if (!endpoint_.reasoning_effort.empty()) {
    // OpenRouter normalises reasoning settings into one object; OpenAI takes a top-level field.
    if (IsOpenRouter(endpoint_.provider)) {
      field("reasoning", [&] { absl::StrAppend(&body, "{\"effort\":\"", endpoint_.reasoning_effort, "\"}"); });
    } else {
      field("reasoning_effort", [&] { AppendJsonString(endpoint_.reasoning_effort, &body); });
    }
  }
  for (size_t i = 0; i < extra_.size(); ++i) {
    if (!used[i]) field(extra_[i].first, [] {});
  }
  body.push_back('}');
  return body;
}

absl::StatusOr<ChatReply> OpenAiChatModel::ParseReply(absl::string_view body, int n, BodyScan* scan) {
  // One choice as read; judged after the whole choice object, in the order a tree walk judged it.
  struct Choice {
    bool object = false;
    std::optional<int64_t> index;
    bool message = false;  // "message" is an object
    std::optional<std::string> content, refusal;
  };
  JsonReader r(body);
  std::optional<std::vector<Choice>> choices;  // nullopt: no "choices" array
  int64_t prompt_tokens = 0, completion_tokens = 0, reasoning_tokens = 0;
  WalkBody(r, scan, [&](absl::string_view key, JsonReader&) {
    if (key == "choices") {  // a repeated key: the last one counts, as in a parsed tree
      choices.reset();
      if (r.Peek() != JsonReader::Type::kArray) {
        r.Skip();
        return;
      }
      choices.emplace();
      choices->reserve(static_cast<size_t>(std::max(n, 1)));
      r.BeginArray();
      while (r.NextElement()) {
        Choice& c = choices->emplace_back();
        if (r.Peek() != JsonReader::Type::kObject) {
          r.Skip();
          continue;
        }
        c.object = true;
        r.BeginObject();
        absl::string_view field;
        while (r.NextMember(&field)) {
          if (field == "index") {
            c.index = ReadInteger(r);
          } else if (field == "message") {
            c.message = r.Peek() == JsonReader::Type::kObject;
            c.content.reset();
            c.refusal.reset();
            if (!c.message) {
              r.Skip();
              continue;
            }
            r.BeginObject();
            absl::string_view part;
            while (r.NextMember(&part)) {
              if (part == "content") {
                ReadStringMember(r, &c.content);
              } else if (part == "refusal") {
                ReadStringMember(r, &c.refusal);
              } else {
                r.Skip();
              }
            }
          } else {
            r.Skip();
          }
        }
      }
    } else if (key == "usage") {
      // Two members of one object: read it once, both counts.
      prompt_tokens = completion_tokens = reasoning_tokens = 0;
      if (r.Peek() != JsonReader::Type::kObject) {
        r.Skip();
        return;
      }
      r.BeginObject();
      absl::string_view field;
      while (r.NextMember(&field)) {
        if (field == "prompt_tokens") {
          prompt_tokens = ReadTokenCount(r);
        } else if (field == "completion_tokens") {
          completion_tokens = ReadTokenCount(r);
        } else if (field == "completion_tokens_details") {  // OpenAI, and OpenRouter's normalised usage
          reasoning_tokens = openai_reply::ReadUsage(r, "reasoning_tokens");
        } else if (field == "reasoning_tokens") {  // some OpenAI-compatible servers put it here
          reasoning_tokens = ReadTokenCount(r);
        } else {
          r.Skip();
        }
      }
    } else {
      r.Skip();
    }
  });
  if (!r.AtEnd()) return BadReply("chat completion", "malformed JSON");
  if (!choices.has_value()) return BadReply("chat completion", "no \"choices\" array");
  if (static_cast<int>(choices->size()) != n) {
    return BadReply("chat completion",
                    absl::StrCat(choices->size(), " choices for n=", n, " (the provider may not support n)"));
  }
  ChatReply reply;
  reply.choices.resize(n);
  std::vector<bool> seen(n, false);
  for (size_t i = 0; i < choices->size(); ++i) {
    Choice& choice = (*choices)[i];
    if (!choice.object) return BadReply("chat completion", "a choice is not an object");
    const int64_t index = choice.index.value_or(static_cast<int64_t>(i));
    if (index < 0 || index >= n || seen[index]) {
      return BadReply("chat completion", absl::StrCat("choice index ", index, " is out of range or repeated"));
    }
    if (!choice.message) return BadReply("chat completion", "a choice has no message");
    if (!choice.content.has_value()) {
      std::string why = "a choice's message has no text content";
      if (choice.refusal.has_value()) why = absl::StrCat("the model refused: ", choice.refusal->substr(0, 200));
      return BadReply("chat completion", why);
    }
    if (choice.content->size() > kMaxAnswerBytes) {
      return BadReply(
          "chat completion",
          absl::StrCat("choice ", index, " holds ", choice.content->size(), " bytes of text, more than the ",
                       kMaxAnswerBytes, " bytes an answer may have; lower max_tokens or check the provider"));
    }
    reply.choices[index] = std::move(*choice.content);
    seen[index] = true;
  }
  reply.prompt_tokens = prompt_tokens;
  reply.completion_tokens = completion_tokens;
  reply.reasoning_tokens = reasoning_tokens;
  return reply;
}

void OpenAiChatModel::Complete(ChatRequest request, ChatCallback done) {
  const int n = request.n;
  PostParsed<ChatReply>(
      *channel_, "/chat/completions", RequestBody(request),
      [n](absl::string_view body, BodyScan* scan) { return ParseReply(body, n, scan); },
      [done = std::move(done)](absl::StatusOr<ChatReply> reply, CallInfo info) mutable {
        if (reply.ok()) {
          reply->retries = info.retries();
          reply->hedges = info.hedges;
        }
        std::move(done)(std::move(reply));
      });
}

}  // namespace noveltygrid
