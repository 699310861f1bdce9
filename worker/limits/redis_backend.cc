#include "worker/limits/redis_backend.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "common/storage/keys.h"
#include "common/storage/redis_client.h"

namespace noveltygrid::limits_internal {
namespace {

using storage_internal::Command;
using storage_internal::RedisClient;

// Both scripts start here: `now` in ms from ARGV[2], or the server's clock when it is "0" (writes after
// TIME need effects replication: the default from Redis 5, asked for explicitly before).
constexpr char kNowLua[] = R"lua(
if redis.replicate_commands then redis.replicate_commands() end
local now = tonumber(ARGV[2])
if now == 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local minute = math.floor(now / 60000)
)lua";

// KEYS[1] in-flight set; ARGV: key prefix, now, want, max_in_flight, requests/min, tokens/min,
// slot ttl ms, member prefix, first member seq, then (with tokens/min) the `want` waiters' token
// reservations. Claims up to `want` slots; returns {granted, wait_ms, slots_bound, minute}: wait_ms -1
// when all went, else when asking again may help (the next minute, or the earliest slot expiry when
// max_in_flight alone held them back, slots_bound = 1); minute: the one reservations were charged to.
constexpr char kAdmitLua[] = R"lua(
local want = tonumber(ARGV[3])
local max_in_flight, rpm, tpm = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local to_next_minute = (minute + 1) * 60000 - now
local rpm_key = ARGV[1] .. 'rpm:' .. minute
local tpm_key = ARGV[1] .. 'tpm:' .. minute
local granted, wait, slots_bound = want, -1, 0
if tpm > 0 then
  local charged, fit = tonumber(redis.call('GET', tpm_key) or '0'), 0
  while fit < want and charged < tpm do
    fit = fit + 1
    charged = charged + tonumber(ARGV[9 + fit])
  end
  if fit < want then granted, wait = fit, to_next_minute end
end
if rpm > 0 then
  local left = rpm - tonumber(redis.call('GET', rpm_key) or '0')
  if left < granted then granted, wait = math.max(left, 0), to_next_minute end
end
if max_in_flight > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local left = max_in_flight - redis.call('ZCARD', KEYS[1])
  local full = left < granted
  if full then granted = math.max(left, 0) end
  if granted > 0 then
    local ttl = tonumber(ARGV[7])
    local args = {}
    for i = 0, granted - 1 do
      args[#args + 1] = now + ttl
      args[#args + 1] = ARGV[8] .. (tonumber(ARGV[9]) + i)
    end
    redis.call('ZADD', KEYS[1], unpack(args))
    redis.call('PEXPIRE', KEYS[1], ttl + 60000)
  end
  if full and wait < 0 then
    local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    wait, slots_bound = math.max(tonumber(first[2]) - now, 1), 1
  end
end
if granted > 0 and rpm > 0 then
  redis.call('INCRBY', rpm_key, granted)
  redis.call('EXPIRE', rpm_key, 120)
end
if granted > 0 and tpm > 0 then
  local reserved = 0
  for i = 1, granted do reserved = reserved + tonumber(ARGV[9 + i]) end
  if reserved > 0 then
    redis.call('INCRBY', tpm_key, reserved)
    redis.call('EXPIRE', tpm_key, 120)
  end
end
return {granted, wait, slots_bound, minute}
)lua";

// KEYS[1] in-flight set; ARGV: key prefix, now, n, then n settlements (reserved minute, excess,
// refund), then members to remove. Excess is charged to this minute; a refund only when its minute
// is this one (a minute that is over keeps its charge); the charge stops at 0.
constexpr char kReleaseLua[] = R"lua(
local n = tonumber(ARGV[3])
local charge = 0
for i = 0, n - 1 do
  charge = charge + tonumber(ARGV[5 + 3 * i])
  if tonumber(ARGV[4 + 3 * i]) == minute then charge = charge - tonumber(ARGV[6 + 3 * i]) end
end
if charge ~= 0 then
  local key = ARGV[1] .. 'tpm:' .. minute
  if redis.call('INCRBY', key, charge) < 0 then redis.call('SET', key, 0) end
  redis.call('EXPIRE', key, 120)
end
if #ARGV > 3 + 3 * n then redis.call('ZREM', KEYS[1], unpack(ARGV, 4 + 3 * n)) end
return 0
)lua";

std::string Script(const char* body) { return absl::StrCat(kNowLua, body); }

RedisOptions LimiterRedisOptions() {
  // The limiter thread waits on these, and local admission with it: fail fast, fall back, retry later.
  RedisOptions options;
  options.connect_timeout = absl::Seconds(1);
  options.command_timeout = absl::Seconds(2);
  options.max_retries = 1;
  options.pool_size = 1;
  return options;
}

std::string InstanceId() {
  absl::BitGen rng;
  return absl::StrFormat("%d-%08x", static_cast<int>(::getpid()), absl::Uniform<uint32_t>(rng));
}

}  // namespace

