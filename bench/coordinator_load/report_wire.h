// The load generator's Reports and CompleteManys as wire bytes: each pool step is serialized once
// (StepPool), and a fake worker's round is framed around those bytes -- a ReportRequest as PackReports
// (proto/report_batches.h) shapes it, one LeaseSteps per lease and round, without a protobuf message
// per step; its commits likewise, around each unit's serialized CompleteRequest. Fifty fake workers
// make ~128,000 steps a second: built as messages, they took as much CPU as the coordinator they load.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_REPORT_WIRE_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_REPORT_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace noveltygrid::load {

// Appends a v1::Step as a LeaseSteps' `steps` entry: `fixed` (a Step serialized without answer_num
// and novelty) with those two fields after it (a parser takes fields in any order).
void AppendStep(std::string_view fixed, int answer_num, double novelty, std::string* out);

// Appends a ReportRequest's or a CompleteManyRequest's `worker_id` (field 1 of both).
void AppendWorkerId(std::string_view worker_id, std::string* out);

// Appends a CompleteManyRequest's `units` entry: `complete`, a serialized v1::CompleteRequest. A
// request is its worker id and these, in any order.
void AppendCommit(std::string_view complete, std::string* out);

// Appends the head of a ReportRequest's `leases` entry -- the lease id and its fencing token -- whose
// `steps_bytes` of steps (AppendStep's output for this lease) follow it. A request is sent as pieces,
// each lease's head and then its steps where they were made, so the steps are never copied
// (GrpcCoordinatorClient::ReportSerialized).
void AppendLeaseStepsHead(std::string_view lease_id, uint64_t fencing_token, size_t steps_bytes, std::string* out);

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_REPORT_WIRE_H_
