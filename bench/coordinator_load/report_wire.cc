#include "bench/coordinator_load/report_wire.h"

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

void AppendTag(int field, WireFormatLite::WireType type, std::string* out) {
  AppendVarint(WireFormatLite::MakeTag(field, type), out);
}

// A length-delimited field: tag, length, bytes.
void AppendBytes(int field, std::string_view bytes, std::string* out) {
  AppendTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
  AppendVarint(bytes.size(), out);
  out->append(bytes);
}

}  // namespace

void AppendStep(std::string_view fixed, int answer_num, double novelty, std::string* out) {
  std::string tail;
  AppendTag(v1::Step::kAnswerNumFieldNumber, WireFormatLite::WIRETYPE_VARINT, &tail);
  AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(answer_num)), &tail);  // int32: sign-extended
  AppendTag(v1::Step::kNoveltyFieldNumber, WireFormatLite::WIRETYPE_FIXED64, &tail);
  const uint64_t bits = WireFormatLite::EncodeDouble(novelty);
  for (int i = 0; i < 8; ++i) tail.push_back(static_cast<char>(bits >> (8 * i)));  // little-endian
  AppendTag(v1::LeaseSteps::kStepsFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
  AppendVarint(fixed.size() + tail.size(), out);
  out->append(fixed);
  out->append(tail);
}

void AppendWorkerId(std::string_view worker_id, std::string* out) {
  static_assert(static_cast<int>(v1::ReportRequest::kWorkerIdFieldNumber) ==
                static_cast<int>(v1::CompleteManyRequest::kWorkerIdFieldNumber));
  AppendBytes(v1::ReportRequest::kWorkerIdFieldNumber, worker_id, out);
}

void AppendCommit(std::string_view complete, std::string* out) {
  AppendBytes(v1::CompleteManyRequest::kUnitsFieldNumber, complete, out);
}

void AppendLeaseStepsHead(std::string_view lease_id, uint64_t fencing_token, size_t steps_bytes, std::string* out) {
  std::string head;
  AppendBytes(v1::LeaseSteps::kLeaseIdFieldNumber, lease_id, &head);
  AppendTag(v1::LeaseSteps::kFencingTokenFieldNumber, WireFormatLite::WIRETYPE_VARINT, &head);
  AppendVarint(fencing_token, &head);
  AppendTag(v1::ReportRequest::kLeasesFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
  AppendVarint(head.size() + steps_bytes, out);
  out->append(head);
}

}  // namespace noveltygrid::load
