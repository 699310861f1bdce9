#include "tests/integration/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace noveltygrid::testing {
namespace {

// The environment of this process, edited as `options` asks, as "NAME=VALUE" strings.
std::vector<std::string> ChildEnvironment(const ProcessOptions& options) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const std::string& name : options.unset_env) env.erase(name);
  for (const auto& [name, value] : options.env) env[name] = value;
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(absl::StrCat(name, "=", value));
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Process>> Process::Start(ProcessOptions options) {
  if (options.args.empty()) return absl::InvalidArgumentError("Process::Start: no executable");
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe2: ", std::strerror(errno)));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return absl::InternalError(absl::StrCat("pipe2: ", std::strerror(errno)));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  // The child starts with no blocked signals and default dispositions, whatever this process set up.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> env = ChildEnvironment(options);
  std::vector<char*> argv = Pointers(options.args);
  std::vector<char*> envp = Pointers(env);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);  // the child holds the write ends now; EOF arrives when it exits
  ::close(err[1]);
  if (rc != 0) {
    ::close(out[0]);
    ::close(err[0]);
    return absl::FailedPreconditionError(absl::StrCat("cannot start ", options.args[0], ": ", std::strerror(rc)));
  }

  std::unique_ptr<Process> p(new Process(pid, options.timeout));
  p->stdout_reader_ = std::thread([self = p.get(), fd = out[0]] { self->ReadPipe(fd, Stream::kStdout); });
  p->stderr_reader_ = std::thread([self = p.get(), fd = err[0]] { self->ReadPipe(fd, Stream::kStderr); });
  p->reaper_ = std::thread([self = p.get()] { self->Reap(); });
  p->watchdog_ = std::thread([self = p.get()] { self->Watchdog(); });
  return p;
}

Process::Process(pid_t pid, absl::Duration timeout) : pid_(pid), deadline_(absl::Now() + timeout) {}

Process::~Process() {
  Signal(SIGKILL);
  reaper_.join();
  watchdog_.join();
  stdout_reader_.join();
  stderr_reader_.join();
}

void Process::ReadPipe(int fd, Stream stream) {
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    absl::MutexLock lock(&mu_);
    if (n <= 0) {
      captured(stream).closed = true;
      break;
    }
    captured(stream).text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
}

void Process::Reap() {
  // Wait for the exit without reaping, so the pid stays ours until `exited_` is recorded.
  siginfo_t info;
  while (::waitid(P_PID, pid_, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  {
    absl::MutexLock lock(&mu_);
    exited_ = true;
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  absl::MutexLock lock(&mu_);
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

void Process::Watchdog() {
  absl::MutexLock lock(&mu_);
  auto exited = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return exited_; };
  if (mu_.AwaitWithDeadline(absl::Condition(&exited), deadline_)) return;
  timed_out_ = true;
  ::kill(pid_, SIGKILL);
}

void Process::Signal(int signal) {
  absl::MutexLock lock(&mu_);
  if (!exited_) ::kill(pid_, signal);
}

absl::StatusOr<std::string> Process::WaitForLine(Stream stream, const std::function<bool(const std::string&)>& match,
                                                 absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  size_t scanned = 0;  // offset of the first line not yet matched against
  std::optional<std::string> found;
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const Captured& c = captured(stream);
    for (size_t end; (end = c.text.find('\n', scanned)) != std::string::npos; scanned = end + 1) {
      std::string line = c.text.substr(scanned, end - scanned);
      if (match(line)) {
        found = std::move(line);
        return true;
      }
    }
    return c.closed;
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (found.has_value()) return *found;
  const char* name = stream == Stream::kStdout ? "stdout" : "stderr";
  if (captured(stream).closed) {
    return absl::NotFoundError(absl::StrCat("the child's ", name, " ended without the expected line"));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("no expected line on the child's ", name, " within ", absl::FormatDuration(timeout)));
}

absl::StatusOr<std::string> Process::WaitForStdoutPrefix(const std::string& prefix, absl::Duration timeout) {
  return WaitForLine(
      Stream::kStdout, [&prefix](const std::string& line) { return absl::StartsWith(line, prefix); }, timeout);
}

int Process::Wait() {
  absl::MutexLock lock(&mu_);
  auto finished = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return Finished(); };
  mu_.Await(absl::Condition(&finished));  // bounded: the watchdog kills the child at the deadline
  return *exit_code_;
}

std::optional<int> Process::WaitFor(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto finished = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return Finished(); };
  if (!mu_.AwaitWithTimeout(absl::Condition(&finished), timeout)) return std::nullopt;
  return *exit_code_;
}

bool Process::timed_out() const {
  absl::MutexLock lock(&mu_);
  return timed_out_;
}

std::string Process::Stdout() const {
  absl::MutexLock lock(&mu_);
  return stdout_.text;
}

std::string Process::Stderr() const {
  absl::MutexLock lock(&mu_);
  return stderr_.text;
}

std::string Process::Output() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("--- pid ", pid_, timed_out_ ? " (killed at its deadline)" : "", " stdout ---\n", stdout_.text,
                      "--- stderr ---\n", stderr_.text);
}

}  // namespace noveltygrid::testing
