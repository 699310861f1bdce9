// Redis URLs: `redis://[[user]:password@]host[:port][/db]`, e.g. "redis://127.0.0.1:6379/0",
// "redis://:s3cret@cache:6379/2", "redis://worker:s3cret@[::1]:6380". The port defaults to 6379 and the
// db to 0; user and password are percent-decoded (write '@' as %40, ':' in a user name as %3A). TLS
// ("rediss://") and query options are not supported.
//
// The password never leaves RedisEndpoint through Describe() or an error message: parse errors quote
// the URL with the password replaced by "***" (MaskRedisUrl).
#ifndef NOVELTYGRID_COMMON_STORAGE_REDIS_URL_H_
#define NOVELTYGRID_COMMON_STORAGE_REDIS_URL_H_

#include <string>

#include "absl/status/statusor.h"

namespace noveltygrid {

struct RedisEndpoint {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string user;      // empty: AUTH with the password alone (the "default" user)
  std::string password;  // empty: no AUTH

  // "redis://host:port/db", without user or password; IPv6 hosts in brackets.
  std::string Describe() const;
};

// InvalidArgument naming the (masked) URL and the accepted form when `url` is malformed.
absl::StatusOr<RedisEndpoint> ParseRedisUrl(const std::string& url);

// `url` with everything between "://" and the last '@' after it replaced by user:*** (or *** when
// there is no user), so that even a malformed URL can be quoted safely.
std::string MaskRedisUrl(const std::string& url);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STORAGE_REDIS_URL_H_
