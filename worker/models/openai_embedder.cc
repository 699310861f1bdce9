// OpenAiEmbedder (openai_models.h): the embeddings request body, the reply parser (float arrays and
// base64 float32) and the coalescing of concurrent Embed calls into batches.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "worker/http/json_reader.h"
#include "worker/models/base64_floats.h"
#include "worker/models/openai_models.h"
#include "worker/models/openai_reply_fields.h"

namespace noveltygrid {
namespace {

using openai_reply::BadReply;
using openai_reply::ReadInteger;
using openai_reply::ReadUsage;

}  // namespace

OpenAiEmbedder::OpenAiEmbedder(ModelEndpoint endpoint, ProviderChannel* channel, HttpClient* timers, Executor* executor,
                               const Clock* clock)
    : endpoint_(std::move(endpoint)),
      channel_(channel),
      timers_(timers),
      executor_(executor),
      clock_(clock),
      self_(std::make_shared<OpenAiEmbedder*>(this)),
      fallback_(std::make_shared<Fallback>(endpoint_, channel)) {}

OpenAiEmbedder::~OpenAiEmbedder() = default;

absl::StatusOr<std::vector<Embedding>> OpenAiEmbedder::ParseReply(absl::string_view body, size_t count,
                                                                  int64_t* prompt_tokens, size_t* item_count,
                                                                  BodyScan* scan) {
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
  bool bad_escape = false;  // a string's escapes malformed: the text is not JSON (Skip would refuse it)
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
              if (!JsonReader::Unescape(raw, &text)) {
                bad_escape = true;
                break;
              }
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
  WalkBody(r, scan, [&](absl::string_view key, JsonReader&) {
    if (key == "data") {  // a repeated key: the last one counts, as in a parsed tree
      has_items = false;
      problem.reset();
      std::fill(seen.begin(), seen.end(), false);
      for (Embedding& v : vectors) v.clear();
      if (r.Peek() != JsonReader::Type::kArray) {
        r.Skip();
        return;
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
  });
  if (scan != nullptr && bad_escape) scan->valid = false;
  if (!r.AtEnd() || bad_escape) return BadReply("embeddings", "malformed JSON");
  if (!has_items) return BadReply("embeddings", "no \"data\" array");
  if (item_count != nullptr) *item_count = items;
  if (prompt_tokens != nullptr) *prompt_tokens = tokens;  // also for a miscounted reply: it was billed
  if (items != count) return BadReply("embeddings", absl::StrCat(items, " vectors for ", count, " inputs"));
  if (problem.has_value()) return *problem;
  return vectors;
}

std::string OpenAiEmbedder::RequestBody(const std::vector<std::string>& texts) const {
  return BodyFor(*channel_, endpoint_, texts);
}

std::string OpenAiEmbedder::BodyFor(ProviderChannel& channel, const ModelEndpoint& endpoint,
                                    const std::vector<std::string>& texts) {
  size_t size = 96 + endpoint.remote_model.size();
  for (const std::string& t : texts) size += t.size() + 8;
  std::string body = channel.BodyBuffer(size);
  body.append("{\"model\":");
  AppendJsonString(endpoint.remote_model, &body);
  body.append(",\"input\":[");
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) body.push_back(',');
    AppendJsonString(texts[i], &body);
  }
  body.push_back(']');
  if (endpoint.provider.embed_encoding == "base64") body.append(",\"encoding_format\":\"base64\"");
  if (endpoint.dimensions > 0) absl::StrAppend(&body, ",\"dimensions\":", endpoint.dimensions);
  body.push_back('}');
  return body;
}

absl::Duration OpenAiEmbedder::QuietGap() const {
  // Four mean gaps without a text: the burst is over (a floor keeps scheduling jitter from splitting it).
  return std::clamp(mean_gap_ * 4, kMinQuietGap, std::max(kMinQuietGap, endpoint_.provider.embed_wait));
}

void OpenAiEmbedder::Embed(std::vector<std::string> texts, EmbedCallback done) {
  const size_t batch_limit = static_cast<size_t>(std::max(1, endpoint_.provider.embed_batch));
  Batch ready;
  absl::Duration timer = absl::ZeroDuration();
  uint64_t generation = 0;
  bool tail_flush = false;
  {
    absl::MutexLock lock(&mu_);
    const absl::Duration wait = endpoint_.provider.embed_wait;
    const absl::Time now = clock_->Now();
    if (last_text_ != absl::InfinitePast()) {
      // A quarter weight to the newest gap; gaps over a second count as a second (an idle spell).
      mean_gap_ = mean_gap_ * 0.75 + std::min(now - last_text_, absl::Seconds(1)) * 0.25;
    }
    last_text_ = now;
    const bool was_empty = pending_.waiters.empty();
    pending_.waiters.push_back({texts.size(), std::move(done)});
    for (std::string& t : texts) pending_.texts.push_back(std::move(t));
    if (pending_.texts.size() >= batch_limit || (was_empty && wait > absl::ZeroDuration() && mean_gap_ > wait)) {
      ready = TakePendingLocked();
    } else if (wait <= absl::ZeroDuration()) {
      if (was_empty) {
        tail_flush = true;
        generation = generation_;
      }
    } else if (was_empty) {
      batch_started_ = now;
      timer = std::min(QuietGap(), wait);
      armed_ = timer;
      generation = generation_;
    }
  }
  if (!ready.waiters.empty()) return Send(std::move(ready));
  if (tail_flush) {
    // No wait: the batch goes once the tasks already queued (other replies, which may add texts) have run.
    executor_->Schedule([weak = std::weak_ptr<OpenAiEmbedder*>(self_), generation] {
      if (std::shared_ptr<OpenAiEmbedder*> self = weak.lock()) (*self)->FlushNow(generation);
    });
    return;
  }
  if (timer > absl::ZeroDuration()) StartTimer(timer, generation);
}

void OpenAiEmbedder::StartTimer(absl::Duration delay, uint64_t generation) {
  timers_->RunAfter(delay, [weak = std::weak_ptr<OpenAiEmbedder*>(self_), generation] {
    if (std::shared_ptr<OpenAiEmbedder*> self = weak.lock()) (*self)->FlushIfDue(generation);
  });
}

void OpenAiEmbedder::FlushIfDue(uint64_t generation) {
  Batch ready;
  absl::Duration again = absl::ZeroDuration();
  {
    absl::MutexLock lock(&mu_);
    if (generation != generation_ || pending_.waiters.empty()) return;  // already sent as a full batch
    // Due when the texts have stopped coming, or when the first has waited embed_wait -- by the clock,
    // and by the timers armed for the batch so far (should the clock and the timers disagree).
    const absl::Duration wait = endpoint_.provider.embed_wait;
    const absl::Time due = std::min(last_text_ + QuietGap(), batch_started_ + wait);
    const absl::Time now = clock_->Now();
    if (now < due && armed_ < wait) {
      again = std::min(due - now, wait - armed_);
      armed_ += again;
    } else {
      ready = TakePendingLocked();
    }
  }
  if (again > absl::ZeroDuration()) return StartTimer(again, generation);
  Send(std::move(ready));
}

void OpenAiEmbedder::FlushNow(uint64_t generation) {
  Batch ready;
  {
    absl::MutexLock lock(&mu_);
    if (generation != generation_ || pending_.waiters.empty()) return;
    ready = TakePendingLocked();
  }
  Send(std::move(ready));
}

OpenAiEmbedder::Batch OpenAiEmbedder::TakePendingLocked() {
  Batch taken = std::move(pending_);
  pending_ = Batch();
  ++generation_;  // timers and tail flushes armed for it find nothing to do
  return taken;
}

void OpenAiEmbedder::Send(Batch batch) {
  auto waiters = std::make_shared<std::vector<Waiter>>(std::move(batch.waiters));
  const size_t count = batch.texts.size();
  if (count > 1 && fallback_->single_input.load(std::memory_order_relaxed)) {
    return SendSingly(fallback_, std::move(batch.texts), waiters, 0, 0, 0);
  }
  // The texts are kept for a fallback only when the batch could be miscounted.
  std::string body = RequestBody(batch.texts);
  auto texts = count > 1 ? std::make_shared<std::vector<std::string>>(std::move(batch.texts)) : nullptr;
  PostParsed<Parsed>(
      *channel_, "/embeddings", std::move(body),
      [count](absl::string_view text, BodyScan* scan) { return Parsed::Of(text, count, scan); },
      [fallback = fallback_, count, waiters, texts](absl::StatusOr<Parsed> reply, CallInfo info) mutable {
        Parsed parsed = reply.ok() ? *std::move(reply) : Parsed{reply.status(), 0, count};
        parsed.tokens *= 1 + info.hedges;  // each duplicate costed as the reply (the same request)
        if (!parsed.vectors.ok() && parsed.items != count && texts != nullptr) {
          if (!fallback->single_input.exchange(true)) {
            std::fprintf(stderr,
                         "noveltygrid: embedder %s: the server answered %zu inputs with %zu "
                         "vectors; sending one input per request from now on\n",
                         fallback->endpoint.name.c_str(), count, parsed.items);
          }
          // The miscounted request's usage, retries and hedges count with the single ones.
          return SendSingly(fallback, std::move(*texts), waiters, parsed.tokens, info.retries(), info.hedges);
        }
        Deliver(*waiters, std::move(parsed.vectors), parsed.tokens, info.retries(), info.hedges);
      });
}

void OpenAiEmbedder::SendSingly(const std::shared_ptr<Fallback>& fallback, std::vector<std::string> texts,
                                std::shared_ptr<std::vector<Waiter>> waiters, int64_t tokens, int retries, int hedges) {
  struct Gather {
    absl::Mutex mu;
    std::vector<Embedding> vectors ABSL_GUARDED_BY(mu);
    absl::Status error ABSL_GUARDED_BY(mu);
    int64_t tokens ABSL_GUARDED_BY(mu) = 0;
    int retries ABSL_GUARDED_BY(mu) = 0;
    int hedges ABSL_GUARDED_BY(mu) = 0;
    size_t left ABSL_GUARDED_BY(mu) = 0;
  };
  auto gather = std::make_shared<Gather>();
  {
    absl::MutexLock lock(&gather->mu);
    gather->vectors.resize(texts.size());
    gather->left = texts.size();
    gather->tokens = tokens;
    gather->retries = retries;
    gather->hedges = hedges;
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    PostParsed<Parsed>(
        *fallback->channel, "/embeddings", BodyFor(*fallback->channel, fallback->endpoint, {texts[i]}),
        [](absl::string_view text, BodyScan* scan) { return Parsed::Of(text, 1, scan); },
        [gather, waiters, i](absl::StatusOr<Parsed> reply, CallInfo info) {
          const int64_t used = reply.ok() ? reply->tokens : 0;
          absl::StatusOr<std::vector<Embedding>> one =
              reply.ok() ? std::move(reply->vectors) : absl::StatusOr<std::vector<Embedding>>(reply.status());
          absl::ReleasableMutexLock lock(&gather->mu);
          if (one.ok()) {
            gather->vectors[i] = std::move(one->front());
          } else if (gather->error.ok()) {
            gather->error = one.status();
          }
          gather->tokens += used * (1 + info.hedges);
          gather->retries += info.retries();
          gather->hedges += info.hedges;
          if (--gather->left > 0) return;
          absl::StatusOr<std::vector<Embedding>> all = std::move(gather->vectors);
          if (!gather->error.ok()) all = gather->error;
          const int64_t total = gather->tokens;
          const int total_retries = gather->retries;
          const int total_hedges = gather->hedges;
          lock.Release();
          Deliver(*waiters, std::move(all), total, total_retries, total_hedges);
        });
  }
}

void OpenAiEmbedder::Deliver(std::vector<Waiter>& waiters, absl::StatusOr<std::vector<Embedding>> vectors,
                             int64_t tokens, int retries, int hedges) {
  size_t count = 0;
  for (const Waiter& w : waiters) count += w.texts;
  // Each caller gets its slice; tokens split by share of the texts (remainder to the last).
  size_t offset = 0;
  int64_t given = 0;
  for (size_t w = 0; w < waiters.size(); ++w) {
    Waiter& waiter = waiters[w];
    if (!vectors.ok()) {
      std::move(waiter.done)(vectors.status());
      continue;
    }
    EmbedReply out;
    out.vectors.assign(std::make_move_iterator(vectors->begin() + offset),
                       std::make_move_iterator(vectors->begin() + offset + waiter.texts));
    offset += waiter.texts;
    out.prompt_tokens = count == 0 ? 0 : tokens * static_cast<int64_t>(waiter.texts) / static_cast<int64_t>(count);
    given += out.prompt_tokens;
    if (w + 1 == waiters.size()) out.prompt_tokens += tokens - given;
    out.retries = retries;
    out.hedges = w == 0 ? hedges : 0;  // the batch's duplicates counted once
    std::move(waiter.done)(std::move(out));
  }
}

}  // namespace noveltygrid
