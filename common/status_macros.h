// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status and absl::StatusOr.
//
// Debian's Abseil (20220623) ships no status_macros.h, so the project keeps its own pair.
//
//   RETURN_IF_ERROR(file.Flush());
//   ASSIGN_OR_RETURN(Config config, LoadConfig(path));
#ifndef NOVELTYGRID_COMMON_STATUS_MACROS_H_
#define NOVELTYGRID_COMMON_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define NG_CONCAT_INNER_(a, b) a##b
#define NG_CONCAT_(a, b) NG_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                \
  do {                                       \
    ::absl::Status ng_status_ = (expr);      \
    if (!ng_status_.ok()) return ng_status_; \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) NG_ASSIGN_OR_RETURN_IMPL_(NG_CONCAT_(ng_statusor_, __LINE__), lhs, expr)

#define NG_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr)     \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // NOVELTYGRID_COMMON_STATUS_MACROS_H_
