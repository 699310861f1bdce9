#include "coordinator/state/store_commit_log.h"

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "common/storage/keys.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<StoreCommitLog>> StoreCommitLog::Open(Store* store, const std::string& sweep,
                                                                     const std::string& fingerprint,
                                                                     std::vector<JournalEntry>* committed) {
  const std::string fingerprint_key = keys::SweepFingerprint(sweep);
  absl::StatusOr<bool> claimed = store->SetIfAbsent(fingerprint_key, fingerprint);
  if (!claimed.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot keep the sweep state in ", store->Describe(), ": ", claimed.status().message()));
  }
  if (!*claimed) {
    absl::StatusOr<std::optional<std::string>> existing = store->Get(fingerprint_key);
    if (!existing.ok()) return existing.status();
    if (existing->value_or("") != fingerprint) {
      return absl::FailedPreconditionError(absl::StrCat(store->Describe(), " already holds sweep '", sweep,
                                                        "' with a different plan (", existing->value_or("?"),
                                                        "; this config plans ", fingerprint,
                                                        "). Give this sweep another `name:`, or delete the old state: "
                                                        "redis-cli --scan --pattern 'ng:sweep:",
                                                        sweep, ":*' | xargs redis-cli del"));
    }
  }
  const std::string results_key = keys::SweepResults(sweep);
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> rows = store->HashGetAll(results_key);
  if (!rows.ok()) return rows.status();
  for (const auto& [unit_id, text] : *rows) {
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.contains("result")) {
      return absl::DataLossError(absl::StrCat(results_key, "[", unit_id, "] is not a committed result"));
    }
    absl::StatusOr<UnitResult> result = UnitResultFromJson(j.at("result"));
    if (!result.ok())
      return absl::DataLossError(absl::StrCat(results_key, "[", unit_id, "]: ", result.status().message()));
    committed->push_back({std::move(*result), CallStatsFromJson(j.value("calls", Json::object()))});
  }
  return std::unique_ptr<StoreCommitLog>(new StoreCommitLog(store, results_key));
}

absl::Status StoreCommitLog::Append(const UnitResult& result, const CallStats& calls) {
  return store_->HashSet(results_key_, result.unit.id,
                         DumpJson(Json{{"result", UnitResultToJson(result)}, {"calls", CallStatsToJson(calls)}}));
}

}  // namespace noveltygrid
