// ParseRedisUrl and MaskRedisUrl (common/storage/redis_url.h) on any text: --redis URL and
// NOVELTYGRID_REDIS_URL. An accepted URL must describe a usable endpoint that Describe() writes back
// to the same endpoint, and the masked form must hide exactly the password.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "common/storage/redis_url.h"
#include "tests/fuzz/fuzz_util.h"

namespace noveltygrid {
namespace {

void CheckEndpoint(const std::string& url, const RedisEndpoint& endpoint) {
  FUZZ_CHECK(!endpoint.host.empty());
  FUZZ_CHECK(endpoint.port >= 1 && endpoint.port <= 65535);
  FUZZ_CHECK(endpoint.db >= 0 && endpoint.db <= 1'000'000);
  const std::string masked = MaskRedisUrl(url);
  if (!endpoint.password.empty()) {
    // The password is everything between the first ':' of the user info and the last '@'.
    const size_t at = url.rfind('@');
    const size_t colon = url.find(':', 8);  // past "redis://"
    FUZZ_CHECK(at != std::string::npos && colon < at);
    FUZZ_CHECK(masked == url.substr(0, colon + 1) + "***" + url.substr(at), masked);
  } else {
    FUZZ_CHECK(masked == url, masked);
  }
  // Hosts with brackets of their own ("[[h]") do not survive Describe(); any other does.
  if (endpoint.host.find_first_of("[]") != std::string::npos) return;
  const absl::StatusOr<RedisEndpoint> again = ParseRedisUrl(endpoint.Describe());
  FUZZ_CHECK(again.ok(), again.status().ToString());
  FUZZ_CHECK(again->host == endpoint.host && again->port == endpoint.port && again->db == endpoint.db,
             endpoint.Describe());
  FUZZ_CHECK(again->password.empty() && again->user.empty());
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const std::string url(fuzz::AsText(data, size));
  const absl::StatusOr<RedisEndpoint> endpoint = ParseRedisUrl(url);
  if (endpoint.ok()) {
    CheckEndpoint(url, *endpoint);
  } else {
    FUZZ_CHECK(absl::IsInvalidArgument(endpoint.status()), endpoint.status().ToString());
  }
  return 0;
}
