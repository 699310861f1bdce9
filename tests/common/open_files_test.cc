#include "common/open_files.h"

#include <sys/resource.h>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(OpenFilesTest, TheSoftLimitRisesToTheHardOneAndConnectionsKeepTheirReserve) {
  RaiseOpenFileLimit();
  struct rlimit limit;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(limit.rlim_cur, limit.rlim_max);
  if (limit.rlim_cur == RLIM_INFINITY) {
    EXPECT_FALSE(ConnectionRoom().has_value());
    return;
  }
  const int expected = limit.rlim_cur > 256 + 64 ? static_cast<int>(limit.rlim_cur - 256) : 64;
  EXPECT_EQ(ConnectionRoom(256), expected);
  EXPECT_EQ(ConnectionRoom(static_cast<int>(limit.rlim_cur)), 64);  // never below 64
}

}  // namespace
}  // namespace noveltygrid
