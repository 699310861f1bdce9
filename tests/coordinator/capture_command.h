// CaptureCommand: runs a `noveltygrid` subcommand's entry point in process and keeps its exit code,
// stdout and stderr, for the command tests.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_CAPTURE_COMMAND_H_
#define NOVELTYGRID_TESTS_COORDINATOR_CAPTURE_COMMAND_H_

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid::cli::testing_runs {

struct Captured {
  int code;
  std::string out;
  std::string err;
};

template <typename Command>
Captured CaptureCommand(Command command, const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = command(args);
  std::string out = ::testing::internal::GetCapturedStdout();
  return Captured{code, std::move(out), ::testing::internal::GetCapturedStderr()};
}

}  // namespace noveltygrid::cli::testing_runs

#endif  // NOVELTYGRID_TESTS_COORDINATOR_CAPTURE_COMMAND_H_
