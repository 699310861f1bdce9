// Redis end to end: a real redis-server (started per test on a free loopback port, its data in the test's
// temporary folder) shared by real `run`, coordinator and worker processes. What Redis promises in the
// README ("Redis: shared cache, checkpoints, restart-safe state"), checked from the outside:
//
//   - a finished sweep re-run into another folder resumes from Redis without a single model call;
//   - the embedding cache serves repeated texts and never changes a result;
//   - a worker that cannot reach Redis warns once and works on, uncached;
//   - a worker killed mid-loop costs at most the iteration in flight (loop checkpoints);
//   - a coordinator killed mid-sweep is restarted from Redis; a Redis restart (AOF) mid-sweep is survived;
//   - another plan under the same sweep name is refused with a way out.
//
// Every comparison is with `noveltygrid run` without Redis (byte-identical results). Synchronisation is on
// conditions only -- a line a process prints, a Status poll, a Redis list length -- never a sleep; nothing
// asserts on timing. Used from the test thread only.
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
namespace {

using Stream = Process::Stream;

constexpr char kListening[] = "noveltygrid coordinator: listening on ";
constexpr char kPaperQuestions65[] = NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl";
// Fast recovery from a vanished worker, for the tests that make one vanish.
const std::vector<std::string> kQuickRecovery = {"--lease-ttl-ms", "2000",           "--worker-timeout-ms",
                                                 "1500",           "--heartbeat-ms", "300"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Lines of `text` that start with `prefix`.
int64_t CountLines(const std::string& text, const std::string& prefix) {
  int64_t n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) ++n;
  }
  return n;
}

std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::vector<nlohmann::json> out;
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty())) {
    out.push_back(nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false));
  }
  return out;
}

// summary.json "calls"[KEY] of a results folder (null when absent).
nlohmann::json Calls(const std::string& dir, const std::string& key) {
  nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/summary.json"), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("calls") || !j["calls"].contains(key)) return nullptr;
  return j["calls"][key];
}

// Calls `done` until it holds or `timeout` passes; true if it held. The pause only spaces the polls.
bool PollFor(const std::function<bool()>& done, absl::Duration timeout = absl::Seconds(60),
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

Sweep MakeSweep(std::string file, std::vector<std::string> models, int first_questions = 10) {
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
int64_t AlreadyDone(const std::string& text) {
  static const std::regex kDone(R"((\d+) already done\))");
  std::smatch m;
  if (!std::regex_search(text, m, kDone)) return -1;
  return std::stoll(m[1]);
}

// ---- 1: a finished sweep, re-run into another folder, resumes from Redis ----

TEST_F(RedisClusterTest, RerunOfFinishedSweepMakesNoModelCalls) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  const std::string config = WriteSweep(MakeSweep("rerun", {"sim:steady", "sim:collapse"}));
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));
  const int64_t units = 2 * 10;

  std::string output;
  ASSERT_EQ(RunToExit({"run", config, "--out", Path("a"), "--seed", kSeed, "--quiet", "--redis", redis_->url(),
                       "--call-log", Path("calls-a.log")},
                      &output),
            0)
      << output;
  EXPECT_GT(CountLines(ReadFile(Path("calls-a.log")), "chat "), 0) << "the first run made no model calls";
  EXPECT_EQ(HashLength(keys::SweepResults("rerun")), units) << "committed units in Redis";

  // A different folder: nothing to resume from on disk, everything from Redis.
  ASSERT_FALSE(std::filesystem::exists(Path("b")));
  ASSERT_EQ(RunToExit({"run", config, "--out", Path("b"), "--seed", kSeed, "--redis", redis_->url(), "--call-log",
                       Path("calls-b.log")},
                      &output),
            0)
      << output;
  EXPECT_EQ(ReadFile(Path("calls-b.log")), "") << "re-running a finished sweep made model calls";
  EXPECT_EQ(AlreadyDone(output), units) << output;
  EXPECT_FALSE(std::filesystem::exists(Path("b/.noveltygrid/journal.jsonl"))) << "with --redis the state is in Redis";
  const std::string a = ReadFile(Path("a/answers.jsonl"));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == ReadFile(Path("b/answers.jsonl"))) << "answers.jsonl differs between the run and its re-run";
  ExpectSameResults(Path("reference"), Path("a"));
  ExpectSameResults(Path("reference"), Path("b"));
}

