#include "common/storage/store_factory.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/storage/memory_store.h"
#include "common/storage/redis_url.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url, const RedisOptions& redis_options) {
  if (url.empty() || url == "memory") return std::make_unique<InMemoryStore>();
  if (absl::StartsWithIgnoreCase(url, "redis://")) {
    ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> store, RedisStore::Connect(url, redis_options));
    return store;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown store \"", MaskRedisUrl(url),
                   "\": use \"memory\" (or leave it empty) for an in-process store, or "
                   "redis://[[user]:password@]host[:port][/db] for Redis, e.g. redis://127.0.0.1:6379/0"));
}

}  // namespace noveltygrid
