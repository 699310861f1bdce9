// Models behind an OpenAI-compatible HTTP API (OpenAI, OpenRouter, vLLM, llama.cpp server, Ollama,
// serve-sim), over a ProviderChannel (keys, limits, retries and error classification live there).
//
// OpenAiChatModel: POST /chat/completions with model, messages, temperature, the max-tokens field the
// provider expects, seed and n, plus the endpoint's extra body fields. A reply must carry exactly n
// choices whose message content is a string of at most kMaxAnswerBytes; anything else is an error,
// never an answer. Token usage and the channel's retries are reported in ChatReply.
//
// OpenAiEmbedder: POST /embeddings with array input (and "dimensions" when the endpoint asks for a
// size), base64 or float encoding per provider. Concurrent Embed calls are coalesced into requests of at
// most embed_batch texts; each caller gets its own vectors (in its order) and its share of the usage.
//
// Thread-safe; callbacks run on the executor. Implemented in openai_chat_model.cc and
// openai_embedder.cc; the reply fields both read are in openai_reply_fields.h.
#ifndef NOVELTYGRID_WORKER_MODELS_OPENAI_MODELS_H_
#define NOVELTYGRID_WORKER_MODELS_OPENAI_MODELS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/json_util.h"
#include "common/provider_config.h"
#include "worker/http/http_client.h"
#include "worker/http/provider_channel.h"
#include "worker/models/model.h"

namespace noveltygrid {

// The longest message content a chat reply may carry: 1 MiB, some 250,000 tokens, beyond any model's
// output limit. A longer one fails the call (InvalidArgument, not retried) rather than being cut: an
// answer cut short would be judged, embedded and written to the results as if the model had said it,
// and every later prompt of an AidanBench loop repeats the earlier answers.
inline constexpr size_t kMaxAnswerBytes = size_t{1} << 20;

class OpenAiChatModel : public ChatModel {
 public:
  // `channel` is not owned and must outlive the model. InvalidArgument when extra_body_json is not a
  // JSON object.
  static absl::StatusOr<std::unique_ptr<OpenAiChatModel>> Create(const ModelEndpoint& endpoint,
                                                                 ProviderChannel* channel);
  const std::string& id() const override { return endpoint_.name; }
  void Complete(ChatRequest request, ChatCallback done) override;

  // The request body for `request`, JSON text written directly (no tree; exposed for tests).
  std::string RequestBody(const ChatRequest& request) const;
  // Parses the text of a chat completion; `n` choices are required. Reads only choices[].index,
  // .message.content / .refusal and usage (JsonReader), checking the whole text; `scan` (if not null)
  // receives the channel's checks of it (ProviderChannel::PostRead), made in the same pass.
  static absl::StatusOr<ChatReply> ParseReply(absl::string_view body, int n, BodyScan* scan = nullptr);

 private:
  // An extra body field: its key and its value as JSON text.
  using Field = std::pair<std::string, std::string>;
  OpenAiChatModel(ModelEndpoint endpoint, ProviderChannel* channel, std::vector<Field> extra)
      : endpoint_(std::move(endpoint)), channel_(channel), extra_(std::move(extra)) {}
  const ModelEndpoint endpoint_;
  ProviderChannel* const channel_;
  const std::vector<Field> extra_;  // in the order of extra_body_json
};

class OpenAiEmbedder : public Embedder {
 public:
  // `channel`, `timers` (for the coalescing wait) and `executor` (where callbacks run) are not owned and
  // must outlive the embedder.
  //
  // Coalescing without a wait (`embed_wait` 0, the default): a batch goes when the executor reaches a
  // task queued with its first text, so the texts of the replies queued before it join it (with several
  // executor threads, those still running when it is reached start the next batch). Nothing waits on a
  // timer; batches grow with the load (one text each when replies come one at a time).
  //
  // Lifetime: the executor must run or drop every task it holds before the embedder is destroyed (the
  // worker's runtime joins its pool first); batch tasks that run after that find it gone.
  //
  // Coalescing with a wait: texts arriving within the provider's `embed_wait` of the first one share a
  // request (up to `embed_batch` texts). The wait is only paid when it is likely to find company: while the
  // mean gap between Embed calls (an exponential moving average on `clock`) is longer than the wait, a text
  // is sent at once -- a sweep of a few loops then loses nothing per iteration, one of hundreds still
  // batches. A batch also goes as soon as its burst is over: once no text has come for four mean gaps
  // (at least kMinQuietGap), it stops waiting for the rest of embed_wait.
  OpenAiEmbedder(ModelEndpoint endpoint, ProviderChannel* channel, HttpClient* timers, Executor* executor,
                 const Clock* clock = SystemClockInstance());
  ~OpenAiEmbedder() override;

