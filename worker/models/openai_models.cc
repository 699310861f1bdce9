#include "worker/models/openai_models.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "worker/http/json_reader.h"

namespace noveltygrid {

namespace {

absl::Status BadReply(const std::string& endpoint, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(endpoint, " reply is not usable: ", what));
}

// An integer member as a parsed tree's is_number_integer() sees it; nullopt for anything else (the
// value is skipped).
std::optional<int64_t> ReadInteger(JsonReader& r) {
  if (r.Peek() != JsonReader::Type::kNumber) {
    r.Skip();
    return std::nullopt;
  }
  double value;
  bool is_integer = false;
  int64_t integer = 0;
  if (!r.ReadNumber(&value, &is_integer, &integer) || !is_integer) return std::nullopt;
  return integer;
}

// A string member; nullopt (the value skipped) when it is not a string.
bool ReadStringMember(JsonReader& r, std::optional<std::string>* out) {
  if (r.Peek() != JsonReader::Type::kString) {
    out->reset();
    return r.Skip();
  }
  if (!out->has_value()) out->emplace();
  return r.ReadString(&**out);
}

// usage.<key> of a usage object (the reader at its value); 0 when absent or not an integer.
int64_t ReadUsage(JsonReader& r, absl::string_view wanted) {
  int64_t tokens = 0;
  if (r.Peek() != JsonReader::Type::kObject) {
    r.Skip();
    return 0;
  }
  r.BeginObject();
  absl::string_view key;
  while (r.NextMember(&key)) {
    if (key == wanted) {
      tokens = ReadInteger(r).value_or(0);
    } else {
      r.Skip();
    }
  }
  return tokens;
}

// Canonical base64 (padded, no whitespace, zero padding bits) of whole float32 values, decoded straight
// into `out` (little-endian, as every provider sends). False -- `out` then unspecified -- for anything
// else, which goes to absl::Base64Unescape so that its rules decide; on canonical input both agree.
bool DecodeCanonicalBase64Floats(absl::string_view text, Embedding* out) {
  static constexpr std::array<int8_t, 256> kValue = [] {
    std::array<int8_t, 256> table{};
    table.fill(-1);
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
    return table;
  }();
  const size_t n = text.size();
  if (n == 0 || n % 4 != 0) return false;
  const size_t padding = text[n - 1] != '=' ? 0 : text[n - 2] != '=' ? 1 : 2;
  const size_t size = n / 4 * 3 - padding;
  if (size == 0 || size % sizeof(float) != 0) return false;
  out->resize(size / sizeof(float));
  auto* bytes = reinterpret_cast<unsigned char*>(out->data());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const auto value = [&](size_t i) -> int32_t { return kValue[s[i]]; };
  size_t o = 0;
  const size_t whole = padding == 0 ? n : n - 4;  // the last group decoded apart when padded
  for (size_t i = 0; i < whole; i += 4) {
    const int32_t a = value(i), b = value(i + 1), c = value(i + 2), d = value(i + 3);
    if ((a | b | c | d) < 0) return false;
    const uint32_t group = static_cast<uint32_t>(a << 18 | b << 12 | c << 6 | d);
    bytes[o++] = static_cast<unsigned char>(group >> 16);
    bytes[o++] = static_cast<unsigned char>(group >> 8);
    bytes[o++] = static_cast<unsigned char>(group);
  }
  if (padding > 0) {
    const size_t i = n - 4;
    const int32_t a = value(i), b = value(i + 1), c = padding == 2 ? 0 : value(i + 2);
    if ((a | b | c) < 0) return false;
    const uint32_t group = static_cast<uint32_t>(a << 18 | b << 12 | c << 6);
    if ((group & (padding == 2 ? 0xFFFFu : 0xFFu)) != 0) return false;  // padding bits must be zero
    bytes[o++] = static_cast<unsigned char>(group >> 16);
    if (padding == 1) bytes[o++] = static_cast<unsigned char>(group >> 8);
  }
  return o == size;
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

// ---------------------------------------------------------------------------------------------------
// Chat

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
  std::string body;
  body.reserve(size);
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
  field("temperature", [&] { AppendDouble(request.temperature, &body); });
  const std::string& max_tokens =
      endpoint_.provider.max_tokens_field.empty() ? std::string("max_tokens") : endpoint_.provider.max_tokens_field;
  field(max_tokens, [&] { absl::StrAppend(&body, request.max_tokens); });
  field("seed", [&] { absl::StrAppend(&body, request.seed); });
  if (request.n != 1) field("n", [&] { absl::StrAppend(&body, request.n); });
  for (size_t i = 0; i < extra_.size(); ++i) {
    if (!used[i]) field(extra_[i].first, [] {});
  }
  body.push_back('}');
  return body;
}

absl::StatusOr<ChatReply> OpenAiChatModel::ParseReply(absl::string_view body, int n) {
  // One choice as read; judged after the whole choice object, in the order a tree walk judged it.
  struct Choice {
    bool object = false;
    std::optional<int64_t> index;
    bool message = false;  // "message" is an object
    std::optional<std::string> content, refusal;
  };
  JsonReader r(body);
  std::optional<std::vector<Choice>> choices;  // nullopt: no "choices" array
  int64_t prompt_tokens = 0, completion_tokens = 0;
  if (r.Peek() == JsonReader::Type::kObject) {
    r.BeginObject();
    absl::string_view key;
    while (r.NextMember(&key)) {
      if (key == "choices") {  // a repeated key: the last one counts, as in a parsed tree
        choices.reset();
        if (r.Peek() != JsonReader::Type::kArray) {
          r.Skip();
          continue;
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
        prompt_tokens = completion_tokens = 0;
        if (r.Peek() != JsonReader::Type::kObject) {
          r.Skip();
          continue;
        }
        r.BeginObject();
        absl::string_view field;
        while (r.NextMember(&field)) {
          if (field == "prompt_tokens") {
            prompt_tokens = ReadInteger(r).value_or(0);
          } else if (field == "completion_tokens") {
            completion_tokens = ReadInteger(r).value_or(0);
          } else {
            r.Skip();
          }
        }
      } else {
        r.Skip();
      }
    }
  } else {
    r.Skip();
  }
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
    reply.choices[index] = std::move(*choice.content);
    seen[index] = true;
  }
  reply.prompt_tokens = prompt_tokens;
  reply.completion_tokens = completion_tokens;
  return reply;
}

void OpenAiChatModel::Complete(ChatRequest request, ChatCallback done) {
  const int n = request.n;
  channel_->PostText("/chat/completions", RequestBody(request),
                     [n, done = std::move(done)](absl::StatusOr<std::string> body, CallInfo info) mutable {
                       if (!body.ok()) return std::move(done)(body.status());
                       absl::StatusOr<ChatReply> reply = ParseReply(*body, n);
                       if (reply.ok()) reply->retries = info.retries();
                       std::move(done)(std::move(reply));
                     });
}

// ---------------------------------------------------------------------------------------------------
// Embeddings

OpenAiEmbedder::OpenAiEmbedder(ModelEndpoint endpoint, ProviderChannel* channel, HttpClient* timers)
    : endpoint_(std::move(endpoint)),
      channel_(channel),
      timers_(timers),
      self_(std::make_shared<OpenAiEmbedder*>(this)) {}

OpenAiEmbedder::~OpenAiEmbedder() = default;

absl::StatusOr<std::vector<Embedding>> OpenAiEmbedder::ParseReply(absl::string_view body, size_t count,
                                                                  int64_t* prompt_tokens) {
  // Items are judged one by one as they are read, in the order a tree walk judged them; the first
  // problem is kept and reported once the count is known to match (the count is checked first).
  std::vector<Embedding> vectors(count);
  std::vector<bool> seen(count, false);
  std::optional<absl::Status> problem;
  bool has_items = false;  // false: no "data" array
  size_t items = 0;
  int64_t tokens = 0;
  std::string text;  // a base64 string with escapes, decoded
  std::string bytes;
  const auto fail = [&](const std::string& what) {
    if (!problem.has_value()) problem = BadReply("embeddings", what);
  };
  // One item (the reader at its value), as item number `position`.
  const auto read_item = [&](JsonReader& r, size_t position) {
    if (r.Peek() != JsonReader::Type::kObject) {
      r.Skip();
      return fail("a data item is not an object");
    }
    std::optional<int64_t> index;
    Embedding out;
    enum { kNone, kString, kArray, kOther } kind = kNone;
    bool base64_ok = false, numbers_ok = true;
    r.BeginObject();
    absl::string_view key;
    while (r.NextMember(&key)) {
      if (key == "index") {
        index = ReadInteger(r);
      } else if (key == "embedding") {
        out.clear();
        numbers_ok = true;
        switch (r.Peek()) {
          case JsonReader::Type::kString: {
            kind = kString;
            absl::string_view raw;
            bool escaped = false;
            if (!r.ReadRawString(&raw, &escaped)) break;
            if (escaped) {
              if (!JsonReader::Unescape(raw, &text)) break;
              raw = text;
            }
            if (DecodeCanonicalBase64Floats(raw, &out)) {
              base64_ok = true;
              break;
            }
            base64_ok = absl::Base64Unescape(raw, &bytes) && !bytes.empty() && bytes.size() % sizeof(float) == 0;
            if (base64_ok) {
              out.resize(bytes.size() / sizeof(float));
              std::memcpy(out.data(), bytes.data(), bytes.size());  // little-endian float32, as every provider sends
            } else {
              out.clear();
            }
            break;
          }
          case JsonReader::Type::kArray: {
            kind = kArray;
            r.BeginArray();
            while (r.NextElement()) {
              if (r.Peek() != JsonReader::Type::kNumber) {
                numbers_ok = false;
                r.Skip();
                continue;
              }
              double value;
              bool is_integer;
              int64_t integer;
              if (!r.ReadNumber(&value, &is_integer, &integer)) break;
              out.push_back(is_integer ? static_cast<float>(integer) : static_cast<float>(value));
            }
            break;
          }
          default:
            kind = kOther;
            r.Skip();
        }
      } else {
        r.Skip();
      }
    }
    if (problem.has_value() || !r.ok()) return;
    const int64_t i = index.value_or(static_cast<int64_t>(position));
    if (i < 0 || static_cast<size_t>(i) >= count || seen[i]) {
      return fail(absl::StrCat("index ", i, " is out of range or repeated"));
    }
    if (kind == kNone) return fail("a data item has no \"embedding\"");
    if (kind == kString && !base64_ok) return fail("a base64 embedding does not decode to float32 values");
    if (kind == kArray && !numbers_ok) return fail("an embedding holds a non-number");
    if (kind == kOther || (kind == kArray && out.empty())) {
      return fail("an embedding is neither a float array nor base64");
    }
    for (float v : out) {
      if (!std::isfinite(v)) return fail("an embedding holds a non-finite value");
    }
    if (out.size() != vectors[0].size() && !vectors[0].empty()) return fail("vectors of different sizes in one reply");
    vectors[i] = std::move(out);
    seen[i] = true;
  };

  JsonReader r(body);
  if (r.Peek() == JsonReader::Type::kObject) {
    r.BeginObject();
    absl::string_view key;
    while (r.NextMember(&key)) {
      if (key == "data") {  // a repeated key: the last one counts, as in a parsed tree
        has_items = false;
        problem.reset();
        std::fill(seen.begin(), seen.end(), false);
        for (Embedding& v : vectors) v.clear();
        if (r.Peek() != JsonReader::Type::kArray) {
          r.Skip();
          continue;
        }
        has_items = true;
        items = 0;
        r.BeginArray();
        while (r.NextElement()) {
          // Past `count` items only the count matters: skip them.
          if (items < count) {
            read_item(r, items);
          } else {
            r.Skip();
          }
          ++items;
        }
      } else if (key == "usage") {
        tokens = ReadUsage(r, "prompt_tokens");
      } else {
        r.Skip();
      }
    }
  } else {
    r.Skip();
  }
  if (!r.AtEnd()) return BadReply("embeddings", "malformed JSON");
  if (!has_items) return BadReply("embeddings", "no \"data\" array");
  if (items != count) return BadReply("embeddings", absl::StrCat(items, " vectors for ", count, " inputs"));
  if (problem.has_value()) return *problem;
  if (prompt_tokens != nullptr) *prompt_tokens = tokens;
  return vectors;
}

std::string OpenAiEmbedder::RequestBody(const std::vector<std::string>& texts) const {
  size_t size = 96 + endpoint_.remote_model.size();
  for (const std::string& t : texts) size += t.size() + 8;
  std::string body;
  body.reserve(size);
  body.append("{\"model\":");
  AppendJsonString(endpoint_.remote_model, &body);
  body.append(",\"input\":[");
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) body.push_back(',');
    AppendJsonString(texts[i], &body);
  }
  body.push_back(']');
  if (endpoint_.provider.embed_encoding == "base64") body.append(",\"encoding_format\":\"base64\"");
  if (endpoint_.dimensions > 0) absl::StrAppend(&body, ",\"dimensions\":", endpoint_.dimensions);
  body.push_back('}');
  return body;
}

