#include "worker/models/provider_hub.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "worker/http/reply_headers.h"
#include "worker/limits/learned_limits.h"

namespace noveltygrid {

ProviderHub::~ProviderHub() {
  // Channels first (they use the limiters and the client), then limiters, then the client.
  absl::MutexLock lock(&mu_);
  for (auto& [name, entry] : providers_) entry.channel.reset();
  for (auto& [name, entry] : providers_) entry.limiter.reset();
  http_.reset();
}

absl::StatusOr<HttpClient*> ProviderHub::HttpLocked() {
  if (http_ == nullptr) {
    HttpClientOptions options;
    options.executor = &gate_;
    absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
    if (!client.ok()) return client.status();
    http_ = std::move(*client);
  }
  return http_.get();
}

void ProviderHub::AbortCalls() {
  absl::MutexLock lock(&mu_);
  if (http_ != nullptr) http_->Abort();
}

std::optional<absl::Status> ProviderHub::CredentialError() {
  absl::MutexLock lock(&mu_);
  for (const auto& [fingerprint, entry] : providers_) {
    if (std::optional<absl::Status> error = entry.channel->CredentialError(); error.has_value()) return error;
  }
  return std::nullopt;
}

CallWaits ProviderHub::Waits() {
  absl::MutexLock lock(&mu_);
  CallWaits waits;
  for (const auto& [fingerprint, entry] : providers_) waits += entry.channel->Waits();
  return waits;
}

absl::StatusOr<HttpClient*> ProviderHub::Http() {
  absl::MutexLock lock(&mu_);
  return HttpLocked();
}

absl::StatusOr<ProviderChannel*> ProviderHub::Channel(const ProviderConfig& provider) {
  absl::MutexLock lock(&mu_);
  // One channel (and limiter, and credential latch) per provider configuration: a later sweep that
  // changes any setting of the provider gets a fresh one.
  const std::string key = Fingerprint(provider);
  if (auto it = providers_.find(key); it != providers_.end()) return it->second.channel.get();
  if (absl::StartsWith(provider.api_key_env, "NOVELTYGRID_")) {
    return absl::InvalidArgumentError(absl::StrCat("provider '", provider.name, "': api_key_env ", provider.api_key_env,
                                                   " names one of NoveltyGrid's own variables, not a provider key"));
  }
  absl::StatusOr<HttpClient*> http = HttpLocked();
  if (!http.ok()) return http.status();
  if (absl::Status usable = (*http)->CheckUrl(provider.base_url); !usable.ok()) {
    return absl::Status(usable.code(), absl::StrCat("provider '", provider.name, "' (",
                                                    http_reply::RedactUrl(provider.base_url), "): ", usable.message()));
  }
  ProviderLimiterOptions limiter_options;
  limiter_options.provider = provider.name;
  limiter_options.limits = provider.limits;
  limiter_options.executor = &gate_;
  // Learned limits are shared through Redis too (the learning limiter keeps an unlimited start local).
  limiter_options.redis_url = provider.limits.unlimited() && !provider.learn_limits ? "" : options_.redis_url;
  // A slot covers one attempt: a worker that dies holding it frees it soon after its timeout.
  limiter_options.slot_ttl = provider.timeout + absl::Seconds(30);
  absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter =
      MakeProviderLimiter(limiter_options, provider.learn_limits);
  if (!limiter.ok()) return limiter.status();
  absl::StatusOr<std::unique_ptr<ProviderChannel>> channel = ProviderChannel::Create(
      provider, *http, limiter->get(), &gate_, options_.env, kDefaultMaxRetryHint, options_.on_request);
  if (!channel.ok()) return channel.status();
  Entry& entry = providers_[key];
  entry.limiter = std::move(*limiter);
  entry.channel = std::move(*channel);
  return entry.channel.get();
}

}  // namespace noveltygrid
