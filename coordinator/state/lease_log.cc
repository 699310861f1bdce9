#include "coordinator/state/lease_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "common/storage/keys.h"
#include "coordinator/state/journal.h"

namespace noveltygrid {

namespace {

constexpr char kLeaseLogName[] = "leases.log";

// "LEASE_ID TOKEN WORKER" (the worker id C-escaped, so it holds no newline); a file line starts with the
// unit id and a space.
std::string Value(const LeaseRecord& r) {
  return absl::StrCat(r.lease_id, " ", r.fencing_token, " ", absl::CEscape(r.worker_id));
}

// Nullopt for what no version wrote (a garbled line or value): such a record is skipped, which only
// means that unit is leased afresh.
std::optional<LeaseRecord> Parse(std::string unit_id, absl::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits(' ', 2));
  LeaseRecord r;
  if (unit_id.empty() || parts.size() != 3 || parts[0].empty() || !absl::SimpleAtoi(parts[1], &r.fencing_token) ||
      !absl::CUnescape(parts[2], &r.worker_id)) {
    return std::nullopt;
  }
  r.unit_id = std::move(unit_id);
  r.lease_id = std::string(parts[0]);
  return r;
}

std::string Lines(const std::vector<LeaseRecord>& leases) {
  std::string out;
  for (const LeaseRecord& r : leases) absl::StrAppend(&out, r.unit_id, " ", Value(r), "\n");
  return out;
}

absl::Status WriteAll(int fd, absl::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> OpenForAppend(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  return fd;
}

// Truncates the file open at `fd` after its last newline.
absl::Status CutTornLine(const std::string& path, int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return absl::InternalError(absl::StrCat("cannot stat ", path, ": ", std::strerror(errno)));
  const int reader = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  off_t end = st.st_size;  // keep [0, end)
  char block[4096];
  while (end > 0) {
    const off_t start = std::max<off_t>(0, end - static_cast<off_t>(sizeof(block)));
    const ssize_t n = ::pread(reader, block, static_cast<size_t>(end - start), start);
    if (n != end - start) {  // unreadable: leave the file as it is; Load reports the error
      end = st.st_size;
      break;
    }
    const void* newline = ::memrchr(block, '\n', static_cast<size_t>(n));
    if (newline != nullptr) {
      end = start + (static_cast<const char*>(newline) - block) + 1;
      break;
    }
    end = start;
  }
  ::close(reader);
  if (end == st.st_size || ::ftruncate(fd, end) == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("cannot truncate ", path, ": ", std::strerror(errno)));
}

// Keeps the record with the higher fencing token (two leases of a unit recorded out of order), else the
// later one.
void Keep(LeaseRecord r, std::map<std::string, LeaseRecord>& by_unit) {
  auto [it, inserted] = by_unit.try_emplace(r.unit_id, r);
  if (!inserted && r.fencing_token >= it->second.fencing_token) it->second = std::move(r);
}

// Latest record per unit, in unit id order.
std::vector<LeaseRecord> Latest(std::map<std::string, LeaseRecord> by_unit) {
  std::vector<LeaseRecord> out;
  out.reserve(by_unit.size());
  for (auto& [unit_id, record] : by_unit) out.push_back(std::move(record));
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FileLeaseLog>> FileLeaseLog::Open(const std::string& out_dir) {
  const std::string dir = StateDir(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  // One coordinator per folder: a second one would replace the first one's log under it.
  const std::string lock_path = absl::StrCat(dir, "/coordinator.lock");
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return absl::InternalError(absl::StrCat("cannot open ", lock_path, ": ", std::strerror(errno)));
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(lock);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("another coordinator is running on ", out_dir, " (", lock_path, " is held); stop it first"));
    }
    return absl::InternalError(absl::StrCat("cannot lock ", lock_path, ": ", std::strerror(error)));
  }
  const std::string path = absl::StrCat(dir, "/", kLeaseLogName);
  absl::StatusOr<int> opened = OpenForAppend(path);
  if (!opened.ok()) {
    ::close(lock);
    return opened.status();
  }
  const int fd = *opened;
  // A torn last line (a crash mid-write) is cut off, so that the next record starts a line of its own.
  if (absl::Status cut = CutTornLine(path, fd); !cut.ok()) {
    ::close(fd);
    ::close(lock);
    return cut;
  }
  return std::unique_ptr<FileLeaseLog>(new FileLeaseLog(path, fd, lock));
}

FileLeaseLog::~FileLeaseLog() {
  absl::MutexLock lock(&mu_);
  ::close(fd_);
  ::close(lock_fd_);  // releases the folder
}

absl::Status FileLeaseLog::Record(const std::vector<LeaseRecord>& leases) {
  if (leases.empty()) return absl::OkStatus();
  const std::string lines = Lines(leases);
  absl::MutexLock lock(&mu_);
  return WriteAll(fd_, lines, path_);  // one write(2) for a batch this size: no torn batch between records
}

absl::StatusOr<std::vector<LeaseRecord>> FileLeaseLog::Load() {
  absl::MutexLock lock(&mu_);
  std::ifstream in(path_, std::ios::binary);
  if (!in) return std::vector<LeaseRecord>{};
  std::map<std::string, LeaseRecord> by_unit;
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: a torn last line
    const size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    std::optional<LeaseRecord> r = Parse(line.substr(0, space), absl::string_view(line).substr(space + 1));
    if (r.has_value()) Keep(std::move(*r), by_unit);
  }
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read ", path_));
  return Latest(std::move(by_unit));
}

