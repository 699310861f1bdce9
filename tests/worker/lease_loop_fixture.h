// The LeaseLoop test fixture, shared by lease_loop_test.cc and lease_loop_coordinator_away_test.cc.
// LeaseLoop against the real coordinator logic (CoordinatorCore through InProcessCoordinatorClient,
// wrapped in a RecordingClient), on a FakeClock, with a FakeUnitRunner whose units the test finishes
// by hand. Nothing sleeps: the test waits for calls (RecordingClient::AwaitUntil), for started units
// (FakeUnitRunner::AwaitStarted) and for the loop's threads to wait on the clock (FakeClock::AwaitDeadline
// / AwaitWaiters) before it advances time.
#ifndef NOVELTYGRID_TESTS_WORKER_LEASE_LOOP_FIXTURE_H_
#define NOVELTYGRID_TESTS_WORKER_LEASE_LOOP_FIXTURE_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "common/storage/memory_store.h"
#include "coordinator/service/in_process_client.h"
#include "gtest/gtest.h"
#include "tests/coordinator/service/test_coordinator.h"
#include "tests/worker/fake_unit_runner.h"
#include "tests/worker/recording_client.h"
#include "worker/checkpoint/checkpoint_store.h"
#include "worker/lease_loop.h"

namespace noveltygrid::testing {

inline constexpr absl::Duration kHeartbeat = absl::Seconds(2);         // the coordinator's heartbeat interval
inline constexpr absl::Duration kIdleRetry = absl::Milliseconds(500);  // its retry_after when nothing is free
inline constexpr absl::Duration kMaxBackoff = absl::Seconds(1);

class LeaseLoopTest : public ::testing::Test {
 protected:
  ~LeaseLoopTest() override {
    if (run_thread_.joinable()) {  // a test that did not finish: end its units, then the loop
      runner_.CancelAll();
      loop_->Drain();
      run_thread_.join();
    }
  }

  // The coordinator of `units` units, made before Start (to give its units a history first).
  void PrepareCoordinator(int units) { coordinator_ = std::make_unique<TestCoordinator>(units, &clock_); }

  // Starts Run() on its own thread, against a coordinator of `units` units (PrepareCoordinator's, if made).
  void Start(int units, int concurrency, const std::string& token = kToken, bool reachable = true) {
    if (coordinator_ == nullptr) PrepareCoordinator(units);
    in_process_ = std::make_unique<InProcessCoordinatorClient>(&coordinator_->core(), token);
    in_process_->SetReachable(reachable);
    client_ = std::make_unique<RecordingClient>(in_process_.get());
    WorkerOptions options;
    options.coordinator = "in-process";
    options.worker_id = "w1";
    options.concurrency = concurrency;
    options.drain_grace = absl::Seconds(30);
    options.max_backoff = kMaxBackoff;
    options.reconnect_window = reconnect_window_;
    options.min_round_interval = round_interval_;
    options.stall_multiple = 2;
    options.waiting_on = [this](const std::string& /*lease_id*/) -> std::optional<WaitingCall> {
      return WaitingCall{.call = "generate by m", .since = waiting_since_, .timeout = absl::Seconds(1), .in_flight = 1};
    };
    options.log = false;
    options.observer = observer_;
    options.abort_calls = [this] {
      ++aborts_;
      runner_.CancelAll();
    };
    loop_ = std::make_unique<LeaseLoop>(options, client_.get(), &runner_, checkpoints_.get(), &clock_);
    run_thread_ = std::thread([this] { run_status_ = loop_->Run(); });
  }

  absl::Status Join() {
    run_thread_.join();
    return run_status_;
  }

  // Finishes the one unit running, waits for its commit and stops the loop.
  void FinishTheUnitAndStop() {
    runner_.Finish(0, kStopIncoherent);
    client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
    loop_->Drain();
    ASSERT_TRUE(Join().ok()) << run_status_;
  }

  // Waits until the heartbeat thread waits for its interval, then lets it beat once.
  void Beat() {
    clock_.AwaitDeadline(clock_.Now() + kHeartbeat);
    const size_t before = client_->log().heartbeats.size();
    clock_.Advance(kHeartbeat);
    client_->AwaitUntil([before](const CallLog& log) { return log.heartbeats.size() > before; });
  }

  FakeClock clock_;
  std::unique_ptr<TestCoordinator> coordinator_;
  std::unique_ptr<InProcessCoordinatorClient> in_process_;
  std::unique_ptr<RecordingClient> client_;
  FakeUnitRunner runner_;
  InMemoryStore store_;
  std::unique_ptr<CheckpointStore> checkpoints_;
  std::unique_ptr<LeaseLoop> loop_;
  std::thread run_thread_;
  absl::Status run_status_;
  std::atomic<int> aborts_{0};
  absl::Duration reconnect_window_ = absl::Minutes(5);
  absl::Duration round_interval_ = absl::ZeroDuration();
  absl::Time waiting_since_ = absl::UnixEpoch();
  UnitObserver* observer_ = nullptr;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_LEASE_LOOP_FIXTURE_H_