  const std::string& id() const override { return endpoint_.name; }
  int dimensions() const override { return endpoint_.dimensions; }
  void Embed(std::vector<std::string> texts, EmbedCallback done) override;

  // Parses the text of an embeddings reply holding `count` vectors (float arrays or base64 float32);
  // `prompt_tokens` (if not null) receives usage.prompt_tokens (0 when absent) and `items` (if not null)
  // the number of vectors, whenever the reply had a "data" array (else both are left alone); `scan` (if
  // not null) the channel's checks of the text (ProviderChannel::PostRead), made in the same pass.
  static absl::StatusOr<std::vector<Embedding>> ParseReply(absl::string_view body, size_t count,
                                                           int64_t* prompt_tokens = nullptr, size_t* items = nullptr,
                                                           BodyScan* scan = nullptr);
  // The request body for `texts`, JSON text written directly (exposed for tests).
  std::string RequestBody(const std::vector<std::string>& texts) const;

 private:
  struct Waiter {
    size_t texts = 0;
    EmbedCallback done;
  };
  struct Batch {
    std::vector<std::string> texts;
    std::vector<Waiter> waiters;
  };
  // A reply as ParseReply reads it, with its usage and its count of vectors (for the fallback below).
  struct Parsed {
    absl::StatusOr<std::vector<Embedding>> vectors;
    int64_t tokens = 0;
    size_t items = 0;  // `count` unless the reply had a "data" array
    static Parsed Of(absl::string_view body, size_t count, BodyScan* scan) {
      Parsed p{absl::StatusOr<std::vector<Embedding>>(), 0, count};
      p.vectors = ParseReply(body, count, &p.tokens, &p.items, scan);
      return p;
    }
  };
  static constexpr absl::Duration kMinQuietGap = absl::Microseconds(500);
  absl::Duration QuietGap() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartTimer(absl::Duration delay, uint64_t generation);
  // The timer's check: sends the pending batch if it is still the one the timer was started for and
  // is due (quiet, or waited embed_wait); otherwise starts the timer again for when it will be.
  void FlushIfDue(uint64_t generation);
  // The executor's task (no wait): sends the pending batch if it is still the one it was scheduled for.
  void FlushNow(uint64_t generation);
  // The pending batch, handed over to be sent; the next text starts a new one.
  Batch TakePendingLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Send(Batch batch);
  // One request per text: for servers that answer a batched request with the wrong number of vectors
  // (some OpenAI-compatible servers embed only the first input). Every later batch goes this way too.
  // What a request's callback needs after the embedder may be gone (callbacks never touch `this`).
  struct Fallback {
    Fallback(ModelEndpoint e, ProviderChannel* c) : endpoint(std::move(e)), channel(c) {}
    const ModelEndpoint endpoint;
    ProviderChannel* const channel;
    std::atomic<bool> single_input{false};  // set (with a warning) by the first miscounted batch
  };
  // `tokens`, `retries` and `hedges`: already spent on the batch (the miscounted request).
  static void SendSingly(const std::shared_ptr<Fallback>& fallback, std::vector<std::string> texts,
                         std::shared_ptr<std::vector<Waiter>> waiters, int64_t tokens, int retries, int hedges);
  static std::string BodyFor(ProviderChannel& channel, const ModelEndpoint& endpoint,
                             const std::vector<std::string>& texts);
  // Hands each waiter its slice of `vectors` (in waiter order), tokens (hedged duplicates' included)
  // split by share of the texts, `retries` to each, `hedges` to the first (EmbedReply).
  static void Deliver(std::vector<Waiter>& waiters, absl::StatusOr<std::vector<Embedding>> vectors, int64_t tokens,
                      int retries, int hedges);

  const ModelEndpoint endpoint_;
  ProviderChannel* const channel_;
  HttpClient* const timers_;
  Executor* const executor_;
  absl::Mutex mu_;
  Batch pending_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // bumped at every flush; stale timers do nothing
  const Clock* const clock_;
  absl::Time last_text_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time batch_started_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();  // the pending batch's first text
  absl::Duration armed_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();      // its timers' delays so far
  absl::Duration mean_gap_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();   // between Embed calls (EWMA)
  // Shared with timer tasks so that a timer firing after destruction finds the embedder gone.
  std::shared_ptr<OpenAiEmbedder*> self_;
  const std::shared_ptr<Fallback> fallback_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_OPENAI_MODELS_H_
