// How `noveltygrid status --out DIR` finds a sweep that `noveltygrid run` is running into DIR. While it
// runs, `run` keeps two files in DIR/.noveltygrid/ and removes them when it ends:
//
//   run.json    {"address": "127.0.0.1:PORT", "pid": N, "host": HOSTNAME, "sweep": NAME}
//   run.token   the run's per-run random token (mode 0600; its owner alone can read it)
//
// The token is never printed, logged or put in run.json: status reads it from run.token and sends it
// as the gRPC authorization metadata, like a cluster's shared token. A run.json left behind by a run
// that was killed names a process that is gone: reading it says so.
#ifndef NOVELTYGRID_CLI_RUN_FILE_H_
#define NOVELTYGRID_CLI_RUN_FILE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace noveltygrid::cli {

struct RunEndpoint {
  std::string address;  // HOST:PORT of the run's coordinator
  std::string token;
  long long pid = 0;
  std::string host;
  std::string sweep;
};

// The files of a run that is going on; destroying it (or Remove()) removes them.
class RunFile {
 public:
  // Writes DIR/.noveltygrid/run.token, then run.json. Fails (FailedPrecondition) when a live
  // `noveltygrid` process on this machine already runs into DIR.
  static absl::StatusOr<std::unique_ptr<RunFile>> Create(const std::string& dir, const RunEndpoint& endpoint);
  ~RunFile() { Remove(); }
  RunFile(const RunFile&) = delete;
  RunFile& operator=(const RunFile&) = delete;
  void Remove();

 private:
  explicit RunFile(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  bool removed_ = false;
};

// The run going on in DIR. NotFound when DIR has no run.json (no run, or one that ended);
// FailedPrecondition when run.json names a process of this machine that is no longer running, or a
// file is unreadable. Messages say what to do; they never hold the token.
absl::StatusOr<RunEndpoint> ReadRunFile(const std::string& dir);

// Whether `pid` is a running noveltygrid process on this machine (tests use it with other pids).
bool NoveltygridProcessAlive(long long pid);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_RUN_FILE_H_
