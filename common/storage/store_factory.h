// OpenStore: picks the Store implementation from a URL, so that flags and config carry one string.
//
//   ""  or "memory"   -> InMemoryStore (a single-process run; nothing is shared or kept)
//   "redis://..."     -> RedisStore::Connect (see redis_url.h for the full form)
#ifndef NOVELTYGRID_COMMON_STORAGE_STORE_FACTORY_H_
#define NOVELTYGRID_COMMON_STORAGE_STORE_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/storage/redis_store.h"
#include "common/storage/store.h"

namespace noveltygrid {

// InvalidArgument listing the accepted forms for anything else; Redis connection errors as from
// RedisStore::Connect. Passwords never appear in messages.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url, const RedisOptions& redis_options = {});

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STORAGE_STORE_FACTORY_H_
