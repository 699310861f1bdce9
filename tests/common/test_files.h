// Scratch files for tests: a fresh folder per TempDir, removed with it; the shared data files; what
// reading a missing file gives; hostile JSON for the readers of such files.
#ifndef NOVELTYGRID_TESTS_COMMON_TEST_FILES_H_
#define NOVELTYGRID_TESTS_COMMON_TEST_FILES_H_

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace noveltygrid::testing_files {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::path(::testing::TempDir()) /
            ("ng_common_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `contents` to `name` (sub-folders created) and returns the full path.
  std::string Write(const std::string& name, const std::string& contents) const {
    const std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << contents;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

// A file under ../shared/data, as a normal absolute path (the config loader normalises paths too).
// True under CI ($CI set, not "0" or "false"): tests that skip without an optional setup fail there.
inline bool UnderCi() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string value = ci;
  return !value.empty() && value != "0" && value != "false";
}

inline std::string SharedData(const std::string& relative) {
  return (std::filesystem::path(NOVELTYGRID_SHARED_DATA) / relative).lexically_normal().string();
}

// Expects `status`, of reading the missing file `path`, to be NotFound and to name the path.
inline void ExpectNotFound(const absl::Status& status, const std::string& path) {
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_NE(status.message().find(path), absl::string_view::npos) << status;
}

// `depth` nested arrays, "[[[...]]]": at 100,000 levels a reader that recursed once per level (or a
// tree that copied, compared or dumped itself so) would overflow its stack.
inline std::string DeeplyNestedJson(int depth = 100'000) {
  return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
}

}  // namespace noveltygrid::testing_files

#endif  // NOVELTYGRID_TESTS_COMMON_TEST_FILES_H_
