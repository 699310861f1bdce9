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

  // `noveltygrid run CONFIG --out OUT` on this test's Redis, with `extra` flags: exits 0 with the results
  // of `reference`; `calls` is its summary's "embed:lexical" calls.
  void RunOnRedis(const std::string& config, const std::string& out, const std::string& reference,
                  const std::vector<std::string>& extra, nlohmann::json* calls) {
    std::vector<std::string> args = {"run", config, "--out", Path(out), "--seed", kSeed, "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--redis", redis_->url()});
    std::string output;
    ASSERT_EQ(RunToExit(std::move(args), &output), 0) << output;
    ExpectSameResults(Path(reference), Path(out));
    *calls = Calls(Path(out), "embed:lexical");
    ASSERT_TRUE(calls->is_object()) << ReadFile(Path(out + "/summary.json")).substr(0, 2000);
  }

  // `noveltygrid coordinator` on 127.0.0.1:`port` (fixed, so that a restarted one is found at the same
  // address). Returns the process and, in `listening`, its "listening on" line.
  std::unique_ptr<Process> StartCoordinatorAt(int port, const std::string& config, const std::string& out,
                                              std::vector<std::string> extra, std::string* listening) {
    return SpawnCoordinator(config, out, std::move(extra), absl::StrCat("127.0.0.1:", port), listening);
  }

  // One AidanBench unit with a long loop (sim:explorer on aidan-03: 85 answers with seed 42) as sweep
  // `name`, run in one process into reference/: its config, its answers and its checkpoint's key.
  struct LongUnit {
    std::string config;
    int64_t answers = 0;
    std::string checkpoint;
  };
  void WriteLongUnitWithReference(const std::string& name, LongUnit* unit) {
    Sweep sweep = MakeSweep(name, {"sim:explorer"});
    sweep.question_ids = {"aidan-03"};
    unit->config = WriteSweep(sweep);
    ASSERT_NO_FATAL_FAILURE(RunReference(unit->config, Path("reference")));
    const std::vector<nlohmann::json> reference = ReadJsonLines(Path("reference/answers.jsonl"));
    unit->answers = static_cast<int64_t>(reference.size());
    ASSERT_FALSE(reference.empty());
    const std::string unit_id = reference.front().value("unit_id", "");
    ASSERT_FALSE(unit_id.empty());
    unit->checkpoint = keys::Checkpoint(unit_id);
  }

  // A sweep on this test's Redis: its coordinator (quick recovery) and where, worker "a" (calls-a.log),
  // and the steps checkpointed when A was killed (KillWorkerMidLoop).
  struct RedisRun {
    std::unique_ptr<Process> coordinator;
    std::string address;
    std::unique_ptr<Process> a;
    int64_t checkpointed = 0;
  };

  // Runs `config` into cluster/ with a coordinator and worker "a" on this test's Redis.
  void StartWithWorkerA(const std::string& config, RedisRun* run) {
    std::vector<std::string> coordinator_flags = kQuickRecovery;
    coordinator_flags.insert(coordinator_flags.end(), {"--redis", redis_->url()});
    run->coordinator = StartCoordinator(config, Path("cluster"), coordinator_flags, &run->address);
    ASSERT_NE(run->coordinator, nullptr);
    run->a = StartWorker(run->address, "a", 1, {"--redis", redis_->url(), "--call-log", Path("calls-a.log")});
    ASSERT_NE(run->a, nullptr);
  }

  // StartWithWorkerA, then kills A once `checkpoint` holds 10 steps (polled without pause: loops are
  // fast).
  void KillWorkerMidLoop(const std::string& config, const std::string& checkpoint, RedisRun* run) {
    ASSERT_NO_FATAL_FAILURE(StartWithWorkerA(config, run));
    int64_t steps = 0;
    ASSERT_TRUE(
        PollFor([&] { return (steps = ListLength(checkpoint)) >= 10; }, absl::Seconds(60), absl::ZeroDuration()))
        << "the checkpoint list " << checkpoint << " has " << steps << " step(s)\n"
        << run->a->Output() << run->coordinator->Output();
    run->a->Signal(SIGKILL);
    ASSERT_EQ(run->a->Wait(), 128 + SIGKILL) << run->a->Output();
    run->checkpointed = ListLength(checkpoint);
  }

  // Worker "b" (calls-b.log) finishes the sweep of KillWorkerMidLoop: the results equal reference/ and
  // the checkpoint is gone.
  void FinishWithWorkerB(RedisRun& killed, const std::string& checkpoint) {
    auto b = StartWorker(killed.address, "b", 1, {"--redis", redis_->url(), "--call-log", Path("calls-b.log")});
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->Wait(), 0) << b->Output();
    ASSERT_EQ(killed.coordinator->Wait(), 0) << killed.coordinator->Output();
    ExpectSameResults(Path("reference"), Path("cluster"));
    EXPECT_EQ(ListLength(checkpoint), 0) << "the checkpoint outlived the commit";
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