RedisBackend::RedisBackend(RedisBackendOptions options)
    : options_(std::move(options)),
      key_prefix_(keys::LimitPrefix(options_.provider)),
      inflight_key_(absl::StrCat(key_prefix_, "inflight")),
      member_prefix_(absl::StrCat(InstanceId(), ":")),
      local_(options_.limits) {}

RedisBackend::~RedisBackend() = default;

void RedisBackend::Release(int count, const Settlements& settlements, absl::Time now) {
  local_.Release(count, settlements, now);
  for (int i = 0; i < count && !held_.empty(); ++i) {
    if (!held_.front().empty()) pending_members_.push_back(std::move(held_.front()));
    held_.pop_front();
  }
  // While Redis is away the requests were admitted (and charged) here alone: Redis never saw them.
  if (options_.limits.tokens_per_minute <= 0 || down_) return;
  for (const auto& [minute, s] : settlements) {
    Settlement& pending = pending_settlements_[minute];
    pending.excess += s.excess;
    pending.refund += s.refund;
  }
}

Admission RedisBackend::Admit(const std::vector<int64_t>& reserves, absl::Time now) {
  const int want = static_cast<int>(reserves.size());
  if (Usable(now)) {
    absl::StatusOr<Reply> reply = Round(reserves, now);
    if (reply.ok()) {
      Succeeded();
      local_.Record(reply->granted, ReservedBy(reserves, reply->granted), now);
      for (int i = 0; i < reply->granted; ++i) {
        held_.push_back(options_.limits.max_in_flight > 0 ? absl::StrCat(member_prefix_, next_seq_ + i)
                                                          : std::string());
      }
      next_seq_ += reply->granted;
      Admission admission;
      admission.granted = reply->granted;
      admission.minute = reply->minute;
      if (reply->wait_ms >= 0) {
        absl::Duration wait = absl::Milliseconds(reply->wait_ms);
        // Other workers' releases are not signalled: ask again after a poll at the latest.
        if (reply->slots_bound) wait = std::min(wait, options_.poll);
        admission.retry_at = now + wait;
      }
      return admission;
    }
    // Slots the admit script may have claimed before the connection broke are not ours to free.
    Failed(reply.status(), now);
  }
  Admission admission = local_.Admit(reserves, now);
  held_.insert(held_.end(), admission.granted, std::string());
  // Held back by max_in_flight only: a local release, or Redis back after the cool-down, may help.
  if (admission.granted < want) admission.retry_at = std::min(admission.retry_at, retry_redis_at_);
  return admission;
}

void RedisBackend::Flush(absl::Time now) {
  if (pending_members_.empty() && pending_settlements_.empty()) return;
  if (!Usable(now)) return;
  absl::StatusOr<Reply> reply = Round(/*reserves=*/{}, now);
  if (reply.ok()) {
    Succeeded();
  } else {
    Failed(reply.status(), now);
  }
}

bool RedisBackend::Usable(absl::Time now) {
  if (down_ && now < retry_redis_at_) return false;
  if (client_ != nullptr) return true;
  absl::StatusOr<std::unique_ptr<RedisClient>> client = RedisClient::Create(options_.endpoint, LimiterRedisOptions());
  if (!client.ok()) {
    Failed(client.status(), now);
    return false;
  }
  client_ = std::move(*client);
  return true;
}

void RedisBackend::Failed(const absl::Status& status, absl::Time now) {
  if (!down_) {
    // Messages from the storage layer name the server by RedisEndpoint::Describe(): no password.
    std::fprintf(stderr,
                 "noveltygrid: warning: provider %s: the shared rate limits in Redis at %s are "
                 "unavailable (%s); enforcing them locally, in this process alone, and trying Redis again every %s\n",
                 options_.provider.c_str(), options_.endpoint.Describe().c_str(), std::string(status.message()).c_str(),
                 absl::FormatDuration(options_.cool_down).c_str());
  }
  down_ = true;
  retry_redis_at_ = now + options_.cool_down;
  // The release script may have run before the failure: sending them again could refund twice.
  pending_settlements_.clear();
  admit_sha_.clear();  // a restarted server has lost them
  release_sha_.clear();
}

void RedisBackend::Succeeded() {
  if (down_) {
    std::fprintf(stderr, "noveltygrid: provider %s: Redis at %s answers again; rate limits are cluster-wide again\n",
                 options_.provider.c_str(), options_.endpoint.Describe().c_str());
  }
  down_ = false;
}

