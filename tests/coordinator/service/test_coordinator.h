// TestCoordinator: a real CoordinatorCore over a real UnitScheduler on a FakeClock, with a commit sink
// that records what it persists (and can be made to fail), for the coordinator service tests and the
// lease loop tests (through InProcessCoordinatorClient).
#ifndef NOVELTYGRID_TESTS_COORDINATOR_SERVICE_TEST_COORDINATOR_H_
#define NOVELTYGRID_TESTS_COORDINATOR_SERVICE_TEST_COORDINATOR_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "coordinator/benchmarks/benchmark.h"
#include "coordinator/lease/unit_scheduler.h"
#include "coordinator/plan/planner.h"
#include "coordinator/service/coordinator_core.h"

namespace noveltygrid::testing {

inline constexpr char kToken[] = "s3cret";

// `n` units of model "m", ids "u0", "u1", ...: AidanBench's, or with `mixed` the odd ones NoveltyBench's.
inline std::vector<UnitSpec> TestUnits(int n, bool mixed = false) {
  std::vector<UnitSpec> units;
  for (int i = 0; i < n; ++i) {
    UnitSpec unit;
    unit.id = absl::StrCat("u", i);
    unit.index = i;
    unit.benchmark = mixed && i % 2 == 1 ? kNoveltyBench : kAidanBench;
    unit.model = "m";
    unit.item_id = absl::StrCat("q", i);
    unit.item_text = absl::StrCat("question ", i);
    units.push_back(unit);
  }
  return units;
}

// The plan's one benchmark: units named kAidanBench, leased with settings naming judge "judge" and
// embedder "embedder".
class TestBenchmark : public Benchmark {
 public:
  std::string name() const override { return kAidanBench; }
  void PlanUnits(const std::vector<std::string>&, std::vector<UnitSpec>&, StableHasher&) const override {}
  std::vector<std::string> HelperModels() const override { return {"judge", "embedder"}; }
  void AttachSettings(v1::Lease& lease) const override {
    lease.mutable_aidan()->set_judge("judge");
    lease.mutable_aidan()->set_embedder("embedder");
  }
  absl::Status CheckResult(const UnitResult&) const override { return absl::OkStatus(); }
  std::map<std::string, CallsEstimate> ExpectedCalls(const UnitSpec&, const LearnedCosts&) const override { return {}; }
  std::unique_ptr<BenchmarkReducer> MakeReducer(const std::vector<std::string>&, const UnitSource*) const override {
    return nullptr;
  }
};

// The second benchmark of a mixed plan: NoveltyBench units leased with settings k = 10.
class TestNoveltyBenchmark : public TestBenchmark {
 public:
  std::string name() const override { return kNoveltyBench; }
  std::vector<std::string> HelperModels() const override { return {}; }
  void AttachSettings(v1::Lease& lease) const override { lease.mutable_novelty()->set_k(10); }
};

class TestCoordinator {
 public:
  // `mixed`: the odd units are NoveltyBench's (TestUnits), with TestNoveltyBenchmark in the plan.
  explicit TestCoordinator(int units, FakeClock* clock, SchedulerOptions scheduler_options = {}, bool mixed = false)
      : scheduler_(TestUnits(units, mixed), {"m"}, scheduler_options, clock) {
    CoordinatorServiceOptions options;
    options.token = kToken;
    options.sweep_name = "test-sweep";
    options.on_marked_done = [this] {
      absl::MutexLock lock(&mu_);
      ++marked_done_;
    };
    options.on_lost_loop_ended = [this](const std::string& unit_id) {
      absl::MutexLock lock(&mu_);
      lost_loops_ended_.push_back(unit_id);
    };
    plan_.units = TestUnits(units, mixed);
    plan_.models = {"m"};
    plan_.benchmarks.push_back(std::make_shared<TestBenchmark>());
    if (mixed) plan_.benchmarks.push_back(std::make_shared<TestNoveltyBenchmark>());
    core_ = std::make_unique<CoordinatorCore>(
        options, &plan_, &scheduler_, [this](std::vector<JournalEntry> units) { return Persist(std::move(units)); });
  }

  CoordinatorCore& core() { return *core_; }
  UnitScheduler& scheduler() { return scheduler_; }

  // While held, a sink call waits (AwaitHeld counts those waiting) until ResumePersist.
  void HoldPersist() {
    absl::MutexLock lock(&mu_);
    hold_ = true;
  }
  void ResumePersist() {
    absl::MutexLock lock(&mu_);
    hold_ = false;
  }
  // Whether `n` sink calls are held within `timeout`.
  bool AwaitHeld(int n, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    const auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return held_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }
  // While set, persisting fails (as when the journal's disk is full).
  void FailPersist(bool fail) {
    absl::MutexLock lock(&mu_);
    fail_persist_ = fail;
  }
  std::vector<UnitResult> committed() const {
    absl::MutexLock lock(&mu_);
    return committed_;
  }
  int marked_done() const {
    absl::MutexLock lock(&mu_);
    return marked_done_;
  }
  // The units on_lost_loop_ended was called for, in order.
  std::vector<std::string> lost_loops_ended() const {
    absl::MutexLock lock(&mu_);
    return lost_loops_ended_;
  }
  // Calls of the sink, failed ones included.
  int persist_attempts() const {
    absl::MutexLock lock(&mu_);
    return persist_attempts_;
  }
  // The unit ids of each sink call that persisted, in order.
  std::vector<std::vector<std::string>> batches() const {
    absl::MutexLock lock(&mu_);
    return batches_;
  }

 private:
  absl::Status Persist(std::vector<JournalEntry> units) {
    absl::MutexLock lock(&mu_);
    ++persist_attempts_;
    const bool fail = fail_persist_;  // as the call starts: a held call fails as it would have
    if (hold_) {
      ++held_;
      const auto resumed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !hold_; };
      mu_.Await(absl::Condition(&resumed));
      --held_;
    }
    if (fail) return absl::InternalError("disk full");
    std::vector<std::string>& batch = batches_.emplace_back();
    for (JournalEntry& unit : units) {
      batch.push_back(unit.result.unit.id);
      committed_.push_back(std::move(unit.result));
    }
    return absl::OkStatus();
  }

  Plan plan_;
  UnitScheduler scheduler_;
  std::unique_ptr<CoordinatorCore> core_;
  mutable absl::Mutex mu_;
  bool fail_persist_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  int held_ ABSL_GUARDED_BY(mu_) = 0;  // sink calls waiting for ResumePersist
  std::vector<UnitResult> committed_ ABSL_GUARDED_BY(mu_);
  std::vector<std::vector<std::string>> batches_ ABSL_GUARDED_BY(mu_);
  int marked_done_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> lost_loops_ended_ ABSL_GUARDED_BY(mu_);
  int persist_attempts_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_COORDINATOR_SERVICE_TEST_COORDINATOR_H_
