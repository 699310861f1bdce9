// ProviderHub: a worker's connections to model providers -- one HTTP event loop for all of them, and
// per provider one limiter (cluster-wide through Redis when the worker has it) and one channel.
// Built lazily: a worker that only runs simulated models never starts the HTTP loop.
//
// Thread-safe. Shutting down: models hold channel pointers and replies arrive on the executor, so the
// owner calls Close() (replies still in flight are dropped from then on), then stops the executor,
// then destroys the models, then the hub.
#ifndef NOVELTYGRID_WORKER_MODELS_PROVIDER_HUB_H_
#define NOVELTYGRID_WORKER_MODELS_PROVIDER_HUB_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/executor.h"
#include "common/provider_config.h"
#include "worker/http/http_client.h"
#include "worker/http/provider_channel.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid {

struct ProviderHubOptions {
  Executor* executor = nullptr;  // required: where replies are delivered
  std::string redis_url;         // optional: shares provider limits with the other workers
  SecretLookup env;              // optional: where keys are looked up (default: the process environment)
  RequestObserver on_request;    // optional: told of every request (ProviderChannel::Create)
};

class ProviderHub {
 public:
  explicit ProviderHub(ProviderHubOptions options) : options_(std::move(options)) {}
  ~ProviderHub();

  // The channel of `provider` (one per distinct configuration, see Fingerprint).
  absl::StatusOr<ProviderChannel*> Channel(const ProviderConfig& provider);
  // The shared HTTP client (started on first use).
  absl::StatusOr<HttpClient*> Http();
  // The first credential error that latched one of the channels (see ProviderChannel), if any.
  std::optional<absl::Status> CredentialError();
  // Every channel's calls that have not ended, summed (CallWaits).
  CallWaits Waits();
  // Calls in flight and later ones fail at once with Cancelled (HttpClient::Abort); callbacks still run.
  void AbortCalls();
  // From now on replies, retries and limiter grants are dropped instead of delivered.
  void Close() { gate_.Close(); }

 private:
  struct Entry {
    std::unique_ptr<ProviderLimiter> limiter;
    std::unique_ptr<ProviderChannel> channel;
  };
  absl::StatusOr<HttpClient*> HttpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Forwards tasks to the real executor until closed.
  class Gate : public Executor {
   public:
    explicit Gate(Executor* inner) : inner_(inner) {}
    void Schedule(Task task) override {
      absl::ReaderMutexLock lock(&mu_);
      if (!closed_) inner_->Schedule(std::move(task));
    }
    void Close() {
      absl::MutexLock lock(&mu_);
      closed_ = true;
    }

   private:
    Executor* const inner_;
    absl::Mutex mu_;
    bool closed_ ABSL_GUARDED_BY(mu_) = false;
  };

  const ProviderHubOptions options_;
  Gate gate_{options_.executor};
  absl::Mutex mu_;
  std::unique_ptr<HttpClient> http_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Entry> providers_ ABSL_GUARDED_BY(mu_);  // by Fingerprint(config)
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_PROVIDER_HUB_H_