// ---- 2: the embedding cache serves repeated texts and changes no result ----

TEST_F(RedisClusterTest, EmbeddingCacheHitsAndResultsUnchanged) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  // The same sweep under two names: the second one's texts are all in the cache already.
  const Sweep first = MakeSweep("cache-a", {"sim:explorer", "sim:collapse"});
  Sweep second = first;
  second.file = "cache-b";
  const std::string config_a = WriteSweep(first);
  const std::string config_b = WriteSweep(second);
  ASSERT_NO_FATAL_FAILURE(RunReference(config_a, Path("reference-a")));
  ASSERT_NO_FATAL_FAILURE(RunReference(config_b, Path("reference-b")));

  // What the cache must do, from the reference answers: with one loop at a time, every non-empty answer
  // is embedded once -- a hit if the same text was embedded before, else a request.
  int64_t embedded = 0, repeats = 0;
  {
    std::set<std::string> seen;
    for (const nlohmann::json& a : ReadJsonLines(Path("reference-a/answers.jsonl"))) {
      ASSERT_TRUE(a.is_object());
      const std::string text = a.value("answer", "");
      if (text.empty()) continue;
      ++embedded;
      if (!seen.insert(text).second) ++repeats;
    }
  }
  ASSERT_GT(embedded, 0);
  ASSERT_GT(repeats, 0) << "no answer text recurs within the sweep: nothing for the cache to serve";

  std::string output;
  ASSERT_EQ(RunToExit({"run", config_a, "--out", Path("a"), "--seed", kSeed, "--quiet", "--concurrency", "1", "--redis",
                       redis_->url()},
                      &output),
            0)
      << output;
  ExpectSameResults(Path("reference-a"), Path("a"));
  const nlohmann::json calls_a = Calls(Path("a"), "embed:lexical");
  ASSERT_TRUE(calls_a.is_object()) << ReadFile(Path("a/summary.json")).substr(0, 2000);
  EXPECT_GT(calls_a.value("cache_hits", 0), 0) << calls_a.dump();
  EXPECT_EQ(calls_a.value("cache_hits", -1), repeats) << calls_a.dump();
  EXPECT_EQ(calls_a.value("cache_hits", -1) + calls_a.value("requests", -1), embedded) << calls_a.dump();

  // Every text of the second sweep is cached: no embedding call at all.
  ASSERT_EQ(RunToExit({"run", config_b, "--out", Path("b"), "--seed", kSeed, "--quiet", "--redis", redis_->url(),
                       "--call-log", Path("calls-b.log")},
                      &output),
            0)
      << output;
  ExpectSameResults(Path("reference-b"), Path("b"));
  const nlohmann::json calls_b = Calls(Path("b"), "embed:lexical");
  ASSERT_TRUE(calls_b.is_object()) << ReadFile(Path("b/summary.json")).substr(0, 2000);
  EXPECT_GT(calls_b.value("cache_hits", 0), 0) << calls_b.dump();
  EXPECT_EQ(calls_b.value("cache_hits", -1), embedded) << calls_b.dump();
  EXPECT_EQ(calls_b.value("requests", -1), 0) << calls_b.dump();
  const std::string log_b = ReadFile(Path("calls-b.log"));
  EXPECT_EQ(CountLines(log_b, "embed "), 0) << "embedding calls despite a warm cache";
  EXPECT_GT(CountLines(log_b, "chat "), 0);
}

// ---- 3: a worker that cannot reach Redis warns once and works on ----

