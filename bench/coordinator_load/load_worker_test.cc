// Both kinds of fake worker -- blocking calls on threads of their own (FakeWorker) and gRPC's callback
// API (CallbackWorker) -- against a real CoordinatorService over gRPC on loopback: each leases, steps,
// reports and commits every unit of a small plan, the coordinator persists every one, and no step or
// commit is refused.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/coordinator_load/callback_worker.h"
#include "bench/coordinator_load/fake_worker.h"
#include "bench/coordinator_load/latency_recorder.h"
#include "bench/coordinator_load/scheduler.h"
#include "common/sanitizer_build.h"
#include "coordinator/service/coordinator_service.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "tests/coordinator/service/test_coordinator.h"

namespace noveltygrid::load {
namespace {

constexpr int kUnits = 24;

class LoadWorkerTest : public ::testing::TestWithParam<bool> {
 protected:
  LoadWorkerTest() : coordinator_(kUnits, &clock_), service_(&coordinator_.core()) {}
  ~LoadWorkerTest() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  void SetUp() override {
#ifdef NOVELTYGRID_TSAN_BUILD
    // As coordinator_service_test: TSan cannot see the synchronisation inside Debian's uninstrumented
    // gRPC core, and reports races there.
    GTEST_SKIP() << "a gRPC server and client in one process: TSan reports races inside the uninstrumented gRPC core";
#endif
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    GrpcClientOptions options;
    options.address = absl::StrCat("127.0.0.1:", port_);
    options.token = testing::kToken;
    absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> client = GrpcCoordinatorClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  const StepPool pool_{16, 60, 8, /*seed=*/3};  // before the client: requests reference its bytes
  FakeClock clock_;
  testing::TestCoordinator coordinator_;
  CoordinatorService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<GrpcCoordinatorClient> client_;
};

TEST_P(LoadWorkerTest, EveryUnitOfThePlanIsSteppedReportedAndCommitted) {
  const bool callback = GetParam();
  LatencyRecorder recorder;
  recorder.SetRecording(true);
  FakeWorkerOptions options;
  options.worker_id = "load-0";
  options.loops = 5;  // a plan of several units per slot
  options.step_interval = absl::Milliseconds(2);
  options.iterations = 4;  // 2 to 6 steps a unit
  options.round_interval = absl::Milliseconds(3);
  std::shared_ptr<LoadWorker> worker;
  Scheduler scheduler;  // the callback worker's; unused by the other
  if (callback) {
    worker = CallbackWorker::Create(options, client_.get(), &recorder, &pool_, &scheduler);
  } else {
    worker = std::make_shared<FakeWorker>(options, client_.get(), &recorder, &pool_);
  }
  worker->Start();
  ASSERT_TRUE(worker->AwaitSettled(kUnits, absl::Now() + absl::Seconds(60)));
  worker->Stop();

  const WorkerCounters c = worker->counters();
  EXPECT_EQ(c.units_leased, kUnits);
  EXPECT_EQ(c.units_committed, kUnits);
  EXPECT_EQ(c.units_refused, 0);
  EXPECT_EQ(c.loops_running, 0);
  EXPECT_EQ(c.completes_waiting, 0);
  // A unit's last step goes only in its commit (and so do the others of its last round).
  EXPECT_GT(c.steps_reported, 0);
  EXPECT_LE(c.steps_reported, c.steps_made - kUnits);
  ASSERT_EQ(coordinator_.committed().size(), static_cast<size_t>(kUnits));
  int64_t answers = 0;
  for (const UnitResult& result : coordinator_.committed()) {
    EXPECT_GE(result.answers.size(), 2u) << result.unit.id;
    EXPECT_LE(result.answers.size(), 6u) << result.unit.id;
    answers += static_cast<int64_t>(result.answers.size());
  }
  EXPECT_EQ(answers, c.steps_made);  // every step made is in a committed unit
  for (Rpc rpc : {Rpc::kLease, Rpc::kReport, Rpc::kCompleteMany}) {
    const LatencySummary s = recorder.Summarize(rpc);
    EXPECT_GT(s.calls, 0) << RpcName(rpc);
    EXPECT_EQ(s.errors, 0) << RpcName(rpc);
  }
  EXPECT_EQ(recorder.Summarize(Rpc::kComplete).calls, 0);
}

INSTANTIATE_TEST_SUITE_P(BothClients, LoadWorkerTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Callback") : std::string("Blocking");
                         });

}  // namespace
}  // namespace noveltygrid::load
