// The model roles a benchmark talks to, as asynchronous interfaces.
//
// Every call returns at once; the reply arrives through the callback, which implementations must run
// on an Executor (never inline on the caller's stack), on any thread. Implementations are thread-safe:
// many loops call one model object concurrently. A model id is what appears in results and call
// statistics ("sim:explorer", "openai/gpt-4o"); it never contains secrets.
#ifndef NOVELTYGRID_WORKER_MODELS_MODEL_H_
#define NOVELTYGRID_WORKER_MODELS_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "common/embedding.h"
#include "common/records.h"

namespace noveltygrid {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
  // The bytes at the start of `content` that stay the same across a loop's requests (AidanBench: the
  // question and instructions, before the previous answers); providers with prompt caching mark them.
  size_t cache_prefix = 0;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  // Temperature, max_tokens, seed and n are sent as given (HTTP providers: max_tokens as the field the
  // provider expects); models without a seed parameter ignore it.
  double temperature = 0.7;
  int max_tokens = 4000;
  uint64_t seed = 0;  // sweep seed; providers that accept a seed receive it
  int n = 1;          // number of choices wanted
};

struct ChatReply {
  std::vector<std::string> choices;  // exactly n entries on success
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t reasoning_tokens = 0;    // of completion_tokens, those the model spent reasoning (where reported)
  int64_t cache_read_tokens = 0;   // of prompt_tokens, read from the provider's prompt cache
  int64_t cache_write_tokens = 0;  // of prompt_tokens, written to it
  int retries = 0;                 // extra HTTP attempts this reply took (0 for in-process models)
  int hedges = 0;                  // duplicate requests hedging sent for it (CallInfo::hedges)
};

// Adds a successful reply's tokens (reasoning ones too), transport retries and hedges to `counters`. Each
// hedged duplicate is costed as the reply itself (the same request: the provider may have answered it
// in full), so the tokens count 1 + hedges times.
inline void CountReply(const ChatReply& reply, CallCounters& counters) {
  const int64_t copies = 1 + reply.hedges;
  counters.prompt_tokens += copies * reply.prompt_tokens;
  counters.completion_tokens += copies * reply.completion_tokens;
  counters.reasoning_tokens += copies * reply.reasoning_tokens;
  counters.cache_read_tokens += copies * reply.cache_read_tokens;
  counters.cache_write_tokens += copies * reply.cache_write_tokens;
  counters.retries += reply.retries;
  counters.hedges += reply.hedges;
}

// Sample `index` of a reply of `n`'s share of its reasoning tokens: even shares, the remainder to the first.
inline int64_t ReasoningShare(const ChatReply& reply, int index, int n) {
  if (n <= 1) return reply.reasoning_tokens;
  return reply.reasoning_tokens / n + (index == 0 ? reply.reasoning_tokens % n : 0);
}

using ChatCallback = absl::AnyInvocable<void(absl::StatusOr<ChatReply>) &&>;

class ChatModel {
 public:
  virtual ~ChatModel() = default;
  virtual const std::string& id() const = 0;
  virtual void Complete(ChatRequest request, ChatCallback done) = 0;
};

struct EmbedReply {
  std::vector<Embedding> vectors;  // one per input text, in input order
  // This call's share when requests were coalesced (split by share of the texts), hedged duplicates
  // included: each is costed as the reply it duplicated, so a batch's tokens count 1 + hedges times.
  int64_t prompt_tokens = 0;
  int retries = 0;
  // Duplicate requests hedging sent (CallInfo::hedges); a coalesced batch's all go to its first caller,
  // so that the callers' counts add up to the duplicates sent.
  int hedges = 0;
};

using EmbedCallback = absl::AnyInvocable<void(absl::StatusOr<EmbedReply>) &&>;

// Batch embedder: one vector per input text, in input order.
class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual const std::string& id() const = 0;
  virtual int dimensions() const = 0;
  virtual void Embed(std::vector<std::string> texts, EmbedCallback done) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_MODEL_H_