TEST_F(RedisClusterTest, UnreachableRedisWarnsOnceAndResultsUnchanged) {
  const std::string config = WriteSweep(MakeSweep("noredis", {"sim:steady", "sim:collapse"}));
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));
  const int closed_port = testing_redis::FreeLoopbackPort();
  ASSERT_NE(closed_port, 0);

  std::string address;
  auto coordinator = StartCoordinator(config, Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);
  auto worker = StartWorker(address, "cacheless", 4, {"--redis", absl::StrCat("redis://127.0.0.1:", closed_port)});
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();

  const std::string err = worker->Stderr();
  EXPECT_EQ(CountLines(err, "noveltygrid worker: warning"), 1) << err;
  EXPECT_TRUE(absl::StrContains(err, absl::StrCat("127.0.0.1:", closed_port))) << "the warning names the server\n"
                                                                               << err;
  ExpectSameResults(Path("reference"), Path("cluster"));
  ExpectJournalHasEachUnitOnce(Path("cluster"), 2 * 10);
}

// ---- 4: a worker killed mid-loop costs at most the iteration in flight ----

TEST_F(RedisClusterTest, KilledWorkerResumesFromCheckpointRepeatingAtMostOneIteration) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  // One unit with a long loop (sim:explorer gives 85 answers on this question with seed 42).
  Sweep sweep = MakeSweep("ckpt", {"sim:explorer"});
  sweep.question_ids = {"aidan-03"};
  const std::string config = WriteSweep(sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));
  const std::vector<nlohmann::json> reference = ReadJsonLines(Path("reference/answers.jsonl"));
  const int64_t answers = static_cast<int64_t>(reference.size());
  ASSERT_GE(answers, 30) << "the loop is too short to kill a worker in its middle";
  const std::string unit_id = reference.front().value("unit_id", "");
  ASSERT_FALSE(unit_id.empty());
  const std::string checkpoint = keys::Checkpoint(unit_id);

  std::vector<std::string> redis = {"--redis", redis_->url()};
  std::vector<std::string> coordinator_flags = kQuickRecovery;
  coordinator_flags.insert(coordinator_flags.end(), redis.begin(), redis.end());
  std::string address;
  auto coordinator = StartCoordinator(config, Path("cluster"), coordinator_flags, &address);
  ASSERT_NE(coordinator, nullptr);
  auto a = StartWorker(address, "a", 1, {"--redis", redis_->url(), "--call-log", Path("calls-a.log")});
  ASSERT_NE(a, nullptr);

  // Kill A as soon as 10 steps are checkpointed (polled without pause: the loop is fast).
  int64_t steps = 0;
  ASSERT_TRUE(PollFor([&] { return (steps = ListLength(checkpoint)) >= 10; }, absl::Seconds(60), absl::ZeroDuration()))
      << "the checkpoint list " << checkpoint << " has " << steps << " step(s)\n"
      << a->Output() << coordinator->Output();
  a->Signal(SIGKILL);
  ASSERT_EQ(a->Wait(), 128 + SIGKILL) << a->Output();
  const int64_t checkpointed = ListLength(checkpoint);
  CoordinatorClient client(address, kToken);
  absl::StatusOr<v1::StatusResponse> status = client.Status();
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->units_done(), 0) << "the unit finished before the worker was killed; checkpointed " << checkpointed
                                     << " of " << answers;
  ASSERT_GE(checkpointed, 10);
  ASSERT_LT(checkpointed, answers);

  auto b = StartWorker(address, "b", 1, {"--redis", redis_->url(), "--call-log", Path("calls-b.log")});
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Wait(), 0) << b->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_EQ(ListLength(checkpoint), 0) << "the checkpoint outlived the commit";
  EXPECT_EQ(HashLength(keys::SweepResults("ckpt")), 1);

  const std::string log_a = ReadFile(Path("calls-a.log"));
  const std::string log_b = ReadFile(Path("calls-b.log"));
  const int64_t generated_a = CountLines(log_a, "chat sim:explorer ");
  const int64_t generated_b = CountLines(log_b, "chat sim:explorer ");
  const int64_t judged_a = CountLines(log_a, "chat sim:judge ");
  const int64_t judged_b = CountLines(log_b, "chat sim:judge ");
  SCOPED_TRACE(absl::StrCat("answers ", answers, ", checkpointed at the kill ", checkpointed, "; A generated ",
                            generated_a, " judged ", judged_a, "; B generated ", generated_b, " judged ", judged_b));
  EXPECT_GE(generated_a, checkpointed);
  EXPECT_GE(generated_a + generated_b, answers);
  EXPECT_LE(generated_a + generated_b, answers + 1) << "more than one iteration was repeated";
  EXPECT_LE(judged_a + judged_b, answers + 1) << "more than one iteration's judging was repeated";
  EXPECT_LE(std::abs(generated_b - (answers - checkpointed)), 1) << "B did not resume from the checkpoint";
  EXPECT_EQ(CountLines(log_b, "chat "), generated_b + judged_b);
}

