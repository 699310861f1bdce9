// HttpRewardModel: a RewardModel served over HTTP. No standard reward API exists; this is the shape
// serve-sim's simulated reward model answers (POST /v1/reward, so base_url ".../v1" + path "/reward"):
//
//   POST base_url + path   {"inputs": [{"prompt": P1, "response": R1}, ...], "model": M}
//   reply                  {"scores": [r1, ...], ...}     one raw reward per input, in input order
//
// "model" is sent when `model` is non-empty. Larger calls are split into requests of at most
// `max_batch` items and reassembled in order. Replies are checked strictly: no "scores" array, a count
// that differs from the item count, a score that is not a finite number -- each fails the call with
// InvalidArgument naming the endpoint; nothing is defaulted.
//
// Thread-safe (immutable after Create); callbacks run on the executor. The channel and the executor
// must outlive the model and every call in flight.
#ifndef NOVELTYGRID_WORKER_SCORERS_HTTP_REWARD_MODEL_H_
#define NOVELTYGRID_WORKER_SCORERS_HTTP_REWARD_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/http/provider_channel.h"
#include "worker/scorers/batched_post.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

struct HttpRewardModelOptions {
  std::string id;                // as in results, e.g. "skywork-reward-gemma-2-27b"
  std::string model;             // sent as "model"; empty: not sent
  std::string path = "/reward";  // appended to the channel's base_url
  int max_batch = 32;            // items per request, >= 1
};

class HttpRewardModel : public HttpBatchScorer<RewardModel, HttpRewardModelOptions> {
 public:
  // InvalidArgument for an empty id, a path without a leading '/', max_batch < 1, or a null channel
  // or executor.
  static absl::StatusOr<std::unique_ptr<HttpRewardModel>> Create(const HttpRewardModelOptions& options,
                                                                 ProviderChannel* channel, Executor* executor);

  void Score(std::vector<RewardItem> items, RewardCallback done) override;

 private:
  using HttpBatchScorer::HttpBatchScorer;
};

// The rewards of a reply for `expected` items (exposed for tests).
absl::StatusOr<std::vector<double>> ParseRewardReply(const Json& reply, size_t expected);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SCORERS_HTTP_REWARD_MODEL_H_
