#include "bench/coordinator_load/report_wire.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid::load {

namespace {

using google::protobuf::internal::WireFormatLite;

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

size_t VarintSize(uint64_t value) { return google::protobuf::io::CodedOutputStream::VarintSize64(value); }

void AppendTag(int field, WireFormatLite::WireType type, std::string* out) {
  AppendVarint(WireFormatLite::MakeTag(field, type), out);
}

// The tag and length of a length-delimited field of `size` bytes (every tag here is one byte).
void AppendDelimitedHead(int field, size_t size, std::string* out) {
  AppendTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
  AppendVarint(size, out);
}

// The tags of the fields sized ahead (StepBytes, a commit's entry) are one byte: field numbers below 16.
static_assert(v1::Step::kAnswerNumFieldNumber < 16 && v1::Step::kNoveltyFieldNumber < 16 &&
              v1::LeaseSteps::kStepsFieldNumber < 16 && v1::CompleteManyRequest::kUnitsFieldNumber < 16);

// A Step's answer_num (int32: a negative one sign-extended) and novelty, after its fixed part.
constexpr size_t kNoveltyBytes = 1 + 8;
size_t StepTailBytes(int answer_num) {
  return 1 + VarintSize(static_cast<uint64_t>(static_cast<int64_t>(answer_num))) + kNoveltyBytes;
}

}  // namespace

void WireBuffer::AppendLasting(std::string_view bytes) {
  FlushCopies();
  slices_.emplace_back(bytes.data(), bytes.size(), grpc::Slice::STATIC_SLICE);
  size_ += bytes.size();
}

void WireBuffer::AppendCopy(std::string_view bytes) {
  copies_.append(bytes);
  size_ += bytes.size();
}

void WireBuffer::FlushCopies() {
  if (copies_.empty()) return;
  slices_.emplace_back(copies_.data(), copies_.size());  // copied
  copies_.clear();
}

grpc::ByteBuffer WireBuffer::Take() {
  FlushCopies();
  grpc::ByteBuffer buffer(slices_.data(), slices_.size());
  slices_.clear();
  size_ = 0;
  return buffer;
}

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return bytes;
}

size_t StepBytes(size_t fixed_size, int answer_num) {
  const size_t step = fixed_size + StepTailBytes(answer_num);
  return 1 + VarintSize(step) + step;
}

void AppendStep(std::string_view fixed, int answer_num, double novelty, WireBuffer* out) {
  std::string bytes;
  AppendDelimitedHead(v1::LeaseSteps::kStepsFieldNumber, fixed.size() + StepTailBytes(answer_num), &bytes);
  out->AppendCopy(bytes);
  out->AppendLasting(fixed);
  bytes.clear();
  AppendTag(v1::Step::kAnswerNumFieldNumber, WireFormatLite::WIRETYPE_VARINT, &bytes);
  AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(answer_num)), &bytes);
  AppendTag(v1::Step::kNoveltyFieldNumber, WireFormatLite::WIRETYPE_FIXED64, &bytes);
  const uint64_t bits = WireFormatLite::EncodeDouble(novelty);
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(bits >> (8 * i)));  // little-endian
  out->AppendCopy(bytes);
}

void AppendLeaseStepsHead(std::string_view lease_id, uint64_t fencing_token, size_t steps_bytes, WireBuffer* out) {
  std::string head;
  AppendDelimitedHead(v1::LeaseSteps::kLeaseIdFieldNumber, lease_id.size(), &head);
  head.append(lease_id);
  AppendTag(v1::LeaseSteps::kFencingTokenFieldNumber, WireFormatLite::WIRETYPE_VARINT, &head);
  AppendVarint(fencing_token, &head);
  std::string bytes;
  AppendDelimitedHead(v1::ReportRequest::kLeasesFieldNumber, head.size() + steps_bytes, &bytes);
  bytes.append(head);
  out->AppendCopy(bytes);
}

void AppendWorkerId(std::string_view worker_id, WireBuffer* out) {
  static_assert(static_cast<int>(v1::ReportRequest::kWorkerIdFieldNumber) ==
                static_cast<int>(v1::CompleteManyRequest::kWorkerIdFieldNumber));
  std::string bytes;
  AppendDelimitedHead(v1::ReportRequest::kWorkerIdFieldNumber, worker_id.size(), &bytes);
  bytes.append(worker_id);
  out->AppendCopy(bytes);
}

void AppendCommit(std::string_view head, std::string_view lasting, WireBuffer* out) {
  std::string bytes;
  AppendDelimitedHead(v1::CompleteManyRequest::kUnitsFieldNumber, head.size() + lasting.size(), &bytes);
  bytes.append(head);
  out->AppendCopy(bytes);
  out->AppendLasting(lasting);
}

}  // namespace noveltygrid::load
