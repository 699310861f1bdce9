// Redis end to end, resuming: a worker killed mid-loop costs at most the iteration in flight (loop
// checkpoints), a unit checkpointed to its end is committed without model calls, and a coordinator
// killed mid-sweep restarts from Redis. See redis_test.cc for the overview; synchronisation is on
// conditions only, never a sleep.
#include <memory>
#include <string>
#include <vector>

#include "tests/integration/redis_cluster_test.h"

namespace noveltygrid::testing {
namespace {

// ---- 4: a worker killed mid-loop costs at most the iteration in flight ----

TEST_F(RedisClusterTest, KilledWorkerResumesFromCheckpointRepeatingAtMostOneIteration) {
  ASSERT_NO_FATAL_FAILURE(StartRedis());
  LongUnit unit;
  ASSERT_NO_FATAL_FAILURE(WriteLongUnitWithReference("ckpt", &unit));
  const std::string& config = unit.config;
  const int64_t answers = unit.answers;
  const std::string& checkpoint = unit.checkpoint;
  ASSERT_GE(answers, 30) << "the loop is too short to kill a worker in its middle";

  RedisRun killed;
  ASSERT_NO_FATAL_FAILURE(KillWorkerMidLoop(config, checkpoint, &killed));
  const int64_t checkpointed = killed.checkpointed;
  CoordinatorClient client(killed.address, kToken);
  absl::StatusOr<v1::StatusResponse> status = client.Status();
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->units_done(), 0) << "the unit finished before the worker was killed; checkpointed " << checkpointed
                                     << " of " << answers;
  ASSERT_GE(checkpointed, 10);
  ASSERT_LT(checkpointed, answers);

  ASSERT_NO_FATAL_FAILURE(FinishWithWorkerB(killed, checkpoint));
  EXPECT_EQ(HashLength(keys::Units()), 1);

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

  RedisRun killed;
  ASSERT_NO_FATAL_FAILURE(KillWorkerMidLoop(config, checkpoint, &killed));
  const int64_t checkpointed = killed.checkpointed;
  ASSERT_GE(checkpointed, 10);
  ASSERT_LT(checkpointed, kGenerations) << "the unit was complete before the kill";

  ASSERT_NO_FATAL_FAILURE(FinishWithWorkerB(killed, checkpoint));

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
  LongUnit unit;
  ASSERT_NO_FATAL_FAILURE(WriteLongUnitWithReference("ended", &unit));
  const int64_t answers = unit.answers;
  const std::string& checkpoint = unit.checkpoint;
  ASSERT_GE(answers, 10);

  RedisRun run;
  ASSERT_NO_FATAL_FAILURE(StartWithWorkerA(unit.config, &run));
  const std::unique_ptr<Process>& coordinator = run.coordinator;
  const std::unique_ptr<Process>& a = run.a;
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

  auto b = StartWorker(run.address, "b", 1, {"--redis", redis_->url(), "--call-log", Path("calls-b.log")});
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
  EXPECT_EQ(HashLength(keys::Units()), units);
  nlohmann::json summary = nlohmann::json::parse(ReadFile(Path("cluster/summary.json")), nullptr, false);
  ASSERT_TRUE(summary.is_object());
  EXPECT_EQ(summary["run"].value("units_resumed", -1), resumed) << summary["run"].dump();
}

INSTANTIATE_TEST_SUITE_P(Workers, CoordinatorRestartTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("WithRedis") : std::string("WithoutRedis");
                         });

}  // namespace
}  // namespace noveltygrid::testing
