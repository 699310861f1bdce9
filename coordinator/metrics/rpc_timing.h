// RpcTiming: how long the coordinator takes to answer each call of the noveltygrid.v1.Coordinator
// service (the workers' calls, and `noveltygrid status`'s Status), as the coordinator itself sees it:
//
//   noveltygrid_rpc_duration_seconds{method="Lease"|"Heartbeat"|"Report"|"Complete"|"CompleteMany"|...}
//
// Timed by CoordinatorService from its handler being called to the answer being handed to gRPC, a
// commit's wait for its group included. gRPC parses a request before the handler and serializes the
// answer after it, outside the timing -- except Report's, which the service reads and writes itself
// (a raw method), so Report's time includes parsing its steps. A worker's own timing of the same call
// adds the network, gRPC's (de)serialization and the worker's wait for a core; the difference says
// whether a slow call was the coordinator's doing (bench/coordinator_load prints both). A gRPC server
// interceptor would start at the call's creation, but in three interleaved pairs of runs at 50 workers x
// 512 loops the coordinator used 0.76-0.83 cores with one against 0.74-0.78 without, while timing in
// the handlers made no difference the runs' noise did not hide (BENCHMARKS.md, issue 18 item 3).
//
// And the committers' groups (CoordinatorService's two commit threads, each of which persists every
// Complete and CompleteMany queued when it takes them in one go):
//
//   noveltygrid_commit_group_seconds  each group, from a committer taking the queued calls to their
//                                     answers being ready
//   noveltygrid_commit_store_seconds  each write of the commit log inside a group (SweepCoordinator::
//                                     Commit): the records serialised, the journal's fdatasync or the
//                                     Redis round trip, and a read-back of units stored before; one per
//                                     group, more when a group repeats a unit
//
// Their _sum over a window is how long the committers were busy (up to twice the window), and how
// much of that they spent on the store: a CompleteMany waits for a committer to take it, so committers
// busy most of the time are where commits queue (BENCHMARKS.md, issue 18 item 3). Only a coordinator
// serving gRPC times them (`noveltygrid run` commits in its workers' threads and serves no metrics).
//
//   RpcTiming timing;                                   // outlives the service
//   CoordinatorService service(&core, &timing);
//   MetricsServer::Start(listen, {timing.collectable(), ...});
#ifndef NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_
#define NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
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

  // A call timed by `histogram` (nullptr: not timed) that started at `start` is answered now. A
  // monotonic clock: a step of the wall clock does not make a call negative or hours long.
  using Clock = std::chrono::steady_clock;
  static void Answered(prometheus::Histogram* histogram, Clock::time_point start) {
    if (histogram != nullptr) histogram->Observe(std::chrono::duration<double>(Clock::now() - start).count());
  }

  // The committers' groups and the store's share of them (above).
  prometheus::Histogram* commit_group() const { return commit_group_; }
  prometheus::Histogram* commit_store() const { return commit_store_; }

  std::shared_ptr<prometheus::Collectable> collectable() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  // By method name; built once, then only read, without a lock (prometheus::Histogram is thread-safe).
  absl::flat_hash_map<std::string, prometheus::Histogram*> by_method_;
  prometheus::Histogram* commit_group_ = nullptr;
  prometheus::Histogram* commit_store_ = nullptr;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_METRICS_RPC_TIMING_H_