// NoveltyBench checkpoints each generation like an AidanBench iteration: a worker killed in the middle
// of an in-context unit (one conversation of k turns) is replaced by one that asks only for the
// generations the checkpoint lacks, and the results equal an uninterrupted run.
TEST_F(RedisClusterTest, KilledWorkerResumesNoveltyBenchUnitFromItsGenerations) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  constexpr int kGenerations = 60;
  const std::string config = Path("nb-ckpt.yaml");
  {
    std::ofstream out(config);
    out << "name: nb-ckpt\nseed: 7\nmodels: [sim:explorer]\ntemperatures: [1.0]\nconcurrency: 1\n"
        << "noveltybench:\n  prompts: " << NOVELTYGRID_SOURCE_DIR "/datasets/noveltybench/prompts-own-20.jsonl\n"
        << "  limit: 1\n  k: " << kGenerations << "\n  modes: [in-context]\n";
    ASSERT_TRUE(out.good());
  }
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));
  const std::vector<nlohmann::json> reference = ReadJsonLines(Path("reference/samples.jsonl"));
  ASSERT_EQ(reference.size(), 1u);
  ASSERT_EQ(reference[0]["generations"].size(), static_cast<size_t>(kGenerations));
  const std::string checkpoint = keys::Checkpoint(reference[0].value("unit_id", ""));

  std::vector<std::string> coordinator_flags = kQuickRecovery;
  coordinator_flags.insert(coordinator_flags.end(), {"--redis", redis_->url()});
  std::string address;
  auto coordinator = StartCoordinator(config, Path("cluster"), coordinator_flags, &address);
  ASSERT_NE(coordinator, nullptr);
  auto a = StartWorker(address, "a", 1, {"--redis", redis_->url(), "--call-log", Path("calls-a.log")});
  ASSERT_NE(a, nullptr);
  int64_t steps = 0;
  ASSERT_TRUE(PollFor([&] { return (steps = ListLength(checkpoint)) >= 10; }, absl::Seconds(60), absl::ZeroDuration()))
      << "the checkpoint list " << checkpoint << " has " << steps << " step(s)\n"
      << a->Output() << coordinator->Output();
  a->Signal(SIGKILL);
  ASSERT_EQ(a->Wait(), 128 + SIGKILL) << a->Output();
  const int64_t checkpointed = ListLength(checkpoint);
  ASSERT_GE(checkpointed, 10);
  ASSERT_LT(checkpointed, kGenerations) << "the unit was complete before the kill";

  auto b = StartWorker(address, "b", 1, {"--redis", redis_->url(), "--call-log", Path("calls-b.log")});
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Wait(), 0) << b->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_EQ(ListLength(checkpoint), 0) << "the checkpoint outlived the commit";

  const int64_t generated_a = CountLines(ReadFile(Path("calls-a.log")), "chat sim:explorer ");
  const int64_t generated_b = CountLines(ReadFile(Path("calls-b.log")), "chat sim:explorer ");
  SCOPED_TRACE(absl::StrCat("checkpointed at the kill ", checkpointed, "; A generated ", generated_a, ", B generated ",
                            generated_b));
  EXPECT_GE(generated_a, checkpointed);
  EXPECT_LE(generated_a + generated_b, kGenerations + 1) << "more than one generation was asked again";
  EXPECT_LE(std::abs(generated_b - (kGenerations - checkpointed)), 1) << "B did not resume from the checkpoint";
}

