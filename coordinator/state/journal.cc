#include "coordinator/state/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
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

absl::StatusOr<std::unique_ptr<ResultJournal>> ResultJournal::Open(const std::string& out_dir,
                                                                   const std::string& fingerprint,
                                                                   std::vector<JournalEntry>* committed) {
  const std::filesystem::path dir = std::filesystem::path(out_dir) / ".noveltygrid";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  const std::string path = (dir / "journal.jsonl").string();

  size_t good_bytes = 0;
  bool has_header = false;
  if (std::filesystem::exists(path)) {
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) return text.status();
    size_t offset = 0;
    while (offset < text->size()) {
      size_t end = text->find('\n', offset);
      if (end == std::string::npos) break;  // torn last line: dropped below
      const std::string line = text->substr(offset, end - offset);
      Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) break;
      if (!has_header) {
        if (j.value("fingerprint", "") != fingerprint) {
          return absl::FailedPreconditionError(absl::StrCat(
              out_dir, " holds results of a different sweep (plan ", j.value("fingerprint", "?"),
              ", this config plans ", fingerprint, "); pass another --out folder or remove that one to start over"));
        }
        has_header = true;
      } else {
        if (!j.contains("result")) return absl::DataLossError(absl::StrCat(path, ": a line has no result"));
        absl::StatusOr<UnitResult> result = UnitResultFromJson(j.at("result"));
        if (!result.ok()) {
          return absl::DataLossError(absl::StrCat(path, ": ", result.status().message()));
        }
        committed->push_back({std::move(*result), CallStatsFromJson(j.value("calls", Json::object()))});
      }
      offset = end + 1;
      good_bytes = offset;
    }
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  if (::ftruncate(fd, static_cast<off_t>(good_bytes)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot prepare ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<ResultJournal> journal(new ResultJournal(path, fd));
  if (!has_header) {
    absl::Status status = WriteAll(fd, DumpJson(Json{{"fingerprint", fingerprint}}) + "\n", path);
    if (!status.ok()) return status;
  }
  return journal;
}

ResultJournal::~ResultJournal() {
  absl::MutexLock lock(&mu_);
  if (fd_ >= 0) ::close(fd_);
}

absl::Status ResultJournal::Append(const UnitResult& result, const CallStats& calls) {
  const std::string line =
      DumpJson(Json{{"result", UnitResultToJson(result)}, {"calls", CallStatsToJson(calls)}}) + "\n";
  absl::MutexLock lock(&mu_);
  return WriteAll(fd_, line, path_);
}

}  // namespace noveltygrid
