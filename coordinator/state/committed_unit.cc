#include "coordinator/state/committed_unit.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "proto/wire.h"

namespace noveltygrid {

namespace {

// The record: the message without the lease's fields.
std::string WithoutLease(v1::CompleteRequest& stored) {
  stored.clear_worker_id();
  stored.clear_lease_id();
  stored.clear_fencing_token();
  return stored.SerializeAsString();
}

// The lease's fields (worker_id = 1, lease_id = 2, fencing_token = 3) serialized alone: protobuf writes
// known fields in field-number order, so a commit's serialized form starts with exactly these bytes.
std::string LeaseFieldBytes(const v1::CompleteRequest& commit) {
  v1::CompleteRequest lease;
  lease.set_worker_id(commit.worker_id());
  lease.set_lease_id(commit.lease_id());
  lease.set_fencing_token(commit.fencing_token());
  return lease.SerializeAsString();
}

}  // namespace

std::string CommittedUnitBytes(const UnitResult& result, const CallStats& calls) {
  v1::CompleteRequest stored;
  ToProto(result, &stored);
  ToProto(calls, stored.mutable_calls());
  return WithoutLease(stored);
}

std::string CommittedUnitBytes(const v1::CompleteRequest& commit) {
  bool embedded = false;
  for (const v1::Step& step : commit.answers()) embedded = embedded || step.embedding_size() > 0;
  if (!embedded) {
    // Serialized as sent and cut after the lease's fields: no copy of the message (a unit's answers).
    std::string bytes = commit.SerializeAsString();
    const std::string lease = LeaseFieldBytes(commit);
    if (bytes.compare(0, lease.size(), lease) == 0) return bytes.erase(0, lease.size());
  }
  v1::CompleteRequest stored = commit;
  for (v1::Step& step : *stored.mutable_answers()) step.clear_embedding();
  return WithoutLease(stored);
}

std::string CommittedUnitBytes(const JournalEntry& entry) {
  return entry.record.empty() ? CommittedUnitBytes(entry.result, entry.calls) : entry.record;
}

namespace {

absl::StatusOr<JournalEntry> FromLegacyText(absl::string_view text) {
  absl::StatusOr<Json> j = ParseJson(std::string_view(text.data(), text.size()));
  if (!j.ok() || !j->is_object() || !j->contains("result")) {
    return absl::DataLossError(
        absl::StrCat("not a committed unit (", j.ok() ? "no result" : std::string(j.status().message()), ")"));
  }
  absl::StatusOr<UnitResult> result = UnitResultFromJson(j->at("result"));
  if (!result.ok()) return absl::DataLossError(result.status().message());
  return JournalEntry{std::move(*result), CallStatsFromJson(j->value("calls", Json::object()))};
}

}  // namespace

absl::StatusOr<JournalEntry> CommittedUnitFromBytes(absl::string_view bytes) {
  if (!bytes.empty() && bytes.front() == '{') return FromLegacyText(bytes);
  v1::CompleteRequest stored;
  if (!stored.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) || stored.unit_id().empty()) {
    return absl::DataLossError("not a committed unit (neither its binary form nor JSON)");
  }
  UnitSpec unit;
  unit.id = stored.unit_id();
  JournalEntry entry{ResultFromProto(stored, std::move(unit)), FromProto(stored.calls())};
  return entry;
}

std::string LegacyCommittedUnitText(const UnitResult& result, const CallStats& calls) {
  return DumpJson(Json{{"result", UnitResultToJson(result)}, {"calls", CallStatsToJson(calls)}});
}

}  // namespace noveltygrid
