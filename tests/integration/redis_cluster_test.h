// The redis end-to-end tests' fixture (RedisClusterTest) and helpers, shared by redis_test.cc and
// redis_resume_test.cc: a real redis-server per test, sweeps written into the test's folder, and
// `noveltygrid` processes started against them. Used from the test thread only.
#ifndef NOVELTYGRID_TESTS_INTEGRATION_REDIS_CLUSTER_TEST_H_
#define NOVELTYGRID_TESTS_INTEGRATION_REDIS_CLUSTER_TEST_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/storage/keys.h"
#include "common/storage/redis_store.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/storage/redis_server.h"
#include "tests/integration/cluster_harness.h"

namespace noveltygrid::testing {

using Stream = Process::Stream;

inline constexpr char kListening[] = "noveltygrid coordinator: listening on ";
inline constexpr char kPaperQuestions65[] = NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl";
// Fast recovery from a vanished worker, for the tests that make one vanish.
inline const std::vector<std::string> kQuickRecovery = {"--lease-ttl-ms", "2000",           "--worker-timeout-ms",
                                                        "1500",           "--heartbeat-ms", "300"};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Lines of `text` that start with `prefix`.
inline int64_t CountLines(const std::string& text, const std::string& prefix) {
  int64_t n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) ++n;
  }
  return n;
}

inline std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::vector<nlohmann::json> out;
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty())) {
    out.push_back(nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false));
  }
  return out;
}

// summary.json "calls"[KEY] of a results folder (null when absent).
inline nlohmann::json Calls(const std::string& dir, const std::string& key) {
  nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/summary.json"), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("calls") || !j["calls"].contains(key)) return nullptr;
  return j["calls"][key];
}

// Calls `done` until it holds or `timeout` passes; true if it held. The pause only spaces the polls.
inline bool PollFor(const std::function<bool()>& done, absl::Duration timeout = absl::Seconds(60),
                    absl::Duration pause = absl::Milliseconds(5)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(pause);
  }
  return done();
}

// A sweep written into the test's folder: its questions file holds the paper's first `first_questions`
// questions, or those with the ids in `question_ids`.
struct Sweep {
  std::string file;  // FILE.yaml; also the sweep's name unless `name` is set
  std::string name;
  std::vector<std::string> models = {"sim:steady"};
  std::vector<std::string> temperatures = {"0.7"};
  int first_questions = 10;
  std::vector<std::string> question_ids;
  int seed = 7;
};

inline Sweep MakeSweep(std::string file, std::vector<std::string> models, int first_questions = 10) {
  Sweep sweep;
  sweep.file = std::move(file);
  sweep.models = std::move(models);
  sweep.first_questions = first_questions;
  return sweep;
}

class RedisClusterTest : public ClusterTest {
 protected:
  void TearDown() override {
    store_.reset();
    redis_.reset();  // before ClusterTest removes its data folder
    ClusterTest::TearDown();
  }

  // Starts this test's redis-server and a client of it for the checks.
  void StartRedis(bool append_only = false) {
    testing_redis::RedisServer::Options options;
    options.append_only = append_only;
    absl::StatusOr<std::unique_ptr<testing_redis::RedisServer>> server = testing_redis::RedisServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    redis_ = std::move(*server);
    absl::StatusOr<std::unique_ptr<RedisStore>> store = RedisStore::Connect(redis_->url());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  std::string WriteSweep(const Sweep& sweep) {
    const std::string questions = Path(sweep.file + "-questions.jsonl");
    {
      std::ifstream in(kPaperQuestions65);
      std::ofstream out(questions);
      std::string line;
      int written = 0;
      while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (sweep.question_ids.empty()) {
          if (written >= sweep.first_questions) break;
        } else {
          nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
          if (!j.is_object() || std::find(sweep.question_ids.begin(), sweep.question_ids.end(), j.value("id", "")) ==
                                    sweep.question_ids.end()) {
            continue;
          }
        }
        out << line << "\n";
        ++written;
      }
      EXPECT_GT(written, 0) << "no questions written from " << kPaperQuestions65;
    }
    return WriteSweepYaml(Path(sweep.file + ".yaml"), sweep.name.empty() ? sweep.file : sweep.name, sweep.seed,
                          sweep.models, sweep.temperatures, questions);
  }

  // Runs `noveltygrid ARGS...` to its exit; returns the exit code (-1 if it could not start).
  int RunToExit(std::vector<std::string> args, std::string* output = nullptr) {
    std::unique_ptr<Process> p = Spawn(std::move(args));
    if (p == nullptr) return -1;
    const int code = p->Wait();
    if (output != nullptr) *output = p->Output();
    return code;
  }

  // `noveltygrid coordinator` on 127.0.0.1:`port` (fixed, so that a restarted one is found at the same
  // address). Returns the process and, in `listening`, its "listening on" line.
  std::unique_ptr<Process> StartCoordinatorAt(int port, const std::string& config, const std::string& out,
                                              std::vector<std::string> extra, std::string* listening) {
    std::vector<std::string> args = {"coordinator", "--config", config,   "--listen", absl::StrCat("127.0.0.1:", port),
                                     "--out",       out,        "--seed", kSeed};
    args.insert(args.end(), extra.begin(), extra.end());
    std::unique_ptr<Process> coordinator = Spawn(std::move(args));
    if (coordinator == nullptr) return nullptr;
    absl::StatusOr<std::string> line = coordinator->WaitForStdoutPrefix(kListening);
    if (!line.ok()) {
      ADD_FAILURE() << "the coordinator did not say where it listens: " << line.status() << "\n"
                    << coordinator->Output();
      return nullptr;
    }
    *listening = *line;
    return coordinator;
  }

  int64_t ListLength(const std::string& key) {
    absl::StatusOr<int64_t> n = store_->ListLength(key);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }
  int64_t HashLength(const std::string& key) {
    absl::StatusOr<int64_t> n = store_->HashLength(key);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  std::unique_ptr<testing_redis::RedisServer> redis_;
  std::unique_ptr<RedisStore> store_;
};

// "N already done" out of a coordinator's listening line or run's start line; -1 if absent.
inline int64_t AlreadyDone(const std::string& text) {
  static const std::regex kDone(R"((\d+) already done\))");
  std::smatch m;
  if (!std::regex_search(text, m, kDone)) return -1;
  return std::stoll(m[1]);
}

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_INTEGRATION_REDIS_CLUSTER_TEST_H_
