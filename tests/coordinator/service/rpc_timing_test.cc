// RpcTiming with CoordinatorService on a real gRPC server on loopback: every call is timed once, under
// its own method, whether it is answered on the reactor (Lease, Heartbeat) or by the committer
// (CompleteMany), refused calls too.
#include "coordinator/metrics/rpc_timing.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/service/coordinator_service.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "proto/grpc_coordinator_client.h"
#include "tests/coordinator/service/coordinator_core_fixture.h"

namespace noveltygrid::testing {
namespace {

// The timed calls and their summed seconds, by method, from one scrape of `timing`.
struct Timed {
  uint64_t calls = 0;
  double seconds = 0;
};
std::map<std::string, Timed> Scrape(const RpcTiming& timing) {
  std::map<std::string, Timed> out;
  for (const prometheus::MetricFamily& family : timing.collectable()->Collect()) {
    EXPECT_EQ(family.name, "noveltygrid_rpc_duration_seconds");
    for (const prometheus::ClientMetric& metric : family.metric) {
      EXPECT_EQ(metric.label.size(), 1u);
      if (metric.label.size() != 1) continue;
      EXPECT_EQ(metric.label[0].name, "method");
      EXPECT_EQ(metric.histogram.bucket.size(), RpcTiming::Buckets().size() + 1);  // and +Inf
      out[metric.label[0].value] = {metric.histogram.sample_count, metric.histogram.sample_sum};
    }
  }
  return out;
}

class RpcTimingTest : public CoordinatorCoreTest {
 protected:
  RpcTimingTest() : CoordinatorCoreTest(2), service_(&core(), &timing_) {}
  ~RpcTimingTest() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  void SetUp() override {
#ifdef NOVELTYGRID_TSAN_BUILD
    GTEST_SKIP() << "gRPC's own threads: TSan reports races inside the uninstrumented gRPC core";
#endif
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }

  RpcTiming timing_;  // outlives the service
  CoordinatorService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(RpcTimingTest, EachCallIsTimedOnceUnderItsMethod) {
  ASSERT_NE(server_, nullptr);
  GrpcClientOptions options;
  options.address = absl::StrCat("127.0.0.1:", port_);
  options.token = kToken;
  absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> client = GrpcCoordinatorClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);

  EXPECT_EQ(Scrape(timing_).at("Lease").calls, 0u);
  v1::LeaseResponse leased;
  ASSERT_TRUE((*client)->Lease(LeaseRequestOf(2, "w1"), &leased, deadline).ok());
  ASSERT_EQ(leased.leases_size(), 2);
  v1::HeartbeatRequest heartbeat;
  heartbeat.set_worker_id("w1");
  v1::HeartbeatResponse beat;
  ASSERT_TRUE((*client)->Heartbeat(heartbeat, &beat, deadline).ok());
  ASSERT_TRUE((*client)->Heartbeat(heartbeat, &beat, deadline).ok());
  v1::CompleteManyResponse committed;
  ASSERT_TRUE(
      (*client)
          ->CompleteMany(CompleteManyRequestOf({leased.leases().begin(), leased.leases().end()}), &committed, deadline)
          .ok());
  ASSERT_EQ(committed.outcomes_size(), 2);
  // A refused call is timed too: it was answered.
  options.token = "guess";
  absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> intruder = GrpcCoordinatorClient::Create(options);
  ASSERT_TRUE(intruder.ok()) << intruder.status();
  EXPECT_TRUE(absl::IsUnauthenticated((*intruder)->Lease(LeaseRequestOf(1, "w2"), &leased, deadline)));

  const std::map<std::string, Timed> timed = Scrape(timing_);
  EXPECT_EQ(timed.at("Lease").calls, 2u);
  EXPECT_EQ(timed.at("Heartbeat").calls, 2u);
  EXPECT_EQ(timed.at("CompleteMany").calls, 1u);
  EXPECT_EQ(timed.at("Report").calls, 0u);
  EXPECT_EQ(timed.at("Complete").calls, 0u);
  EXPECT_GT(timed.at("CompleteMany").seconds, 0);
  EXPECT_EQ(timed.size(), 7u);  // every method of the service, called or not
}

TEST(RpcTimingMethodsTest, EveryMethodOfTheServiceHasAHistogramAndNoOtherName) {
  const RpcTiming timing;
  EXPECT_NE(timing.Of("Report"), nullptr);
  EXPECT_NE(timing.Of("CompleteMany"), nullptr);
  EXPECT_NE(timing.Of("Report"), timing.Of("CompleteMany"));
  EXPECT_EQ(timing.Of("Check"), nullptr);
  EXPECT_EQ(timing.Of("/noveltygrid.v1.Coordinator/Report"), nullptr);
}

}  // namespace
}  // namespace noveltygrid::testing
