// How `status --out DIR` finds a run: the files `run` keeps while it runs, the token's file mode, and a
// file left behind by a run that was killed.
#include "cli/run_file.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class RunFileTest : public ::testing::Test {
 protected:
  testing_files::TempDir temp_;
  const std::string dir_ = temp_.path().string();
};

TEST_F(RunFileTest, NoRunSaysHowToStartOne) {
  absl::StatusOr<RunEndpoint> run = ReadRunFile(dir_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(run.status().message(), HasSubstr("no sweep is running into"));
  EXPECT_THAT(run.status().message(), HasSubstr("--coordinator"));
}

TEST_F(RunFileTest, ThisProcessIsNotANoveltygridSoItsFileIsStale) {
  // The test binary's pid is alive but not a noveltygrid process: exactly a reused pid.
  RunEndpoint endpoint;
  endpoint.address = "127.0.0.1:1";
  endpoint.token = "secret-token-123";
  absl::StatusOr<std::unique_ptr<RunFile>> file = RunFile::Create(dir_, endpoint);
  ASSERT_TRUE(file.ok()) << file.status();
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/.noveltygrid/run.token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream json(dir_ + "/.noveltygrid/run.json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("127.0.0.1:1"));
  EXPECT_THAT(text, Not(HasSubstr("secret-token-123")));
  absl::StatusOr<RunEndpoint> run = ReadRunFile(dir_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(run.status().message(), HasSubstr("is stale"));
  EXPECT_THAT(run.status().message(), HasSubstr("no longer running"));
  EXPECT_THAT(run.status().message(), Not(HasSubstr("secret-token-123")));
  (*file)->Remove();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/.noveltygrid/run.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/.noveltygrid/run.token"));
}

TEST_F(RunFileTest, APidThatIsGoneIsNotAlive) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(NoveltygridProcessAlive(child));
  EXPECT_FALSE(NoveltygridProcessAlive(0));
}

}  // namespace
}  // namespace noveltygrid::cli
