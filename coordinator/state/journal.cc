#include "coordinator/state/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "common/status_macros.h"

namespace noveltygrid {

namespace {

absl::Status WriteAllAt(int fd, const std::string& data, int64_t offset, const std::string& path) {
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::pwrite(fd, data.data() + written, data.size() - written, static_cast<off_t>(offset + written));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("cannot append to ", path, ": ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  if (::fdatasync(fd) != 0) {
    return absl::InternalError(absl::StrCat("cannot sync ", path, ": ", std::strerror(errno)));
  }
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

// Calls `on_entry` with each committed unit of the journal open at `fd` and where its line is, reading a
// line at a time. A first line naming a plan fingerprint (an older version's header) is read past. A
// last line that is torn or damaged (a crash mid-write) ends the scan; a damaged line before it is
// DataLoss. Returns the bytes of the lines read.
using LineVisitor = std::function<void(JournalEntry entry, int64_t offset, int64_t size)>;
absl::StatusOr<int64_t> ScanJournal(int fd, const std::string& path, const LineVisitor& on_entry) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return absl::InternalError(absl::StrCat("cannot stat ", path, ": ", std::strerror(errno)));
  const int64_t file_size = st.st_size;
  const int dup_fd = ::dup(fd);
  FILE* file = dup_fd < 0 ? nullptr : ::fdopen(dup_fd, "r");
  if (file == nullptr) {
    if (dup_fd >= 0) ::close(dup_fd);
    return absl::InternalError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> closer(file, &::fclose);
  ::rewind(file);
  struct LineBuffer {
    char* data = nullptr;
    size_t capacity = 0;
    ~LineBuffer() { std::free(data); }
  } buffer;
  int64_t offset = 0;
  int64_t line_number = 0;
  while (true) {
    const ssize_t n = ::getline(&buffer.data, &buffer.capacity, file);
    if (n <= 0 || buffer.data[n - 1] != '\n') break;  // the end, or a torn last line: dropped by Load
    ++line_number;
    const absl::string_view line(buffer.data, static_cast<size_t>(n - 1));
    const bool header =
        line_number == 1 && absl::StrContains(line, "\"fingerprint\"") && !absl::StrContains(line, "\"result\"");
    if (!header) {
      absl::StatusOr<JournalEntry> entry = CommittedUnitFromText(std::string(line));
      if (!entry.ok()) {
        if (offset + n < file_size) {
          return absl::DataLossError(absl::StrCat(path, ":", line_number, ": ", entry.status().message()));
        }
        break;  // the last line did not make it whole: dropped by Load
      }
      on_entry(*std::move(entry), offset, n - 1);
    }
    offset += n;
  }
  // getline's -1 is the end of the file or a read error: only the end may let Load truncate anything.
  if (std::ferror(file)) return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  return offset;
}

std::string JournalDir(const std::string& out_dir) {
  return (std::filesystem::path(out_dir) / ".noveltygrid").string();
}

}  // namespace

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

std::string CommittedUnitText(const UnitResult& result, const CallStats& calls) {
  return DumpJson(Json{{"result", UnitResultToJson(result)}, {"calls", CallStatsToJson(calls)}});
}

absl::StatusOr<JournalEntry> CommittedUnitFromText(const std::string& text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("result")) {
    return absl::DataLossError("not a committed unit (no result)");
  }
  absl::StatusOr<UnitResult> result = UnitResultFromJson(j.at("result"));
  if (!result.ok()) return absl::DataLossError(result.status().message());
  return JournalEntry{std::move(*result), CallStatsFromJson(j.value("calls", Json::object()))};
}

absl::Status ReadJournal(const std::string& out_dir, PlannedUnits& planned, const CommittedVisitor& visit) {
  const std::string path = JournalDir(out_dir) + "/journal.jsonl";
  if (!std::filesystem::exists(path)) return absl::OkStatus();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  absl::StatusOr<int64_t> read = ScanJournal(fd, path, [&](JournalEntry entry, int64_t, int64_t) {
    if (planned.Take(entry)) visit(std::move(entry));
  });
  ::close(fd);
  return read.status();
}

absl::StatusOr<std::unique_ptr<ResultJournal>> ResultJournal::Create(const std::string& out_dir) {
  const std::filesystem::path dir = JournalDir(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  const std::string path = (dir / "journal.jsonl").string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
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
                   ScanJournal(fd_, path_, [&](JournalEntry entry, int64_t offset, int64_t size) {
                     lines_.try_emplace(entry.result.unit.id, Line{offset, size});
                     if (planned.Take(entry)) visit(std::move(entry));
                   }));
  if (::ftruncate(fd_, static_cast<off_t>(good_bytes)) != 0) {
    return absl::InternalError(absl::StrCat("cannot prepare ", path_, ": ", std::strerror(errno)));
  }
  size_ = good_bytes;
  loaded_ = true;
  return absl::OkStatus();
}

ResultJournal::~ResultJournal() { ::close(fd_); }

absl::StatusOr<bool> ResultJournal::Append(const UnitResult& result, const CallStats& calls) {
  const std::string line = CommittedUnitText(result, calls) + "\n";
  absl::MutexLock lock(&mu_);
  if (!loaded_) return absl::FailedPreconditionError(absl::StrCat(path_, " is appended to before it is loaded"));
  if (lines_.count(result.unit.id) > 0) return false;
  if (absl::Status written = WriteAllAt(fd_, line, size_, path_); !written.ok()) {
    // Best effort: drop what part of the line made it, so the next append does not leave its tail behind.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      return absl::InternalError(absl::StrCat(written.message(), "; and cannot cut the partial line back"));
    }
    return written;
  }
  lines_.emplace(result.unit.id, Line{size_, static_cast<int64_t>(line.size()) - 1});
  size_ += static_cast<int64_t>(line.size());
  return true;
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
    ASSIGN_OR_RETURN(const std::string text, ReadAt(fd_, line.offset, line.size, path_));
    absl::StatusOr<JournalEntry> entry = CommittedUnitFromText(text);
    if (!entry.ok())
      return absl::DataLossError(absl::StrCat(path_, " at byte ", line.offset, ": ", entry.status().message()));
    RETURN_IF_ERROR(fn(std::move(entry->result)));
  }
  return absl::OkStatus();
}

}  // namespace noveltygrid
