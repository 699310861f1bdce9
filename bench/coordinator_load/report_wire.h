// The load generator's Reports and CompleteManys as wire bytes, built as gRPC slices: what lasts -- each
// pool step and each unit's result, serialized once (StepPool) -- is referenced, never copied, and
// only the bytes around it (tags, lengths, lease ids, answer numbers) are written per request. A
// ReportRequest is shaped as PackReports (proto/report_batches.h) shapes the real worker's, one
// LeaseSteps per lease and round, without a protobuf message per step. Fifty fake workers make ~119,000
// steps (~170 MB) a second: built as messages, they took as much CPU as the coordinator they load, and
// copied into strings, a tenth of the generator's.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_REPORT_WIRE_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_REPORT_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"

namespace noveltygrid::load {

// A request's bytes as slices, in order. Not thread-safe.
class WireBuffer {
 public:
  // Bytes that outlive the buffer and every ByteBuffer taken from it (the StepPool's): referenced.
  void AppendLasting(std::string_view bytes);
  // Bytes of the moment: copied. Copies in a row go in one slice (one short enough is held in the
  // slice itself, no allocation).
  void AppendCopy(std::string_view bytes);
  size_t size() const { return size_; }
  // The bytes so far, for gRPC; the buffer is left empty.
  grpc::ByteBuffer Take();

 private:
  void FlushCopies();

  std::vector<grpc::Slice> slices_;
  std::string copies_;
  size_t size_ = 0;
};

// A ByteBuffer's bytes in one string (for tests).
std::string Flatten(const grpc::ByteBuffer& buffer);

// The size on the wire of a LeaseSteps' `steps` entry made by AppendStep.
size_t StepBytes(size_t fixed_size, int answer_num);
// Appends a v1::Step as a LeaseSteps' `steps` entry: `fixed` (a Step serialized without answer_num
// and novelty; lasting) with those two fields after it (a parser takes fields in any order).
void AppendStep(std::string_view fixed, int answer_num, double novelty, WireBuffer* out);

// Appends the head of a ReportRequest's `leases` entry -- the lease id and its fencing token -- whose
// `steps_bytes` of steps (AppendStep's, StepBytes each) follow it.
void AppendLeaseStepsHead(std::string_view lease_id, uint64_t fencing_token, size_t steps_bytes, WireBuffer* out);

// Appends a ReportRequest's or a CompleteManyRequest's `worker_id` (field 1 of both).
void AppendWorkerId(std::string_view worker_id, WireBuffer* out);

// Appends a CompleteManyRequest's `units` entry: a serialized v1::CompleteRequest in two parts, `head`
// (copied) and `lasting` (referenced), which parse as one. A request is its worker id and these, in any
// order.
void AppendCommit(std::string_view head, std::string_view lasting, WireBuffer* out);

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_REPORT_WIRE_H_
