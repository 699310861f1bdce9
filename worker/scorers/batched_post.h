// PostInBatches: the client-side batching both HTTP scorers share. A call of `count` items becomes
// ceil(count / max_batch) requests of consecutive items, all sent at once through the ProviderChannel
// (whose limiter paces them); each reply is parsed into exactly one number per item of its batch, and
// the numbers come back concatenated in input order.
//
//   ASSIGN_OR_RETURN(BatchTarget target, MakeBatchTarget("pair classifier 'tei'", channel, executor,
//                                                         "/predict", /*max_batch=*/32));
//   PostInBatches(target, pairs.size(), build_body, parse_reply, std::move(done));
//
// The call fails when any batch fails; `done` still runs only once every batch has finished (so no
// reply arrives after it), with the error of the first failing batch in input order, prefixed with
// `endpoint` and the batch's item range. Reply shape errors are InvalidArgument; the channel's own
// errors (HTTP status, transport, retries exhausted) keep their code.
//
// `build_body` runs on the caller's thread before PostInBatches returns; `parse` on the executor.
// `done` runs on the executor, also for count == 0 (no request).
#ifndef NOVELTYGRID_WORKER_SCORERS_BATCHED_POST_H_
#define NOVELTYGRID_WORKER_SCORERS_BATCHED_POST_H_

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "common/executor.h"
#include "common/json_util.h"
#include "worker/http/provider_channel.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

struct BatchTarget {
  ProviderChannel* channel = nullptr;  // not owned
  Executor* executor = nullptr;        // not owned; where `done` runs when no request is sent
  std::string path;                    // appended to the channel's base_url
  std::string endpoint;                // names the endpoint in errors
  int max_batch = 32;                  // >= 1
};

struct BatchedNumbers {
  std::vector<double> values;  // one per item, in input order
  ScorerCallInfo call;
};

// Checks the parts (non-null channel and executor, a path starting with '/', max_batch >= 1) and names
// the endpoint "WHAT at BASE_URL+PATH"; InvalidArgument otherwise.
absl::StatusOr<BatchTarget> MakeBatchTarget(const std::string& what, ProviderChannel* channel, Executor* executor,
                                            const std::string& path, int max_batch);

// The request body for items [begin, end).
using BatchBodyBuilder = std::function<Json(size_t begin, size_t end)>;
// The numbers in one batch's reply, which must hold exactly `expected` of them; the message of an
// error says what is wrong with the reply (PostInBatches adds the endpoint).
using BatchReplyParser = std::function<absl::StatusOr<std::vector<double>>(const Json& reply, size_t expected)>;
using BatchedCallback = absl::AnyInvocable<void(absl::StatusOr<BatchedNumbers>) &&>;

void PostInBatches(const BatchTarget& target, size_t count, const BatchBodyBuilder& build_body, BatchReplyParser parse,
                   BatchedCallback done);

// PostInBatches with the body both HTTP scorers send: {"inputs": [input(item) for the batch's items]},
// to which `extra(body)` adds the scorer's own fields.
template <typename Item, typename Input, typename Extra>
void PostInputs(const BatchTarget& target, const std::vector<Item>& items, Input input, Extra extra,
                BatchReplyParser parse, BatchedCallback done) {
  PostInBatches(
      target, items.size(),
      [&](size_t begin, size_t end) {
        Json inputs = Json::array();
        for (size_t i = begin; i < end; ++i) inputs.push_back(input(items[i]));
        Json body{{"inputs", std::move(inputs)}};
        extra(body);
        return body;
      },
      std::move(parse), std::move(done));
}

// What both HTTP scorers hold, constant after construction: their options (with the id) and where
// their batches go.
template <typename Scorer, typename Options>
class HttpBatchScorer : public Scorer {
 public:
  const std::string& id() const override { return options_.id; }

 protected:
  HttpBatchScorer(Options options, BatchTarget target) : options_(std::move(options)), target_(std::move(target)) {}

  const Options options_;
  const BatchTarget target_;
};

// A BatchedCallback that hands the numbers to `done` as a `Reply` ({values, call}: ScoredPairs or
// RewardScores), or the error as it is.
template <typename Reply, typename Callback>
BatchedCallback DeliverAs(Callback done) {
  return [done = std::move(done)](absl::StatusOr<BatchedNumbers> numbers) mutable {
    if (!numbers.ok()) {
      std::move(done)(numbers.status());
      return;
    }
    std::move(done)(Reply{std::move(numbers->values), numbers->call});
  };
}

// The shared checks of a reply number: a JSON number (not a string, bool or null) and finite.
absl::StatusOr<double> ReplyNumber(const Json& value, const std::string& what);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SCORERS_BATCHED_POST_H_
