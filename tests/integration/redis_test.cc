// Redis end to end: a real redis-server (started per test on a free loopback port, its data in the test's
// temporary folder) shared by real `run`, coordinator and worker processes. What Redis promises in the
// README ("Redis: shared cache, checkpoints, restart-safe state"), checked from the outside:
//
//   - a finished sweep re-run into another folder resumes from Redis without a single model call;
//   - the embedding cache serves repeated texts and never changes a result;
//   - a worker that cannot reach Redis warns once and works on, uncached;
//   - a worker killed mid-loop costs at most the iteration in flight (loop checkpoints);
//   - a coordinator killed mid-sweep is restarted from Redis; a Redis restart (AOF) mid-sweep is survived;
//   - sweeps sharing a Redis share finished units, whatever their names and configs.
//
// Every comparison is with `noveltygrid run` without Redis (byte-identical results). Synchronisation is on
// conditions only -- a line a process prints, a Status poll, a Redis list length -- never a sleep; nothing
// asserts on timing. Used from the test thread only.
//
// This file: resuming a finished sweep, the embedding cache, Redis unreachable or restarted, and sweeps
// sharing units; redis_resume_test.cc: killed workers and coordinators resuming.
#include <memory>
#include <string>
#include <vector>

#include "tests/integration/redis_cluster_test.h"

namespace noveltygrid::testing {
namespace {

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
  EXPECT_EQ(HashLength(keys::Units()), units) << "committed units in Redis";

  // A different folder: nothing to resume from on disk, everything from Redis.
  ASSERT_FALSE(std::filesystem::exists(Path("b")));
  ASSERT_EQ(RunToExit({"run", config, "--out", Path("b"), "--seed", kSeed, "--redis", redis_->url(), "--call-log",
                       Path("calls-b.log")},
                      &output),
            0)
      << output;
  EXPECT_EQ(ReadFile(Path("calls-b.log")), "") << "re-running a finished sweep made model calls";
  EXPECT_EQ(AlreadyDone(output), units) << output;
  EXPECT_FALSE(std::filesystem::exists(Path("b/.noveltygrid/journal.bin"))) << "with --redis the state is in Redis";
  const std::string a = ReadFile(Path("a/answers.jsonl"));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == ReadFile(Path("b/answers.jsonl"))) << "answers.jsonl differs between the run and its re-run";
  ExpectSameResults(Path("reference"), Path("a"));
  ExpectSameResults(Path("reference"), Path("b"));
}

// ---- 2: the embedding cache serves repeated texts and changes no result ----

TEST_F(RedisClusterTest, EmbeddingCacheHitsAndResultsUnchanged) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  // The same sweep under two names, run again: the second run's texts are all in the cache already.
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

  nlohmann::json calls_a;
  ASSERT_NO_FATAL_FAILURE(RunOnRedis(config_a, "a", "reference-a", {"--concurrency", "1"}, &calls_a));
  EXPECT_GT(calls_a.value("cache_hits", 0), 0) << calls_a.dump();
  EXPECT_EQ(calls_a.value("cache_hits", -1), repeats) << calls_a.dump();
  EXPECT_EQ(calls_a.value("cache_hits", -1) + calls_a.value("requests", -1), embedded) << calls_a.dump();

  // Every text of the second sweep is cached: no embedding call at all. (Its units are the first
  // sweep's, and committed units are shared by id: drop them so that the loops run again.)
  ASSERT_TRUE(store_->Delete(keys::Units()).ok());
  nlohmann::json calls_b;
  ASSERT_NO_FATAL_FAILURE(RunOnRedis(config_b, "b", "reference-b", {"--call-log", Path("calls-b.log")}, &calls_b));
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
  EXPECT_GE(HashLength(keys::Units()), done_before) << "commits were lost in the restart";

  for (auto& w : workers) EXPECT_EQ(w->Wait(), 0) << w->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_EQ(HashLength(keys::Units()), units);
  // The outage costs each worker at most one warning per feature (embedding cache, loop checkpoints).
  for (auto& w : workers) EXPECT_LE(CountLines(w->Stderr(), "noveltygrid: warning"), 2) << w->Output();
}

// ---- 7: sweeps sharing a Redis share finished units, whatever their names and configs ----

TEST_F(RedisClusterTest, SweepsSharingARedisShareFinishedUnits) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  Sweep sweep = MakeSweep("x", {"sim:collapse"});
  sweep.name = "shared";
  const std::string x = WriteSweep(sweep);
  sweep.file = "y";
  sweep.models = {"sim:collapse", "sim:steady"};  // another study under the same name, one model more
  const std::string y = WriteSweep(sweep);
  sweep.file = "z";
  sweep.name = "elsewhere";
  sweep.models = {"sim:steady"};  // another name, only units y committed
  const std::string z = WriteSweep(sweep);
  std::string output;
  ASSERT_EQ(RunToExit({"run", x, "--out", Path("x"), "--quiet", "--redis", redis_->url()}, &output), 0) << output;
  EXPECT_EQ(HashLength(keys::Units()), 10);

  ASSERT_EQ(RunToExit({"run", y, "--out", Path("y"), "--quiet", "--redis", redis_->url()}, &output), 0) << output;
  EXPECT_EQ(HashLength(keys::Units()), 20);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(Path("y/summary.json")))["run"]["units_resumed"], 10)
      << "sim:collapse's units were run again";
  ASSERT_EQ(RunToExit({"run", y, "--out", Path("y-reference"), "--quiet"}, &output), 0) << output;
  ExpectSameResults(Path("y-reference"), Path("y"));

  ASSERT_EQ(RunToExit({"run", z, "--out", Path("z"), "--quiet", "--redis", redis_->url()}, &output), 0) << output;
  EXPECT_EQ(HashLength(keys::Units()), 20);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(Path("z/summary.json")))["run"]["units_resumed"], 10);
  ASSERT_EQ(RunToExit({"run", z, "--out", Path("z-reference"), "--quiet"}, &output), 0) << output;
  ExpectSameResults(Path("z-reference"), Path("z"));
}

}  // namespace
}  // namespace noveltygrid::testing