// A worker that dies after checkpointing its loop's final step but before the commit lands (the
// coordinator is frozen to hold that window open): the next worker finds the whole loop in the checkpoint
// and must commit it without a model call.
TEST_F(RedisClusterTest, UnitCheckpointedToItsEndIsCommittedWithoutModelCalls) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  Sweep sweep = MakeSweep("ended", {"sim:explorer"});
  sweep.question_ids = {"aidan-03"};
  const std::string config = WriteSweep(sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));
  const std::vector<nlohmann::json> reference = ReadJsonLines(Path("reference/answers.jsonl"));
  const int64_t answers = static_cast<int64_t>(reference.size());
  ASSERT_GE(answers, 10);
  const std::string checkpoint = keys::Checkpoint(reference.front().value("unit_id", ""));

  std::vector<std::string> coordinator_flags = kQuickRecovery;
  coordinator_flags.insert(coordinator_flags.end(), {"--redis", redis_->url()});
  std::string address;
  auto coordinator = StartCoordinator(config, Path("cluster"), coordinator_flags, &address);
  ASSERT_NE(coordinator, nullptr);
  auto a = StartWorker(address, "a", 1, {"--redis", redis_->url(), "--call-log", Path("calls-a.log")});
  ASSERT_NE(a, nullptr);
  int64_t steps = 0;
  ASSERT_TRUE(PollFor([&] { return (steps = ListLength(checkpoint)) >= 3; }, absl::Seconds(60), absl::ZeroDuration()))
      << a->Output() << coordinator->Output();
  // Frozen, the coordinator cannot take the commit (nor delete the checkpoint); the loop runs to its end.
  coordinator->Signal(SIGSTOP);
  ASSERT_TRUE(PollFor([&] {
    steps = ListLength(checkpoint);
    return steps == 0 || steps == answers;
  })) << "the checkpoint has "
      << steps << " of " << answers << " steps\n"
      << a->Output();
  ASSERT_EQ(steps, answers) << "the unit was committed before the coordinator was frozen";
  a->Signal(SIGKILL);
  ASSERT_EQ(a->Wait(), 128 + SIGKILL) << a->Output();
  coordinator->Signal(SIGCONT);

  auto b = StartWorker(address, "b", 1, {"--redis", redis_->url(), "--call-log", Path("calls-b.log")});
  ASSERT_NE(b, nullptr);
  std::optional<int> b_exit = b->WaitFor(absl::Seconds(30));
  ASSERT_TRUE(b_exit.has_value()) << "worker b hangs\n" << b->Output();
  ASSERT_EQ(*b_exit, 0) << b->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_EQ(CountLines(ReadFile(Path("calls-b.log")), "chat "), 0) << "the checkpointed loop was run again";
  EXPECT_EQ(ListLength(checkpoint), 0);
}

// ---- 5: a coordinator killed mid-sweep and restarted resumes from Redis ----

// One worker, so that the restarted coordinator cannot finish without it: a worker reconnects with
// backoff (seconds), and a sweep finished by others before it is back would leave it retrying forever,
// since nobody tells it the sweep is complete. Without Redis (its default) the worker redoes the units
// it had in flight at the kill from scratch; with Redis it resumes them from their checkpoints.
class CoordinatorRestartTest : public RedisClusterTest, public ::testing::WithParamInterface<bool> {};

