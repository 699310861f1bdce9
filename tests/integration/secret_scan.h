// Secret canaries for the leak tests: distinctive random secrets planted where a user puts real ones
// (the provider API key, the cluster token, the Redis password), and scans that look for them -- in any
// text or bytes, in every file under a folder, and in every key name and DUMPed value of a Redis
// server.
//
// A canary is looked for in the forms a leak would take: verbatim, its random part alone (a prefix
// stripped or a "canary-..." label rewritten), "Bearer <secret>" (an Authorization header echoed),
// and base64 -- standard and web-safe, at each of the three byte alignments, so that base64 of a
// longer text holding the secret (an encoded header, a JSON blob) is caught too.
//
// Plain functions over values; a Redis scan opens its own connection. Used from the test thread.
#ifndef NOVELTYGRID_TESTS_INTEGRATION_SECRET_SCAN_H_
#define NOVELTYGRID_TESTS_INTEGRATION_SECRET_SCAN_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace noveltygrid::testing {

struct Canary {
  std::string what;   // "API key", for messages
  std::string value;  // LABEL-<32 random hex digits>
  // The byte strings whose presence is a leak, each with the name of its form.
  std::vector<std::pair<std::string, std::string>> forms;
};

// A fresh canary "LABEL-<32 random hex digits>" and its forms.
Canary MakeCanary(const std::string& what, const std::string& label);

struct Leak {
  std::string what;     // the canary's `what`
  std::string form;     // "verbatim", "base64 (offset 1)", ...
  std::string where;    // "worker w1 stderr", a file's path, "redis key ng:... (DUMP)"
  std::string context;  // the bytes around it, C-escaped
};

// Every form of every canary found in `bytes`, which come from `where`.
std::vector<Leak> FindLeaks(const std::string& where, absl::string_view bytes, const std::vector<Canary>& canaries);

// FindLeaks over every regular file under `root` (recursively, hidden folders too; `where` is the
// path). Adds the number of files read to `*files`.
std::vector<Leak> ScanFolder(const std::string& root, const std::vector<Canary>& canaries, int* files);

// What a scan of a Redis server saw.
struct RedisScan {
  int64_t keys = 0;  // key names seen, over every database
  std::vector<Leak> leaks;
};

// Every key of every database of the Redis server on 127.0.0.1:`port` (SCAN), its name and its DUMP
// (the raw serialized value: strings, hashes, lists, sets, sorted sets alike). RDB compression is
// turned off first (CONFIG SET rdbcompression no) so that a DUMP holds its strings verbatim.
absl::StatusOr<RedisScan> ScanRedis(int port, const std::string& password, const std::vector<Canary>& canaries);

// One line per leak, for a failure message.
std::string Describe(const std::vector<Leak>& leaks);

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_INTEGRATION_SECRET_SCAN_H_
