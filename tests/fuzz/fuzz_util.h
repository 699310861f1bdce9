// Helpers shared by the libFuzzer targets of tests/fuzz (one *_fuzz.cc per parser of outside input):
// the input as text, a choice of mode taken from its first byte, a per-process scratch folder for the
// parsers that read files, and FUZZ_CHECK for the invariants a target asserts.
//
// A target must give the same answer for the same input whatever ran before it (a reproducer has to
// reproduce): one that writes files clears its folder at the start of every input (ResetDir).
// Header-only; each target is one executable, single-threaded as libFuzzer runs it.
#ifndef NOVELTYGRID_TESTS_FUZZ_FUZZ_UTIL_H_
#define NOVELTYGRID_TESTS_FUZZ_FUZZ_UTIL_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace noveltygrid::fuzz {

// Reports a broken invariant and aborts: libFuzzer saves the input as a crash.
[[noreturn]] inline void Fail(const char* file, int line, const char* condition, std::string_view detail) {
  std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed%s%.*s\n", file, line, condition, detail.empty() ? "" : ": ",
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// FUZZ_CHECK(condition) or FUZZ_CHECK(condition, detail): what a parser must guarantee (not what an
// input must look like: a well-formed error Status is a fine answer to any input).
#define FUZZ_CHECK(condition, ...)                                                                         \
  do {                                                                                                     \
    if (!(condition))                                                                                      \
      ::noveltygrid::fuzz::Fail(__FILE__, __LINE__, #condition, ::noveltygrid::fuzz::Detail(__VA_ARGS__)); \
  } while (0)
inline std::string_view Detail() { return ""; }
inline std::string_view Detail(std::string_view detail) { return detail; }

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// The first byte of the input (0 when it is empty) and the rest, for targets that cover several
// parsers or settings.
struct Moded {
  uint8_t mode = 0;
  std::string_view rest;
};
inline Moded TakeMode(const uint8_t* data, size_t size) {
  if (size == 0) return Moded{};
  return Moded{data[0], AsText(data + 1, size - 1)};
}

// The input cut at each '\x1e' (ASCII record separator) into at most `max_parts` parts (the last one
// keeps any further separators), for targets that write several files from one input.
inline std::vector<std::string_view> SplitParts(std::string_view text, size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const size_t cut = text.find('\x1e');
    if (cut == std::string_view::npos) break;
    parts.push_back(text.substr(0, cut));
    text.remove_prefix(cut + 1);
  }
  parts.push_back(text);
  return parts;
}

// A folder of this process's own, made on first use and removed at exit: under /dev/shm when it is
// there (the results writer and the journal fsync, which costs nothing in memory), else $TMPDIR or
// /tmp. A process that crashes leaves it behind (noveltygrid-fuzz-*).
inline const std::string& ScratchDir() {
  static const std::string* const dir = [] {
    std::string base = "/dev/shm";
    if (::access(base.c_str(), W_OK) != 0) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::string pattern = base + "/noveltygrid-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror(("cannot make a scratch folder under " + base).c_str());
      std::abort();
    }
    auto* made = new std::string(pattern);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return made;
  }();
  return *dir;
}

// Empties `dir` (making it, and its parents, when missing).
inline void ResetDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) Fail(__FILE__, __LINE__, "create_directories", dir);
}

// Writes `contents` to `path`, making its folder; aborts when it cannot (nothing to fuzz then).
inline void WriteFileOrDie(const std::string& path, std::string_view contents) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) Fail(__FILE__, __LINE__, "write", path);
}

// The contents of `path`, "" when it cannot be read.
inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace noveltygrid::fuzz

#endif  // NOVELTYGRID_TESTS_FUZZ_FUZZ_UTIL_H_