absl::Status FileLeaseLog::Reset(const std::vector<LeaseRecord>& leases) {
  // Written beside the log and renamed over it: a crash leaves the old log or the new one.
  const std::string fresh = path_ + ".new";
  ASSIGN_OR_RETURN(const int fd, OpenForAppend(fresh));
  absl::Status written = ::ftruncate(fd, 0) == 0
                             ? WriteAll(fd, Lines(leases), fresh)
                             : absl::InternalError(absl::StrCat("cannot truncate ", fresh, ": ", std::strerror(errno)));
  if (written.ok() && ::fdatasync(fd) != 0) {
    written = absl::InternalError(absl::StrCat("cannot sync ", fresh, ": ", std::strerror(errno)));
  }
  absl::MutexLock lock(&mu_);
  if (written.ok() && ::rename(fresh.c_str(), path_.c_str()) != 0) {
    written = absl::InternalError(absl::StrCat("cannot rename ", fresh, ": ", std::strerror(errno)));
  }
  if (!written.ok()) {
    ::close(fd);
    return written;
  }
  ::close(fd_);
  fd_ = fd;  // O_APPEND on the renamed file
  return absl::OkStatus();
}

StoreLeaseLog::StoreLeaseLog(Store* store, const std::string& sweep) : store_(store), key_(keys::SweepLeases(sweep)) {}

absl::Status StoreLeaseLog::Record(const std::vector<LeaseRecord>& leases) {
  // One HSET for the whole Lease reply: a round trip per lease held the caller (a gRPC thread) for
  // hundreds of round trips when a worker leased hundreds of units at once.
  std::vector<std::pair<std::string, std::string>> entries;
  entries.reserve(leases.size());
  for (const LeaseRecord& r : leases) entries.emplace_back(r.unit_id, Value(r));
  return store_->HashSetMany(key_, entries);
}

absl::StatusOr<std::vector<LeaseRecord>> StoreLeaseLog::Load() {
  ASSIGN_OR_RETURN(auto fields, store_->HashGetAll(key_));
  std::map<std::string, LeaseRecord> by_unit;
  for (auto& [unit_id, value] : fields) {
    std::optional<LeaseRecord> r = Parse(unit_id, value);
    if (r.has_value()) Keep(std::move(*r), by_unit);
  }
  return Latest(std::move(by_unit));
}

absl::Status StoreLeaseLog::Reset(const std::vector<LeaseRecord>& leases) {
  RETURN_IF_ERROR(store_->Delete(key_));
  return Record(leases);
}

}  // namespace noveltygrid
