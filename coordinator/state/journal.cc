#include "coordinator/state/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "common/records_json.h"

namespace noveltygrid {

namespace {
absl::Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::write(fd, data.data() + written, data.size() - written);
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
}  // namespace

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

bool PlannedUnits::Take(JournalEntry entry, std::vector<JournalEntry>& committed) {
  const UnitSpec* unit = Find(entry.result.unit.id);
  if (unit == nullptr || !taken_.emplace(unit->id, true).second) return false;
  entry.result.unit = *unit;
  committed.push_back(std::move(entry));
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

namespace {

std::string JournalDir(const std::string& out_dir) {
  return (std::filesystem::path(out_dir) / ".noveltygrid").string();
}

// Reads the journal at `path` (absent: nothing); returns the bytes of its whole lines.
absl::StatusOr<size_t> ReadJournalFile(const std::string& path, PlannedUnits& planned,
                                       std::vector<JournalEntry>* committed) {
  size_t good_bytes = 0;
  if (!std::filesystem::exists(path)) return good_bytes;
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  size_t offset = 0;
  while (offset < text->size()) {
    size_t end = text->find('\n', offset);
    if (end == std::string::npos) break;  // torn last line: dropped by Open
    const std::string line = text->substr(offset, end - offset);
    const bool header =
        offset == 0 && absl::StrContains(line, "\"fingerprint\"") && !absl::StrContains(line, "\"result\"");
    if (!header) {
      absl::StatusOr<JournalEntry> entry = CommittedUnitFromText(line);
      if (!entry.ok()) {
        if (end + 1 < text->size()) {
          return absl::DataLossError(absl::StrCat(
              path, ":", std::count(text->begin(), text->begin() + offset, '\n') + 1, ": ", entry.status().message()));
        }
        break;  // the last line did not make it whole: dropped by Open
      }
      planned.Take(std::move(*entry), *committed);
    }
    offset = end + 1;
    good_bytes = offset;
  }
  return good_bytes;
}

}  // namespace

absl::Status ReadJournal(const std::string& out_dir, PlannedUnits& planned, std::vector<JournalEntry>* committed) {
  return ReadJournalFile(JournalDir(out_dir) + "/journal.jsonl", planned, committed).status();
}

absl::StatusOr<std::unique_ptr<ResultJournal>> ResultJournal::Open(const std::string& out_dir, PlannedUnits& planned,
                                                                   std::vector<JournalEntry>* committed) {
  const std::filesystem::path dir = JournalDir(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  const std::string path = (dir / "journal.jsonl").string();
  absl::StatusOr<size_t> good_bytes = ReadJournalFile(path, planned, committed);
  if (!good_bytes.ok()) return good_bytes.status();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  if (::ftruncate(fd, static_cast<off_t>(*good_bytes)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot prepare ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<ResultJournal>(new ResultJournal(path, fd));
}

ResultJournal::~ResultJournal() {
  absl::MutexLock lock(&mu_);
  if (fd_ >= 0) ::close(fd_);
}

absl::Status ResultJournal::Append(const UnitResult& result, const CallStats& calls) {
  const std::string line = CommittedUnitText(result, calls) + "\n";
  absl::MutexLock lock(&mu_);
  return WriteAll(fd_, line, path_);
}

}  // namespace noveltygrid
