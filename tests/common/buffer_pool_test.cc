#include "common/buffer_pool.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

BufferPoolOptions Small() {
  BufferPoolOptions o;
  o.min_capacity = 1024;
  o.max_capacity = 16 * 1024;
  o.max_bytes = 40 * 1024;
  return o;
}

TEST(BufferPoolTest, ABufferGivenBackIsTakenAgainEmptyWithItsCapacity) {
  BufferPool pool(Small());
  std::string s = pool.Take(3000);
  EXPECT_GE(s.capacity(), 3000u);
  s.assign(2500, 'x');
  const char* data = s.data();
  pool.Give(std::move(s));
  EXPECT_EQ(pool.pooled_buffers(), 1u);
  std::string again = pool.Take(2800);
  EXPECT_EQ(again.data(), data);  // the same buffer
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(pool.pooled_buffers(), 0u);
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

TEST(BufferPoolTest, ABufferTooSmallForTheRequestIsNotHandedOut) {
  BufferPool pool(Small());
  std::string s;
  s.reserve(2100);  // class [2048, 4096)
  pool.Give(std::move(s));
  std::string big = pool.Take(4000);  // the same class, larger than the pooled buffer
  EXPECT_GE(big.capacity(), 4000u);
  EXPECT_EQ(pool.pooled_buffers(), 1u);  // still there for a smaller body
  std::string fits = pool.Take(2000);
  EXPECT_GE(fits.capacity(), 2000u);
  EXPECT_EQ(pool.pooled_buffers(), 0u);
}

TEST(BufferPoolTest, TheClassAboveServesButNotTwoAbove) {
  BufferPool pool(Small());
  std::string mid;
  mid.reserve(5000);  // class [4096, 8192)
  pool.Give(std::move(mid));
  std::string small = pool.Take(1500);  // class [1024, 2048): two classes below
  EXPECT_EQ(pool.pooled_buffers(), 1u);
  std::string next = pool.Take(3000);  // class [2048, 4096): the one just below
  EXPECT_GE(next.capacity(), 5000u);
  EXPECT_EQ(pool.pooled_buffers(), 0u);
}

TEST(BufferPoolTest, OutOfRangeCapacitiesAndAFullBudgetAreFreed) {
  BufferPool pool(Small());
  std::string tiny;
  tiny.reserve(100);
  pool.Give(std::move(tiny));
  std::string huge;
  huge.reserve(64 * 1024);
  pool.Give(std::move(huge));
  EXPECT_EQ(pool.pooled_buffers(), 0u);
  for (int i = 0; i < 5; ++i) {
    std::string s;
    s.reserve(10 * 1024);
    pool.Give(std::move(s));
  }
  EXPECT_EQ(pool.pooled_buffers(), 4u);  // 40 KiB holds four buffers of 10 KiB, not five
  EXPECT_LE(pool.pooled_bytes(), 40u * 1024);
  EXPECT_GE(pool.Take(20 * 1024).capacity(), 20u * 1024);  // nothing pooled fits: a new buffer
}

TEST(BufferPoolTest, ThreadsTakingAndGivingKeepTheCountsWhole) {
  BufferPool pool(Small());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string s = pool.Take(1024 + static_cast<size_t>((i * 7 + t) % 8) * 1024);
        s.append("body");
        pool.Give(std::move(s));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(pool.pooled_bytes(), 40u * 1024);
  EXPECT_GE(pool.pooled_buffers(), 1u);
  size_t taken = 0;
  while (pool.pooled_buffers() > 0) {
    pool.Take(1024);  // a Take serves its own class and the one above: drain every class
    pool.Take(2048);
    pool.Take(4096);
    pool.Take(8192);
    if (++taken > 100) break;
  }
  EXPECT_EQ(pool.pooled_buffers(), 0u);
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

}  // namespace
}  // namespace noveltygrid
