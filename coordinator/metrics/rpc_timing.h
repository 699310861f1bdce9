// RpcTiming: how long the coordinator takes to answer each call of the noveltygrid.v1.Coordinator
// service, as the coordinator itself sees it -- from the call's start on the server (its headers read,
// the call created) to its status being sent, queueing for the committer included:
//
//   noveltygrid_rpc_duration_seconds{method="Lease"|"Heartbeat"|"Report"|"Complete"|"CompleteMany"|...}
//
// A worker's own timing of the same call adds the network and the worker's wait for a core; the
// difference says whether a slow call was the coordinator's doing (bench/coordinator_load prints both).
// Measured by a gRPC server interceptor (one clock read at each end of a call); calls of other services
// on the same server (gRPC health checks) are not timed.
//
//   RpcTiming timing;
//   builder.experimental().SetInterceptorCreators(timing.InterceptorCreators());
//   MetricsServer::Start(listen, {timing.collectable(), ...});
#ifndef NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_
#define NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_

#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "grpcpp/support/server_interceptor.h"
#include "prometheus/collectable.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace noveltygrid {

class RpcTiming {
 public:
  RpcTiming();

  // The bucket bounds, in seconds: fine around the 50 ms a coordinator's p99 should stay under.
  static const std::vector<double>& Buckets();

  // For grpc::ServerBuilder::experimental().SetInterceptorCreators. The interceptors refer to this
  // object, which must outlive the server.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> InterceptorCreators();

  // The histogram of `method` (a full gRPC name, "/noveltygrid.v1.Coordinator/Lease"); nullptr for a
  // method of another service.
  prometheus::Histogram* HistogramOf(absl::string_view method) const;

  std::shared_ptr<prometheus::Collectable> collectable() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  // By full method name; built once, then only read, without a lock (prometheus::Histogram is thread-safe).
  absl::flat_hash_map<std::string, prometheus::Histogram*> by_method_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_
