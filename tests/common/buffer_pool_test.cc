#include "common/buffer_pool.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// Classes [1, 2), [2, 4), [4, 8), [8, 16] KiB; a budget of 40 KiB.
BufferPoolOptions Small() {
  BufferPoolOptions o;
  o.min_capacity = 1024;
  o.max_capacity = 16 * 1024;
  o.max_bytes = 40 * 1024;
  return o;
}

// A string whose buffer holds at least `capacity` bytes.
std::string Reserved(size_t capacity) {
  std::string s;
  s.reserve(capacity);
  return s;
}

TEST(BufferPoolTest, ABufferGivenBackIsTakenAgainEmptyWithItsCapacity) {
  BufferPool pool(Small());
  std::string s = pool.Take(3000);
  EXPECT_GE(s.capacity(), 3000u);
  s.assign(2500, 'x');
  const char* data = s.data();
  const size_t capacity = s.capacity();
  pool.Give(std::move(s));
  EXPECT_EQ(pool.pooled_buffers(), 1u);
  EXPECT_EQ(pool.pooled_bytes(), capacity);
  std::string again = pool.Take(2800);
  EXPECT_EQ(again.data(), data);  // the same buffer
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(pool.pooled_buffers(), 0u);
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

TEST(BufferPoolTest, ABufferTooSmallForTheRequestIsNotHandedOut) {
  BufferPool pool(Small());
  pool.Give(Reserved(2100));          // class [2, 4) KiB
  std::string big = pool.Take(4000);  // the same class, larger than the pooled buffer
  EXPECT_GE(big.capacity(), 4000u);
  EXPECT_EQ(pool.pooled_buffers(), 1u);  // still there for a smaller body
  EXPECT_GE(pool.Take(2000).capacity(), 2000u);
  EXPECT_EQ(pool.pooled_buffers(), 0u);
}

TEST(BufferPoolTest, TheClassAboveServesButNotTwoAbove) {
  BufferPool pool(Small());
  pool.Give(Reserved(5000));  // class [4, 8) KiB
  pool.Take(1500);            // class [1, 2): two below, not served
  EXPECT_EQ(pool.pooled_buffers(), 1u);
  EXPECT_GE(pool.Take(3000).capacity(), 5000u);  // class [2, 4): the one just below
  EXPECT_EQ(pool.pooled_buffers(), 0u);
}

TEST(BufferPoolTest, OnlyTheNewestFourOfAClassAreLookedAt) {
  BufferPool pool(Small());
  pool.Give(Reserved(3500));  // fits a Take(3000), but behind four that do not
  for (int i = 0; i < 4; ++i) pool.Give(Reserved(2100));
  pool.Take(3000);
  EXPECT_EQ(pool.pooled_buffers(), 5u);
  pool.Take(2000);  // one of the four goes; the fitting one is now among the newest four
  EXPECT_GE(pool.Take(3000).capacity(), 3500u);
  EXPECT_EQ(pool.pooled_buffers(), 3u);
}

TEST(BufferPoolTest, CapacitiesOutsideTheRangeAreNotPooled) {
  BufferPool pool(Small());
  pool.Give(Reserved(1023));
  pool.Give(Reserved(16 * 1024 + 1));
  EXPECT_EQ(pool.pooled_buffers(), 0u);
  pool.Give(Reserved(1024));
  pool.Give(Reserved(16 * 1024));
  EXPECT_EQ(pool.pooled_buffers(), 2u);
  pool.Take(1023);  // below the range: not from the pool
  pool.Take(16 * 1024 + 1);
  EXPECT_EQ(pool.pooled_buffers(), 2u);
  EXPECT_GE(pool.Take(16 * 1024).capacity(), 16u * 1024);  // the top class, which has none above it
  EXPECT_GE(pool.Take(1024).capacity(), 1024u);
  EXPECT_EQ(pool.pooled_buffers(), 0u);
}

TEST(BufferPoolTest, WhatTheBudgetCannotHoldIsFreed) {
  BufferPool pool(Small());
  const size_t each = Reserved(10 * 1024).capacity();
  for (int i = 0; i < 5; ++i) pool.Give(Reserved(10 * 1024));
  EXPECT_EQ(pool.pooled_buffers(), 40 * 1024 / each);
  EXPECT_LE(pool.pooled_bytes(), 40u * 1024);
  EXPECT_EQ(pool.pooled_bytes(), pool.pooled_buffers() * each);
}

TEST(BufferPoolTest, NonsenseOptionsAreClamped) {
  BufferPoolOptions o;
  o.min_capacity = 0;  // would never end a class search; 16 instead
  o.max_capacity = ~size_t{0};
  BufferPool pool(o);
  pool.Give(Reserved(100));
  EXPECT_EQ(pool.pooled_buffers(), 1u);
  EXPECT_GE(pool.Take(50).capacity(), 100u);  // [32, 64) bytes takes from the class above
  pool.Give(Reserved(15));
  EXPECT_EQ(pool.pooled_buffers(), 0u);
}

TEST(BufferPoolTest, AFullClassFreesWhatItCannotHold) {
  BufferPoolOptions o;
  o.min_capacity = 1024;
  o.max_capacity = 1024 * 1024;
  o.max_bytes = size_t{64} << 20;  // room for 65,536 buffers of 1 KiB: the class's 1,024 slots decide
  BufferPool pool(o);
  for (int i = 0; i < 1500; ++i) pool.Give(Reserved(1024));
  EXPECT_EQ(pool.pooled_buffers(), 1024u);
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
  // A Take serves its own class and the one above: these drain every class.
  for (int round = 0; round < 100 && pool.pooled_buffers() > 0; ++round) {
    for (size_t size : {1024, 2048, 4096, 8192}) pool.Take(size);
  }
  EXPECT_EQ(pool.pooled_buffers(), 0u);
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

}  // namespace
}  // namespace noveltygrid