absl::Status RedisBackend::LoadScripts() {
  const std::string admit = Script(kAdmitLua);
  const std::string release = Script(kReleaseLua);
  RedisClient::Call call{.name = "SCRIPT LOAD (provider limits)",
                         .key = {},
                         .commands = {{"SCRIPT", "LOAD", admit}, {"SCRIPT", "LOAD", release}}};
  ASSIGN_OR_RETURN(std::vector<storage_internal::Reply> replies, client_->Run(call));
  for (const storage_internal::Reply& reply : replies) {
    if (reply->type != REDIS_REPLY_STRING) {
      return absl::InternalError(absl::StrCat("SCRIPT LOAD at ", client_->where(), " did not return a SHA1"));
    }
  }
  admit_sha_.assign(replies[0]->str, replies[0]->len);
  release_sha_.assign(replies[1]->str, replies[1]->len);
  return absl::OkStatus();
}

absl::StatusOr<RedisBackend::Reply> RedisBackend::Round(const std::vector<int64_t>& reserves, absl::Time now) {
  absl::StatusOr<Reply> reply = RoundOnce(reserves, now);
  if (reply.ok() || !absl::StrContains(reply.status().message(), "NOSCRIPT")) return reply;
  admit_sha_.clear();
  return RoundOnce(reserves, now);
}

absl::StatusOr<RedisBackend::Reply> RedisBackend::RoundOnce(const std::vector<int64_t>& reserves, absl::Time now) {
  if (admit_sha_.empty()) RETURN_IF_ERROR(LoadScripts());
  const int want = static_cast<int>(reserves.size());
  const bool releasing = !pending_members_.empty() || !pending_settlements_.empty();
  const std::string now_ms = options_.server_time ? "0" : absl::StrCat(absl::ToUnixMillis(now));
  // The views in `commands` point into these strings.
  std::vector<std::string> settlement_args = {absl::StrCat(pending_settlements_.size())};
  for (const auto& [minute, s] : pending_settlements_) {
    settlement_args.push_back(absl::StrCat(minute));
    settlement_args.push_back(absl::StrCat(s.excess));
    settlement_args.push_back(absl::StrCat(s.refund));
  }
  const std::string want_arg = absl::StrCat(want);
  const std::string max_in_flight = absl::StrCat(options_.limits.max_in_flight);
  const std::string rpm = absl::StrCat(options_.limits.requests_per_minute);
  const std::string tpm = absl::StrCat(options_.limits.tokens_per_minute);
  const std::string ttl_ms = absl::StrCat(absl::ToInt64Milliseconds(options_.slot_ttl));
  const std::string first_seq = absl::StrCat(next_seq_);

  RedisClient::Call call{.name = "provider limits", .key = inflight_key_, .commands = {}, .idempotent = false};
  if (releasing) {
    Command release = {"EVALSHA", release_sha_, "1", inflight_key_, key_prefix_, now_ms};
    release.insert(release.end(), settlement_args.begin(), settlement_args.end());
    release.insert(release.end(), pending_members_.begin(), pending_members_.end());
    call.commands.push_back(std::move(release));
  }
  std::vector<std::string> reserve_args;  // the views in the admit command point into these
  if (want > 0) {
    Command admit = {"EVALSHA",     admit_sha_, "1", inflight_key_, key_prefix_,    now_ms,   want_arg,
                     max_in_flight, rpm,        tpm, ttl_ms,        member_prefix_, first_seq};
    if (options_.limits.tokens_per_minute > 0) {
      reserve_args.reserve(reserves.size());
      for (int64_t r : reserves) reserve_args.push_back(absl::StrCat(std::max<int64_t>(0, r)));
      admit.insert(admit.end(), reserve_args.begin(), reserve_args.end());
    }
    call.commands.push_back(std::move(admit));
  }
  if (call.commands.empty()) return Reply{};
  ASSIGN_OR_RETURN(std::vector<storage_internal::Reply> replies, client_->Run(call));
  if (releasing) {
    pending_members_.clear();
    pending_settlements_.clear();
  }
  if (want == 0) return Reply{};
  const redisReply* admit = replies.back().get();
  if (admit->type != REDIS_REPLY_ARRAY || admit->elements != 4) {
    return absl::InternalError(absl::StrCat("the provider-limits admit script at ", client_->where(),
                                            " returned an unexpected reply (type ", admit->type, ")"));
  }
  Reply reply;
  reply.granted = static_cast<int>(std::clamp<long long>(admit->element[0]->integer, 0, want));
  reply.wait_ms = admit->element[1]->integer;
  reply.slots_bound = admit->element[2]->integer != 0;
  reply.minute = admit->element[3]->integer;
  return reply;
}

}  // namespace noveltygrid::limits_internal
