#include "coordinator/state/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/status_macros.h"
#include "zlib.h"

namespace noveltygrid {

namespace {

constexpr char kJournalName[] = "journal.bin";
constexpr char kLegacyJournalName[] = "journal.jsonl";  // earlier versions' JSON lines
// A record's header: the stored bytes' length and CRC-32, then the CRC-32 of those 8 bytes (so a damaged
// length is told from a torn record).
constexpr int64_t kHeaderBytes = 12;

absl::Status WriteAllAt(int fd, absl::string_view data, int64_t offset, const std::string& path) {
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::pwrite(fd, data.data() + written, data.size() - written, static_cast<off_t>(offset + written));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("cannot append to ", path, ": ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status Sync(int fd, const std::string& path) {
  if (::fdatasync(fd) != 0) return absl::InternalError(absl::StrCat("cannot sync ", path, ": ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadAt(int fd, int64_t offset, int64_t size, const std::string& path) {
  std::string data(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::pread(fd, data.data() + got, data.size() - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::DataLossError(absl::StrCat("cannot read ", path, " at byte ", offset, ": ",
                                              n < 0 ? std::strerror(errno) : "the file is shorter"));
    }
    got += static_cast<size_t>(n);
  }
  return data;
}

uint32_t Crc32(absl::string_view bytes) {
  return static_cast<uint32_t>(
      ::crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

void PutLe32(uint32_t value, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint32_t GetLe32(const char* p) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return value;
}

// A journal record: header and the stored unit.
std::string Record(const std::string& stored, uint32_t crc) {
  std::string record;
  record.reserve(kHeaderBytes + stored.size());
  PutLe32(static_cast<uint32_t>(stored.size()), &record);
  PutLe32(crc, &record);
  PutLe32(Crc32(record), &record);
  record += stored;
  return record;
}

// Receives each unit a scan finds, with where its stored bytes are and their CRC-32 (0 in a legacy
// journal).
using EntryVisitor = std::function<void(JournalEntry entry, int64_t offset, int64_t size, uint32_t crc)>;

// A FILE reading the file open at `fd` from its start (through a duplicate: `fd` stays open).
absl::StatusOr<std::unique_ptr<FILE, int (*)(FILE*)>> ReadFromStart(int fd, const std::string& path) {
  const int dup_fd = ::dup(fd);
  FILE* file = dup_fd < 0 ? nullptr : ::fdopen(dup_fd, "r");
  if (file == nullptr) {
    if (dup_fd >= 0) ::close(dup_fd);
    return absl::InternalError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  ::rewind(file);
  return std::unique_ptr<FILE, int (*)(FILE*)>(file, &::fclose);
}

absl::StatusOr<int64_t> FileSize(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return absl::InternalError(absl::StrCat("cannot stat ", path, ": ", std::strerror(errno)));
  return static_cast<int64_t>(st.st_size);
}

// True when `header` and the rest of `file` are zero bytes: the zero-filled tail some filesystems leave
// when a crash cuts a write short.
bool ZeroTail(const char* header, FILE* file) {
  if (std::any_of(header, header + kHeaderBytes, [](char c) { return c != 0; })) return false;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
    if (std::any_of(chunk, chunk + n, [](char c) { return c != 0; })) return false;
  }
  return true;
}

// Calls `on_entry` with each record of the journal open at `fd`, reading a record at a time. A last
// record that is torn (a crash mid-write: cut short, or zero-filled) ends the scan; a damaged record
// before it, a damaged header, or a read error is DataLoss. Returns the bytes of the whole records read.
absl::StatusOr<int64_t> ScanRecords(int fd, const std::string& path, const EntryVisitor& on_entry) {
  ASSIGN_OR_RETURN(const int64_t file_size, FileSize(fd, path));
  ASSIGN_OR_RETURN(auto file, ReadFromStart(fd, path));
  int64_t offset = 0;
  std::string stored;
  char header[kHeaderBytes];
  while (std::fread(header, 1, kHeaderBytes, file.get()) == kHeaderBytes) {
    if (Crc32(absl::string_view(header, 8)) != GetLe32(header + 8)) {
      if (ZeroTail(header, file.get())) break;
      return absl::DataLossError(absl::StrCat(path, " at byte ", offset, ": the record's header is damaged"));
    }
    const uint32_t size = GetLe32(header);
    const uint32_t crc = GetLe32(header + 4);
    const int64_t end = offset + kHeaderBytes + size;
    if (end > file_size) break;  // torn: the record's bytes did not all make it
    stored.resize(size);
    if (std::fread(stored.data(), 1, size, file.get()) != size) break;
    absl::StatusOr<JournalEntry> entry = Crc32(stored) == crc
                                             ? CommittedUnitFromBytes(stored)
                                             : absl::DataLossError("the record's checksum does not match");
    if (!entry.ok()) {
      if (end < file_size) {
        return absl::DataLossError(absl::StrCat(path, " at byte ", offset, ": ", entry.status().message()));
      }
      break;  // the last record did not make it whole: dropped by Load
    }
    on_entry(*std::move(entry), offset + kHeaderBytes, size, crc);
    offset = end;
  }
  // A short read is the end of the file or a read error: only the end may let Load truncate anything.
  if (std::ferror(file.get()))
    return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  return offset;
}

// The same over an earlier version's JSON-lines journal: one unit per line; a first line naming a plan
// fingerprint (a still older header) is read past; a torn last line is dropped.
absl::Status ScanLegacyLines(int fd, const std::string& path, const EntryVisitor& on_entry) {
  ASSIGN_OR_RETURN(const int64_t file_size, FileSize(fd, path));
  ASSIGN_OR_RETURN(auto file, ReadFromStart(fd, path));
  struct LineBuffer {
    char* data = nullptr;
    size_t capacity = 0;
    ~LineBuffer() { std::free(data); }
  } buffer;
  int64_t offset = 0;
  int64_t line_number = 0;
  while (true) {
    const ssize_t n = ::getline(&buffer.data, &buffer.capacity, file.get());
    if (n <= 0 || buffer.data[n - 1] != '\n') break;  // the end, or a torn last line
    ++line_number;
    const absl::string_view line(buffer.data, static_cast<size_t>(n - 1));
    const bool header =
        line_number == 1 && absl::StrContains(line, "\"fingerprint\"") && !absl::StrContains(line, "\"result\"");
    if (!header) {
      absl::StatusOr<JournalEntry> entry = CommittedUnitFromBytes(line);
      if (!entry.ok()) {
        if (offset + n < file_size) {
          return absl::DataLossError(absl::StrCat(path, ":", line_number, ": ", entry.status().message()));
        }
        break;
      }
      on_entry(*std::move(entry), offset, n - 1, 0);
    }
    offset += n;
  }
  if (std::ferror(file.get()))
    return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  return absl::OkStatus();
}

// Opens `path` read-only and scans it with `scan`; a missing file holds nothing.
template <typename Scan>
absl::Status ScanFileIfPresent(const std::string& path, const Scan& scan) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return absl::OkStatus();
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  absl::Status status = scan(fd);
  ::close(fd);
  return status;
}

// Makes the entries of folder `dir` (a file created or removed in it) durable.
absl::Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", dir, ": ", std::strerror(errno)));
  const int synced = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0) return absl::InternalError(absl::StrCat("cannot sync ", dir, ": ", std::strerror(error)));
  return absl::OkStatus();
}

}  // namespace

std::string StateDir(const std::string& out_dir) { return (std::filesystem::path(out_dir) / ".noveltygrid").string(); }

CommittedVisitor CollectInto(std::vector<JournalEntry>* committed) {
  return [committed](JournalEntry entry) { committed->push_back(std::move(entry)); };
}

PlannedUnits::PlannedUnits(const std::vector<UnitSpec>& units) {
  ids_.reserve(units.size());
  for (const UnitSpec& unit : units) {
    by_id_.emplace(unit.id, &unit);
    ids_.push_back(unit.id);
  }
}

const UnitSpec* PlannedUnits::Find(const std::string& unit_id) const {
  auto it = by_id_.find(unit_id);
  return it == by_id_.end() ? nullptr : it->second;
}

bool PlannedUnits::Take(JournalEntry& entry) {
  const UnitSpec* unit = Find(entry.result.unit.id);
  if (unit == nullptr || !taken_.emplace(unit->id, true).second) return false;
  entry.result.unit = *unit;
  return true;
}

absl::Status ReadJournal(const std::string& out_dir, PlannedUnits& planned, const CommittedVisitor& visit) {
  const EntryVisitor take = [&](JournalEntry entry, int64_t, int64_t, uint32_t) {
    if (planned.Take(entry)) visit(std::move(entry));
  };
  const std::string dir = StateDir(out_dir);
  RETURN_IF_ERROR(ScanFileIfPresent(dir + "/" + kJournalName,
                                    [&](int fd) { return ScanRecords(fd, dir + "/" + kJournalName, take).status(); }));
  return ScanFileIfPresent(dir + "/" + kLegacyJournalName,
                           [&](int fd) { return ScanLegacyLines(fd, dir + "/" + kLegacyJournalName, take); });
}

absl::StatusOr<std::vector<std::string>> JournalUnitIds(const std::string& out_dir) {
  std::vector<std::string> ids;
  const std::string path = StateDir(out_dir) + "/" + kJournalName;
  RETURN_IF_ERROR(ScanFileIfPresent(path, [&](int fd) {
    return ScanRecords(fd, path,
                       [&](JournalEntry entry, int64_t, int64_t, uint32_t) { ids.push_back(entry.result.unit.id); })
        .status();
  }));
  return ids;
}

absl::StatusOr<std::unique_ptr<ResultJournal>> ResultJournal::Create(const std::string& out_dir) {
  const std::filesystem::path dir = StateDir(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  const std::string path = (dir / kJournalName).string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  if (absl::Status synced = SyncDir(dir.string()); !synced.ok()) {  // the file's entry, if it was just created
    ::close(fd);
    return synced;
  }
  return std::unique_ptr<ResultJournal>(new ResultJournal(path, fd));
}

absl::StatusOr<std::unique_ptr<ResultJournal>> ResultJournal::Open(const std::string& out_dir, PlannedUnits& planned,
                                                                   const CommittedVisitor& visit) {
  ASSIGN_OR_RETURN(std::unique_ptr<ResultJournal> journal, Create(out_dir));
  RETURN_IF_ERROR(journal->Load(planned, visit));
  return journal;
}

absl::Status ResultJournal::Load(PlannedUnits& planned, const CommittedVisitor& visit) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const int64_t good_bytes,
                   ScanRecords(fd_, path_,
                               [&](JournalEntry entry, int64_t offset, int64_t size, uint32_t crc)
                                   ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {  // called within Load, under the lock
                                     lines_.try_emplace(entry.result.unit.id, Line{offset, size, crc});
                                     if (planned.Take(entry)) visit(std::move(entry));
                                   }));
  if (::ftruncate(fd_, static_cast<off_t>(good_bytes)) != 0) {
    return absl::InternalError(absl::StrCat("cannot prepare ", path_, ": ", std::strerror(errno)));
  }
  size_ = good_bytes;
  RETURN_IF_ERROR(MoveLegacyJournal(planned, visit));
  // Room for what is stored and every planned unit besides (a journal may also hold units of other
  // configs), so that no commit waits while the index rehashes (at a few hundred thousand entries,
  // tens of milliseconds with the journal's lock held).
  lines_.reserve(lines_.size() + planned.ids().size());
  loaded_ = true;
  return absl::OkStatus();
}

absl::Status ResultJournal::MoveLegacyJournal(PlannedUnits& planned, const CommittedVisitor& visit) {
  const std::string legacy = (std::filesystem::path(path_).parent_path() / kLegacyJournalName).string();
  absl::Status written;
  RETURN_IF_ERROR(ScanFileIfPresent(legacy, [&](int fd) {
    return ScanLegacyLines(
        fd, legacy, [&](JournalEntry entry, int64_t, int64_t, uint32_t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          // called within MoveLegacyJournal, under the lock
          if (!written.ok() || lines_.count(entry.result.unit.id) > 0) return;  // the first stored is kept
          const std::string stored = CommittedUnitBytes(entry.result, entry.calls);
          const uint32_t crc = Crc32(stored);
          written = WriteAllAt(fd_, Record(stored, crc), size_, path_);
          if (!written.ok()) return;
          lines_.emplace(entry.result.unit.id, Line{size_ + kHeaderBytes, static_cast<int64_t>(stored.size()), crc});
          size_ += kHeaderBytes + static_cast<int64_t>(stored.size());
          if (planned.Take(entry)) visit(std::move(entry));
        });
  }));
  std::error_code ec;
  if (!std::filesystem::exists(legacy, ec)) return absl::OkStatus();
  RETURN_IF_ERROR(written);
  RETURN_IF_ERROR(Sync(fd_, path_));
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  RETURN_IF_ERROR(SyncDir(dir));
  // Every unit of the old journal is in this one, synced: the old one can go.
  std::filesystem::remove(legacy, ec);
  if (ec)
    return absl::InternalError(absl::StrCat("cannot remove ", legacy, " (moved into ", path_, "): ", ec.message()));
  return SyncDir(dir);
}

ResultJournal::~ResultJournal() { ::close(fd_); }

absl::StatusOr<bool> CommitLog::Append(const UnitResult& result, const CallStats& calls) {
  ASSIGN_OR_RETURN(const std::vector<bool> stored, AppendMany({JournalEntry{result, calls}}));
  return stored.front();
}

absl::StatusOr<std::vector<bool>> ResultJournal::AppendMany(const std::vector<JournalEntry>& units) {
  std::vector<std::string> stored;  // serialised outside the lock
  stored.reserve(units.size());
  for (const JournalEntry& unit : units) stored.push_back(CommittedUnitBytes(unit));
  absl::MutexLock lock(&mu_);
  if (!loaded_) return absl::FailedPreconditionError(absl::StrCat(path_, " is appended to before it is loaded"));
  std::vector<bool> appended(units.size(), false);
  std::vector<std::pair<const std::string*, Line>> added;  // indexed once the records are durable
  absl::flat_hash_set<std::string_view> ids;               // of `added`
  std::string records;
  int64_t end = size_;
  for (size_t i = 0; i < units.size(); ++i) {
    const std::string& id = units[i].result.unit.id;
    if (lines_.count(id) > 0 || !ids.insert(id).second) continue;
    const uint32_t crc = Crc32(stored[i]);
    records += Record(stored[i], crc);
    added.emplace_back(&id, Line{end + kHeaderBytes, static_cast<int64_t>(stored[i].size()), crc});
    end = static_cast<int64_t>(size_ + records.size());
    appended[i] = true;
  }
  if (records.empty()) return appended;
  absl::Status written = WriteAllAt(fd_, records, size_, path_);
  if (written.ok()) written = Sync(fd_, path_);
  if (!written.ok()) {
    // Best effort: drop what part of the records made it, so the next append does not leave its tail behind.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      return absl::InternalError(absl::StrCat(written.message(), "; and cannot cut the partial records back"));
    }
    return written;
  }
  for (const auto& [id, line] : added) lines_.emplace(*id, line);
  size_ = end;
  return appended;
}

absl::Status ResultJournal::ForEachUnit(const std::vector<std::string>& ids,
                                        const std::function<absl::Status(UnitResult)>& fn) const {
  std::vector<Line> lines;
  lines.reserve(ids.size());
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& id : ids) {
      auto it = lines_.find(id);
      if (it == lines_.end()) return absl::NotFoundError(absl::StrCat("unit ", id, " is not in ", path_));
      lines.push_back(it->second);
    }
  }
  for (const Line& line : lines) {
    ASSIGN_OR_RETURN(const std::string stored, ReadAt(fd_, line.offset, line.size, path_));
    absl::StatusOr<JournalEntry> entry = CommittedUnitFromBytes(stored);
    if (!entry.ok())
      return absl::DataLossError(absl::StrCat(path_, " at byte ", line.offset, ": ", entry.status().message()));
    RETURN_IF_ERROR(fn(std::move(entry->result)));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ResultJournal::ContentDigest(const std::vector<std::string>& ids) const {
  StableHasher hasher;
  absl::MutexLock lock(&mu_);
  for (const std::string& id : ids) {
    auto it = lines_.find(id);
    if (it == lines_.end()) return absl::NotFoundError(absl::StrCat("unit ", id, " is not in ", path_));
    hasher.Add(id).Add(static_cast<uint64_t>(it->second.crc));
  }
  return hasher.Finish();
}

}  // namespace noveltygrid
