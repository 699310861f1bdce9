// RpcTiming: how long the coordinator takes to answer each call of the noveltygrid.v1.Coordinator
// service, as the coordinator itself sees it -- from its handler being called (the request read) to the
// answer being handed to gRPC, a commit's wait for its group included:
//
//   noveltygrid_rpc_duration_seconds{method="Lease"|"Heartbeat"|"Report"|"Complete"|"CompleteMany"|...}
//
// A worker's own timing of the same call adds the network, gRPC's reading of the request and the
// worker's wait for a core; the difference says whether a slow call was the coordinator's doing
// (bench/coordinator_load prints both). Timed by CoordinatorService itself, two clock reads a call. A
// gRPC server interceptor would start a little earlier (at the call's creation), but in three
// interleaved pairs of runs at 50 workers x 512 loops the coordinator used 0.76-0.83 cores with one
// against 0.74-0.78 without, while timing in the handler made no difference that the runs' noise did
// not hide (BENCHMARKS.md, issue 18 item 3).
//
//   RpcTiming timing;                                   // outlives the service
//   CoordinatorService service(&core, &timing);
//   MetricsServer::Start(listen, {timing.collectable(), ...});
#ifndef NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_
#define NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "prometheus/collectable.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace noveltygrid {

class RpcTiming {
 public:
  RpcTiming();

  // The bucket bounds, in seconds: fine around the 50 ms a coordinator's p99 should stay under.
  static const std::vector<double>& Buckets();

  // The histogram of `method` ("Lease", as named in the service); nullptr for a method the service
  // does not have.
  prometheus::Histogram* Of(absl::string_view method) const;

  // A call timed by `histogram` (nullptr: not timed) that started at `start` is answered now.
  static void Answered(prometheus::Histogram* histogram, absl::Time start) {
    if (histogram != nullptr) histogram->Observe(absl::ToDoubleSeconds(absl::Now() - start));
  }

  std::shared_ptr<prometheus::Collectable> collectable() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  // By method name; built once, then only read, without a lock (prometheus::Histogram is thread-safe).
  absl::flat_hash_map<std::string, prometheus::Histogram*> by_method_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_