void OpenAiEmbedder::Embed(std::vector<std::string> texts, EmbedCallback done) {
  const size_t batch_limit = static_cast<size_t>(std::max(1, endpoint_.provider.embed_batch));
  Batch ready;
  bool start_timer = false;
  uint64_t generation = 0;
  {
    absl::MutexLock lock(&mu_);
    const bool was_empty = pending_.waiters.empty();
    pending_.waiters.push_back({texts.size(), std::move(done)});
    for (std::string& t : texts) pending_.texts.push_back(std::move(t));
    if (pending_.texts.size() >= batch_limit || endpoint_.provider.embed_wait <= absl::ZeroDuration()) {
      ready = std::move(pending_);
      pending_ = Batch();
      ++generation_;
    } else if (was_empty) {
      start_timer = true;
      generation = generation_;
    }
  }
  if (!ready.waiters.empty()) return Send(std::move(ready));
  if (start_timer) {
    timers_->RunAfter(endpoint_.provider.embed_wait, [weak = std::weak_ptr<OpenAiEmbedder*>(self_), generation] {
      if (std::shared_ptr<OpenAiEmbedder*> self = weak.lock()) (*self)->FlushIfCurrent(generation);
    });
  }
}

void OpenAiEmbedder::FlushIfCurrent(uint64_t generation) {
  Batch ready;
  {
    absl::MutexLock lock(&mu_);
    if (generation != generation_ || pending_.waiters.empty()) return;  // already sent as a full batch
    ready = std::move(pending_);
    pending_ = Batch();
    ++generation_;
  }
  Send(std::move(ready));
}

