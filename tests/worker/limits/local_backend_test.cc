#include "worker/limits/local_backend.h"

#include "gtest/gtest.h"

namespace noveltygrid::limits_internal {
namespace {

// Tokens used beyond no reservation.
Settlements Charged(int64_t tokens) { return {{-1, {.excess = tokens}}}; }

// `n` waiters reserving nothing.
std::vector<int64_t> Waiters(int n) { return std::vector<int64_t>(n, 0); }

const absl::Time kMinuteStart = absl::FromUnixSeconds(1'700'000'040);  // a multiple of 60

TEST(MinuteTest, CalendarMinutes) {
  EXPECT_EQ(MinuteOf(kMinuteStart), 1'700'000'040 / 60);
  EXPECT_EQ(MinuteOf(kMinuteStart + absl::Seconds(59)), MinuteOf(kMinuteStart));
  EXPECT_EQ(MinuteOf(kMinuteStart - absl::Milliseconds(1)), MinuteOf(kMinuteStart) - 1);
  EXPECT_EQ(MinuteOf(absl::FromUnixSeconds(-1)), -1);
  EXPECT_EQ(NextMinute(kMinuteStart + absl::Seconds(12)), kMinuteStart + absl::Seconds(60));
}

TEST(LocalBackendTest, RequestsPerMinuteGrantsPartialBatchesAndSaysWhen) {
  LocalBackend backend(ProviderLimits{.requests_per_minute = 5});
  Admission first = backend.Admit(Waiters(3), kMinuteStart);
  EXPECT_EQ(first.granted, 3);
  Admission second = backend.Admit(Waiters(4), kMinuteStart + absl::Seconds(1));
  EXPECT_EQ(second.granted, 2);
  EXPECT_EQ(second.retry_at, kMinuteStart + absl::Seconds(60));
  EXPECT_EQ(backend.Admit(Waiters(1), kMinuteStart + absl::Seconds(59)).granted, 0);
  EXPECT_EQ(backend.Admit(Waiters(9), kMinuteStart + absl::Seconds(60)).granted, 5);
}

TEST(LocalBackendTest, InFlightAloneWaitsForARelease) {
  LocalBackend backend(ProviderLimits{.max_in_flight = 2});
  EXPECT_EQ(backend.Admit(Waiters(3), kMinuteStart).granted, 2);
  Admission held = backend.Admit(Waiters(1), kMinuteStart);
  EXPECT_EQ(held.granted, 0);
  EXPECT_EQ(held.retry_at, absl::InfiniteFuture());
  backend.Release(1, {}, kMinuteStart);
  EXPECT_EQ(backend.Admit(Waiters(2), kMinuteStart).granted, 1);
  EXPECT_EQ(backend.in_flight(), 2);
}

TEST(LocalBackendTest, TokensChargedCloseTheMinute) {
  LocalBackend backend(ProviderLimits{.tokens_per_minute = 100});
  EXPECT_EQ(backend.Admit(Waiters(2), kMinuteStart).granted, 2);
  backend.Release(1, Charged(99), kMinuteStart);
  EXPECT_EQ(backend.Admit(Waiters(1), kMinuteStart).granted, 1);  // 99 < 100
  backend.Release(1, Charged(1), kMinuteStart);
  Admission held = backend.Admit(Waiters(1), kMinuteStart + absl::Seconds(30));
  EXPECT_EQ(held.granted, 0);
  EXPECT_EQ(held.retry_at, kMinuteStart + absl::Seconds(60));
  EXPECT_EQ(backend.Admit(Waiters(1), kMinuteStart + absl::Seconds(60)).granted, 1);
}

TEST(LocalBackendTest, ReservationsAreChargedAtAdmissionAndSettledAtRelease) {
  LocalBackend backend(ProviderLimits{.tokens_per_minute = 100});
  const int64_t minute = MinuteOf(kMinuteStart);
  // 0 < 100: the first goes (charge 60); 60 < 100: the second goes (120); the third waits.
  Admission first = backend.Admit({60, 60, 60}, kMinuteStart);
  EXPECT_EQ(first.granted, 2);
  EXPECT_EQ(first.minute, minute);
  EXPECT_EQ(first.retry_at, kMinuteStart + absl::Seconds(60));
  backend.Release(1, {{minute, {.refund = 50}}}, kMinuteStart);   // used 10 of its 60: 70 charged
  EXPECT_EQ(backend.Admit({60, 60}, kMinuteStart).granted, 1);    // 70 < 100, then 130
  backend.Release(2, {{minute, {.refund = 500}}}, kMinuteStart);  // never below zero
  EXPECT_EQ(backend.Admit({99, 1, 1}, kMinuteStart).granted, 2);  // 0, then 99 < 100, then 100

  // The next minute: a refund of the last one's reservations is not taken from it, excess is.
  const absl::Time next = kMinuteStart + absl::Seconds(60);
  backend.Release(1, {{minute, {.excess = 30, .refund = 99}}}, next);
  EXPECT_EQ(backend.Admit({69, 1}, next).granted, 2);  // 30, then 99 < 100
  EXPECT_EQ(backend.Admit({1}, next).granted, 0);      // 100
  // A request larger than the whole limit still goes once the minute is below it.
  EXPECT_EQ(backend.Admit({1000}, next + absl::Seconds(60)).granted, 1);
  EXPECT_EQ(backend.Admit({1}, next + absl::Seconds(61)).granted, 0);
  // Admissions made by Redis count their reservations here too.
  LocalBackend shadow(ProviderLimits{.tokens_per_minute = 100});
  shadow.Record(2, 100, kMinuteStart);
  EXPECT_EQ(shadow.Admit({1}, kMinuteStart).granted, 0);
}

TEST(LocalBackendTest, RecordedAdmissionsCount) {
  LocalBackend backend(ProviderLimits{.max_in_flight = 3, .requests_per_minute = 4});
  backend.Record(3, 0, kMinuteStart);
  EXPECT_EQ(backend.Admit(Waiters(1), kMinuteStart).granted, 0);
  backend.Release(3, {}, kMinuteStart);
  EXPECT_EQ(backend.Admit(Waiters(5), kMinuteStart).granted, 1);  // 3 + 1 = the minute's 4
}

}  // namespace
}  // namespace noveltygrid::limits_internal