TEST_P(CoordinatorRestartTest, KilledCoordinatorRestartsFromRedis) {
  const bool worker_uses_redis = GetParam();
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  const Sweep sweep = MakeSweep("restart", {"sim:steady", "sim:explorer"}, 40);
  const int64_t units = 2 * 40;
  const std::string config = WriteSweep(sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));

  // A fixed port for both coordinators: the worker knows one address.
  const int port = testing_redis::FreeLoopbackPort();
  ASSERT_NE(port, 0);
  const std::string address = absl::StrCat("127.0.0.1:", port);
  const std::vector<std::string> redis = {"--redis", redis_->url()};
  std::string listening;
  auto first = StartCoordinatorAt(port, config, Path("cluster"), redis, &listening);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(AlreadyDone(listening), 0) << listening;
  auto worker = StartWorker(address, "w", 2, worker_uses_redis ? redis : std::vector<std::string>{});
  ASSERT_NE(worker, nullptr);

  CoordinatorClient client(address, kToken);
  absl::StatusOr<v1::StatusResponse> status =
      client.PollUntil([](const v1::StatusResponse& s) { return s.units_done() * 5 >= s.units_total(); });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << first->Output();
  first->Signal(SIGKILL);
  ASSERT_EQ(first->Wait(), 128 + SIGKILL) << first->Output();
  ASSERT_FALSE(status->complete()) << "the sweep completed before the coordinator was killed";
  const int64_t done_before = status->units_done();

  auto second = StartCoordinatorAt(port, config, Path("cluster"), redis, &listening);
  ASSERT_NE(second, nullptr);
  const int64_t resumed = AlreadyDone(listening);
  EXPECT_GE(resumed, done_before) << "units committed before the kill were lost: " << listening;
  EXPECT_LT(resumed, units) << listening;

  ASSERT_EQ(worker->Wait(), 0) << worker->Output();
  EXPECT_TRUE(absl::StrContains(worker->Stderr(), "connected to")) << "the worker did not reconnect\n"
                                                                   << worker->Output();
  ASSERT_EQ(second->Wait(), 0) << second->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_EQ(HashLength(keys::SweepResults("restart")), units);
  nlohmann::json summary = nlohmann::json::parse(ReadFile(Path("cluster/summary.json")), nullptr, false);
  ASSERT_TRUE(summary.is_object());
  EXPECT_EQ(summary["run"].value("units_resumed", -1), resumed) << summary["run"].dump();
}

INSTANTIATE_TEST_SUITE_P(Workers, CoordinatorRestartTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("WithRedis") : std::string("WithoutRedis");
                         });

// ---- 6: Redis restarted (AOF) in the middle of a cluster sweep ----

TEST_F(RedisClusterTest, RedisRestartMidSweepIsSurvived) {
  ASSERT_NO_FATAL_FAILURE(StartRedis(/*append_only=*/true));
  const Sweep sweep = MakeSweep("aof", {"sim:steady", "sim:explorer"}, 40);
  const int64_t units = 2 * 40;
  const std::string config = WriteSweep(sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));

  const std::vector<std::string> redis = {"--redis", redis_->url()};
  std::string address;
  auto coordinator = StartCoordinator(config, Path("cluster"), redis, &address);
  ASSERT_NE(coordinator, nullptr);
  std::vector<std::unique_ptr<Process>> workers;
  for (int i = 0; i < 2; ++i) {
    workers.push_back(StartWorker(address, absl::StrCat("w", i), 2, redis));
    ASSERT_NE(workers.back(), nullptr);
  }

  CoordinatorClient client(address, kToken);
  absl::StatusOr<v1::StatusResponse> status =
      client.PollUntil([](const v1::StatusResponse& s) { return s.units_done() * 5 >= s.units_total(); });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << coordinator->Output();
  ASSERT_FALSE(status->complete()) << "the sweep completed before Redis was restarted";
  const int64_t done_before = status->units_done();

  ASSERT_TRUE(redis_->Stop().ok());
  ASSERT_TRUE(redis_->Restart().ok());
  EXPECT_GE(HashLength(keys::SweepResults("aof")), done_before) << "commits were lost in the restart";

  for (auto& w : workers) EXPECT_EQ(w->Wait(), 0) << w->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_EQ(HashLength(keys::SweepResults("aof")), units);
  // The outage costs each worker at most one warning per feature (embedding cache, loop checkpoints).
  for (auto& w : workers) EXPECT_LE(CountLines(w->Stderr(), "noveltygrid: warning"), 2) << w->Output();
}