void OpenAiEmbedder::Send(Batch batch) {
  const size_t count = batch.texts.size();
  std::string body = RequestBody(batch.texts);
  auto waiters = std::make_shared<std::vector<Waiter>>(std::move(batch.waiters));
  channel_->PostText(
      "/embeddings", std::move(body), [count, waiters](absl::StatusOr<std::string> reply, CallInfo info) mutable {
        int64_t tokens = 0;
        absl::StatusOr<std::vector<Embedding>> vectors =
            reply.ok() ? ParseReply(*reply, count, &tokens) : absl::StatusOr<std::vector<Embedding>>(reply.status());
        // Hand each caller its slice; tokens split by share of the texts (remainder to the last).
        size_t offset = 0;
        int64_t given = 0;
        for (size_t w = 0; w < waiters->size(); ++w) {
          Waiter& waiter = (*waiters)[w];
          if (!vectors.ok()) {
            std::move(waiter.done)(vectors.status());
            continue;
          }
          EmbedReply out;
          out.vectors.assign(std::make_move_iterator(vectors->begin() + offset),
                             std::make_move_iterator(vectors->begin() + offset + waiter.texts));
          offset += waiter.texts;
          out.prompt_tokens =
              count == 0 ? 0 : tokens * static_cast<int64_t>(waiter.texts) / static_cast<int64_t>(count);
          given += out.prompt_tokens;
          if (w + 1 == waiters->size()) out.prompt_tokens += tokens - given;
          out.retries = info.retries();
          std::move(waiter.done)(std::move(out));
        }
      });
}

}  // namespace noveltygrid
