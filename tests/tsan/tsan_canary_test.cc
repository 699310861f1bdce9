// Proof that the TSan build sees what it should (built only with NOVELTYGRID_SANITIZE=thread): a
// child process (this binary, re-run with NG_TSAN_CANARY set) counts from two threads, once with no
// lock and once under an absl::Mutex. ThreadSanitizer must report the first and stay quiet on the
// second -- which it does only because absl_sync_annotations.cc annotates Debian's Abseil.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

int RunCanary(const std::string& mode) {
  absl::Mutex mu;
  long counter = 0;  // guarded by mu in "locked" mode only
  absl::Notification started;
  auto count = [&] {
    for (int i = 0; i < 1000; ++i) {
      if (mode == "locked") {
        absl::MutexLock lock(&mu);
        ++counter;
      } else {
        ++counter;
      }
    }
  };
  std::thread other([&] {
    started.Notify();
    count();
  });
  started.WaitForNotification();
  count();
  other.join();
  std::printf("counted %ld\n", counter);
  return 0;
}

// Runs this binary in canary mode; returns its combined output.
std::string Child(const std::string& mode) {
  const std::string command = "NG_TSAN_CANARY=" + mode + " TSAN_OPTIONS=halt_on_error=0:exitcode=0 /proc/" +
                              std::to_string(getpid()) + "/exe 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  return out;
}

TEST(TsanCanaryTest, AnUnguardedCounterIsReported) {
  EXPECT_NE(Child("racy").find("WARNING: ThreadSanitizer: data race"), std::string::npos);
}

TEST(TsanCanaryTest, ACounterGuardedByAnAbseilMutexIsClean) {
  const std::string out = Child("locked");
  EXPECT_EQ(out.find("ThreadSanitizer"), std::string::npos) << out;
  EXPECT_NE(out.find("counted 2000"), std::string::npos) << out;
}

}  // namespace
}  // namespace noveltygrid

int main(int argc, char** argv) {
  if (const char* mode = std::getenv("NG_TSAN_CANARY")) return noveltygrid::RunCanary(mode);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