// ---- 7: another plan under the same sweep name is refused ----

TEST_F(RedisClusterTest, DifferentConfigUnderSameSweepNameIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  Sweep sweep = MakeSweep("x", {"sim:collapse"});
  sweep.name = "shared";
  const std::string x = WriteSweep(sweep);
  sweep.file = "y";
  sweep.seed = 8;  // another plan under the same name
  const std::string y = WriteSweep(sweep);
  std::string output;
  ASSERT_EQ(RunToExit({"run", x, "--out", Path("x"), "--quiet", "--redis", redis_->url()}, &output), 0) << output;
  absl::StatusOr<std::optional<std::string>> fingerprint = store_->Get(keys::SweepFingerprint("shared"));
  ASSERT_TRUE(fingerprint.ok() && fingerprint->has_value()) << "no fingerprint stored for sweep 'shared'";

  EXPECT_EQ(RunToExit({"run", y, "--out", Path("y"), "--quiet", "--redis", redis_->url()}, &output), 1) << output;
  EXPECT_TRUE(absl::StrContains(output, "'shared'")) << "the message names the sweep\n" << output;
  EXPECT_TRUE(absl::StrContains(output, "ng:sweep:shared:")) << "the message says how to clear it\n" << output;
  EXPECT_FALSE(std::filesystem::exists(Path("y/answers.jsonl"))) << "the refused sweep wrote results";
  // The refusal changed nothing.
  absl::StatusOr<std::optional<std::string>> after = store_->Get(keys::SweepFingerprint("shared"));
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, *fingerprint);
  EXPECT_EQ(HashLength(keys::SweepResults("shared")), 10);

  // Clearing the state as the message says lets the other config run.
  std::smatch command;
  ASSERT_TRUE(std::regex_search(output, command, std::regex(R"(redis-cli [^\n]*)"))) << output;
  std::optional<std::string> shell = FindOnPath("sh");
  if (FindOnPath("redis-cli").has_value() && shell.has_value()) {
    const std::string with_port =
        std::regex_replace(command.str(), std::regex("redis-cli"), absl::StrCat("redis-cli -p ", redis_->port()));
    ProcessOptions options;
    options.args = {*shell, "-c", with_port};
    absl::StatusOr<std::unique_ptr<Process>> clear = Process::Start(options);
    ASSERT_TRUE(clear.ok()) << clear.status();
    ASSERT_EQ((*clear)->Wait(), 0) << with_port << "\n" << (*clear)->Output();
  } else {
    ASSERT_TRUE(store_->Delete(keys::SweepFingerprint("shared")).ok());
    ASSERT_TRUE(store_->Delete(keys::SweepResults("shared")).ok());
  }
  EXPECT_EQ(HashLength(keys::SweepResults("shared")), 0);
  ASSERT_EQ(RunToExit({"run", y, "--out", Path("y"), "--quiet", "--redis", redis_->url()}, &output), 0) << output;
  ASSERT_EQ(RunToExit({"run", y, "--out", Path("y-reference"), "--quiet"}, &output), 0) << output;
  ExpectSameResults(Path("y-reference"), Path("y"));
}

}  // namespace
}  // namespace noveltygrid::testing
