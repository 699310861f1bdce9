#include "worker/scorers/batched_post.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace noveltygrid {
namespace {

// One call's batches in flight. The last batch to finish delivers the result.
class BatchCall {
 public:
  BatchCall(std::string endpoint, size_t count, size_t batches, BatchReplyParser parse, BatchedCallback done)
      : endpoint_(std::move(endpoint)),
        batches_(batches),
        parse_(std::move(parse)),
        done_(std::move(done)),
        values_(count),
        errors_(batches),
        remaining_(batches) {
    call_.requests = static_cast<int>(batches);
  }

  // Runs on the executor (the channel's callback) once per batch.
  void Finish(size_t batch, size_t begin, size_t end, absl::StatusOr<Json> reply, CallInfo info) {
    absl::Status error;
    std::vector<double> numbers;
    if (!reply.ok()) {
      error = reply.status();
    } else {
      absl::StatusOr<std::vector<double>> parsed = parse_(*reply, end - begin);
      if (parsed.ok() && parsed->size() != end - begin) {
        parsed = absl::InternalError(absl::StrCat("parser gave ", parsed->size(), " numbers for ", end - begin));
      }
      if (parsed.ok()) {
        numbers = *std::move(parsed);
      } else {
        error = parsed.status();
      }
    }
    bool last = false;
    {
      absl::MutexLock lock(&mu_);
      call_.attempts += info.attempts;
      call_.retries += info.retries();
      call_.hedges += info.hedges;
      if (error.ok()) {
        std::copy(numbers.begin(), numbers.end(), values_.begin() + static_cast<std::ptrdiff_t>(begin));
      } else {
        errors_[batch] =
            absl::Status(error.code(), absl::StrCat(endpoint_, ", batch ", batch + 1, " of ", batches_, " (items ",
                                                    begin, "..", end - 1, "): ", error.message()));
      }
      last = --remaining_ == 0;
    }
    if (last) Deliver();
  }

 private:
  void Deliver() {
    absl::StatusOr<BatchedNumbers> result;
    {
      absl::MutexLock lock(&mu_);  // every batch has finished; the lock only satisfies the annotations
      const auto failed = std::find_if(errors_.begin(), errors_.end(), [](const absl::Status& s) { return !s.ok(); });
      if (failed != errors_.end()) {
        result = *failed;
      } else {
        result = BatchedNumbers{std::move(values_), call_};
      }
    }
    std::move(done_)(std::move(result));
  }

  // Constant after construction.
  const std::string endpoint_;
  const size_t batches_;
  const BatchReplyParser parse_;
  BatchedCallback done_;  // run once, by the last Finish

  absl::Mutex mu_;
  std::vector<double> values_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Status> errors_ ABSL_GUARDED_BY(mu_);  // per batch; OK until it fails
  size_t remaining_ ABSL_GUARDED_BY(mu_);
  ScorerCallInfo call_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<BatchTarget> MakeBatchTarget(const std::string& what, ProviderChannel* channel, Executor* executor,
                                            const std::string& path, int max_batch) {
  if (channel == nullptr || executor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": a provider channel and an executor are required"));
  }
  if (path.empty() || path.front() != '/') {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the path must start with '/', got '", path, "'"));
  }
  if (max_batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the batch size must be at least 1, got ", max_batch));
  }
  BatchTarget target;
  target.channel = channel;
  target.executor = executor;
  target.path = path;
  target.endpoint = absl::StrCat(what, " at ", channel->config().base_url, path);
  target.max_batch = max_batch;
  return target;
}

void PostInBatches(const BatchTarget& target, size_t count, const BatchBodyBuilder& build_body, BatchReplyParser parse,
                   BatchedCallback done) {
  if (count == 0) {
    target.executor->Schedule([done = std::move(done)]() mutable { std::move(done)(BatchedNumbers{}); });
    return;
  }
  const size_t max_batch = static_cast<size_t>(std::max(1, target.max_batch));
  const size_t batches = (count + max_batch - 1) / max_batch;
  auto call = std::make_shared<BatchCall>(target.endpoint, count, batches, std::move(parse), std::move(done));
  for (size_t batch = 0; batch < batches; ++batch) {
    const size_t begin = batch * max_batch;
    const size_t end = std::min(count, begin + max_batch);
    target.channel->PostJson(target.path, build_body(begin, end),
                             [call, batch, begin, end](absl::StatusOr<Json> reply, CallInfo info) {
                               call->Finish(batch, begin, end, std::move(reply), info);
                             });
  }
}

absl::StatusOr<double> ReplyNumber(const Json& value, const std::string& what) {
  if (!value.is_number()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is ", value.type_name(), ", not a number"));
  }
  const double number = value.get<double>();
  if (!std::isfinite(number)) return absl::InvalidArgumentError(absl::StrCat(what, " is not finite"));
  return number;
}

}  // namespace noveltygrid
