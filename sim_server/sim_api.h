// SimApi: the HTTP-free core of serve-sim. It turns one request body into one response (status and
// JSON body) for each endpoint, in the shapes of the services the real models sit behind:
//
//   ChatCompletions  POST /v1/chat/completions (OpenAI). Body: {model, messages, temperature (default
//                    1.0), max_tokens or max_completion_tokens (default 4000), seed (default 0), n
//                    (default 1)}; other fields are ignored. Message content is a string or an array
//                    of {"type":"text","text":...} parts. Models: every "sim:NAME" of SimChatModel,
//                    "sim:judge" and "sim:judge-flaky" (the flaky judge is not reproducible by design);
//                    a bare "NAME" means "sim:NAME". `created` comes from the seed, `id` from a hash of
//                    the request, so the same request always gets the same body.
//   Messages         POST /v1/messages (Anthropic): see anthropic_api.h. It answers through Chat, the
//                    code ChatCompletions answers with, so the same conversation, temperature, seed
//                    and max_tokens give the same text on both routes. Anthropic's API has no seed:
//                    the route reads an optional integer "seed" body field (default 0, as here).
//   Embeddings       POST /v1/embeddings (OpenAI). Body: {model: "lexical" | "lexical-D", input: string
//                    or array of strings, encoding_format: "float" (default) | "base64" (little-endian
//                    float32), dimensions (optional; must equal D)}.
//   Predict          POST /predict (text-embeddings-inference pair classification). Body
//                    {"inputs": [[a, b], ...]} gives [[{"label":"LABEL_0","score":s0},
//                    {"label":"LABEL_1","score":s1}], ...] in input order, labels always in that order
//                    (look them up by label); {"inputs": [a, b]} (one pair) gives the inner array only.
//                    s1 = SimSameIdeaProbability(a, b), s0 = 1 - s1. A SIMULATED classifier.
//   Reward           POST /v1/reward (a simulated reward model; no standard API exists). Body, one of:
//                      {"prompt": P, "response": R}
//                      {"messages": [..., {"role":"user",...}, {"role":"assistant","content":R}]}
//                        (P = the last user message before the last assistant message)
//                      {"inputs": [{"prompt": P, "response": R}, ...]}
//                    plus an optional "model" (echoed; default "sim:reward"). Reply:
//                    {"model": M, "scores": [SimReward(P, R), ...]} in input order.
//
// Errors use the OpenAI error body {"error": {"message", "type", "code"}}: 400 invalid_request_error
// for malformed JSON or fields, 404 model_not_found for an unknown model (Messages: Anthropic's shape).
//
// Thread-safe: the models are immutable after construction (the flaky judge's counter is atomic).
#ifndef NOVELTYGRID_SIM_SERVER_SIM_API_H_
#define NOVELTYGRID_SIM_SERVER_SIM_API_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/executor.h"
#include "worker/sim/sim_chat_model.h"
#include "worker/sim/sim_judge_model.h"

namespace noveltygrid {

struct SimHttpReply {
  int status = 200;
  std::string body;  // always JSON
};

// The OpenAI-style error body {"error": {"message": ..., "type": ..., "code": ...}} with `status`.
SimHttpReply SimErrorReply(int status, absl::string_view message, absl::string_view type, absl::string_view code);

// The chat models' answer to one request, whichever route asked.
struct SimChatAnswer {
  std::string model;  // normalised: "sim:explorer" for "explorer"
  ChatReply reply;
  uint64_t id = 0;  // a hash of the request (messages, seed, temperature, model, n, max_tokens)
};

class SimApi {
 public:
  // `executor` is only needed to construct the models (their synchronous paths never use it); it must
  // outlive the SimApi.
  static absl::StatusOr<std::unique_ptr<SimApi>> Create(Executor* executor);

  SimHttpReply ChatCompletions(absl::string_view body);
  SimHttpReply Embeddings(absl::string_view body);
  // The chat model `requested_model` (bare names mean "sim:NAME") answering `request`: NotFound for
  // an unknown model, InvalidArgument for a request the model refuses.
  absl::StatusOr<SimChatAnswer> Chat(const std::string& requested_model, const ChatRequest& request);

  // Tokens a request is charged when rate limits admit it (before it is answered): the prompt's
  // tokens (words, as usage counts them) plus max_tokens per choice. 0 for bodies that do not parse.
  static int64_t AdmissionTokens(const ChatRequest& request);
  int64_t ChatCompletionTokens(absl::string_view body);
  int64_t EmbeddingTokens(absl::string_view body);  // the input's tokens
  SimHttpReply Predict(absl::string_view body);
  SimHttpReply Reward(absl::string_view body);

 private:
  SimApi() = default;

  // Constant after Create.
  Executor* executor_ = nullptr;
  std::map<std::string, std::unique_ptr<SimChatModel>> generators_;
  std::map<std::string, std::unique_ptr<SimJudgeModel>> judges_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_SIM_API_H_
