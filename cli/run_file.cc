#include "cli/run_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"

namespace noveltygrid::cli {
namespace {

std::string StateDir(const std::string& dir) { return dir + "/.noveltygrid"; }
std::string JsonPath(const std::string& dir) { return StateDir(dir) + "/run.json"; }
std::string TokenPath(const std::string& dir) { return StateDir(dir) + "/run.token"; }

std::string HostName() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

// Writes `token` to `path`, readable by its owner only (created so: never world-readable on the way).
absl::Status WriteSecret(const std::string& path, const std::string& token) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  const std::string line = token + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!ok) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace

bool NoveltygridProcessAlive(long long pid) {
  if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0) {
    if (pid > 0 && errno == EPERM) return true;  // alive, another user's
    return false;
  }
  // A pid reused by another program after the run died is not the run.
  std::ifstream comm(absl::StrCat("/proc/", pid, "/comm"));
  std::string name;
  if (!std::getline(comm, name)) return true;  // no /proc: trust kill()
  return absl::StartsWith(name, "noveltygrid");
}

absl::StatusOr<std::unique_ptr<RunFile>> RunFile::Create(const std::string& dir, const RunEndpoint& endpoint) {
  std::error_code error;
  std::filesystem::create_directories(StateDir(dir), error);
  if (error) return absl::UnavailableError(absl::StrCat("cannot create ", StateDir(dir), ": ", error.message()));
  if (absl::StatusOr<RunEndpoint> other = ReadRunFile(dir); other.ok() && other->pid != ::getpid()) {
    return absl::FailedPreconditionError(absl::StrCat("another run (process ", other->pid, ", sweep '", other->sweep,
                                                      "') is writing into ", dir, "; wait for it or stop it first"));
  }
  std::unique_ptr<RunFile> file(new RunFile(dir));
  if (absl::Status written = WriteSecret(TokenPath(dir), endpoint.token); !written.ok()) return written;
  const Json run{{"address", endpoint.address},
                 {"pid", static_cast<long long>(::getpid())},
                 {"host", HostName()},
                 {"sweep", endpoint.sweep}};
  if (absl::Status written = WriteFileAtomically(JsonPath(dir), run.dump() + "\n"); !written.ok()) return written;
  return file;
}

void RunFile::Remove() {
  if (removed_) return;
  removed_ = true;
  ::unlink(JsonPath(dir_).c_str());  // first: a reader never finds run.json without its token
  ::unlink(TokenPath(dir_).c_str());
}

absl::StatusOr<RunEndpoint> ReadRunFile(const std::string& dir) {
  const std::string path = JsonPath(dir);
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(absl::StrCat("no sweep is running into ", dir, " (no ", path,
                                            "; `noveltygrid run ... --out ", dir,
                                            "` writes it while it runs); for a cluster, pass --coordinator HOST:PORT"));
  }
  absl::StatusOr<Json> run = ReadJsonFile(path);
  if (!run.ok() || !run->is_object()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", path, ": ", run.ok() ? "not a JSON object" : run.status().message()));
  }
  RunEndpoint endpoint;
  endpoint.address = StringAt(*run, "address");
  endpoint.host = StringAt(*run, "host");
  endpoint.sweep = StringAt(*run, "sweep");
  endpoint.pid = run->value("pid", 0LL);
  if (endpoint.host.empty() || endpoint.host == HostName()) {
    if (!NoveltygridProcessAlive(endpoint.pid)) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, " is stale: the run that wrote it (process ", endpoint.pid,
                       ") is no longer running -- it was killed before it could remove the file. Nothing is "
                       "running into ",
                       dir, "; re-run the same `noveltygrid run` command to resume the sweep"));
    }
  }
  absl::StatusOr<std::string> token = ReadFile(TokenPath(dir));
  if (!token.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("cannot read ", TokenPath(dir), " (", token.status().message(),
                                                      "): only the user who started the run may ask its status"));
  }
  endpoint.token = std::string(absl::StripAsciiWhitespace(*token));
  return endpoint;
}

}  // namespace noveltygrid::cli
