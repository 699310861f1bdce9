// ASSERT_OK / EXPECT_OK and Must() for absl::Status and StatusOr in the storage tests. Each evaluates
// its argument once, so it can wrap a call with side effects.
#ifndef NOVELTYGRID_TESTS_COMMON_STORAGE_STATUS_TESTING_H_
#define NOVELTYGRID_TESTS_COMMON_STORAGE_STATUS_TESTING_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace noveltygrid::testing_status {

inline absl::Status StatusOf(const absl::Status& status) { return status; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}

// The message as a std::string, which gmock prints readably (absl::string_view it prints per char).
inline std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

// The value of a StatusOr that must be ok (a failed expectation and T() otherwise).
template <typename T>
T Must(absl::StatusOr<T> result) {
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : T();
}

}  // namespace noveltygrid::testing_status

#define ASSERT_OK(expr)                                                              \
  do {                                                                               \
    const ::absl::Status ng_status_ = ::noveltygrid::testing_status::StatusOf(expr); \
    ASSERT_TRUE(ng_status_.ok()) << ng_status_;                                      \
  } while (0)
#define EXPECT_OK(expr)                                                              \
  do {                                                                               \
    const ::absl::Status ng_status_ = ::noveltygrid::testing_status::StatusOf(expr); \
    EXPECT_TRUE(ng_status_.ok()) << ng_status_;                                      \
  } while (0)

#endif  // NOVELTYGRID_TESTS_COMMON_STORAGE_STATUS_TESTING_H_
