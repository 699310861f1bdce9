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

std::string CommittedUnitBytes(const UnitResult& result, const CallStats& calls) {
  v1::CompleteRequest stored;
  ToProto(result, &stored);
  ToProto(calls, stored.mutable_calls());
  stored.clear_worker_id();
  stored.clear_lease_id();
  stored.clear_fencing_token();
  return stored.SerializeAsString();
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
