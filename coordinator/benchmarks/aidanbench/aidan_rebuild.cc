#include "coordinator/benchmarks/aidanbench/aidan_rebuild.h"

#include <functional>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/append_unique.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "coordinator/benchmarks/aidanbench/aidan_import.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

namespace {

// What answers.jsonl lacks, from an earlier summary.json. Lenient: a missing or mistyped part is absent.
struct AidanPrior {
  std::optional<std::string> preset_name;
  std::map<std::pair<std::string, std::string>, int> max_iterations;  // (model, TEMP key)
  std::vector<UnitResult> rows;  // unit spec, stop_reason and error of every unit, in order
};

// Calls `visit(model, TEMP key, cell)` for every object cell of summary.json's "aidanbench" section.
void ForEachAidanCell(const Json& summary,
                      const std::function<void(const std::string&, const std::string&, const Json&)>& visit) {
  if (!summary.is_object()) return;
  auto aidan = summary.find("aidanbench");
  if (aidan == summary.end() || !aidan->is_object()) return;
  for (const auto& [model, temps] : aidan->items()) {
    if (!temps.is_object()) continue;
    for (const auto& [temp, cell] : temps.items()) {
      if (cell.is_object()) visit(model, temp, cell);
    }
  }
}

AidanPrior ReadAidanPrior(const Json& summary) {
  AidanPrior prior;
  if (!summary.is_object()) return prior;
  prior.preset_name = RecordedAidanPresetName(summary);
  ForEachAidanCell(summary, [&](const std::string& model, const std::string& temp, const Json& cell) {
    if (auto cap = cell.find("max_iterations"); cap != cell.end() && JsonToInt(*cap).has_value()) {
      prior.max_iterations[{model, temp}] = *JsonToInt(*cap);
    }
  });
  if (auto questions = summary.find("questions"); questions != summary.end() && questions->is_object()) {
    if (auto rows = questions->find("aidanbench"); rows != questions->end() && rows->is_array()) {
      for (const Json& row : *rows) {
        if (!row.is_object() || StringAt(row, "unit_id").empty()) continue;
        auto temperature = row.find("temperature");
        if (temperature == row.end() || !temperature->is_number()) continue;
        UnitResult unit;
        unit.unit.id = StringAt(row, "unit_id");
        unit.unit.benchmark = kAidanBench;
        unit.unit.model = StringAt(row, "model");
        unit.unit.temperature = temperature->get<double>();
        unit.unit.item_id = StringAt(row, "question_id");
        unit.unit.item_text = StringAt(row, "question");
        unit.unit.repeat = IntField(row, "repeat", 0).value_or(0);
        try {
          ReadUnitMetadata(row, unit.unit);
        } catch (const Json::exception&) {
          // Lenient, as the rest of the old summary: a mistyped domain is left out.
        }
        unit.stop_reason = StringAt(row, "stop_reason");
        unit.error = StringAt(row, "error");
        prior.rows.push_back(std::move(unit));
      }
    }
  }
  return prior;
}

}  // namespace

std::optional<std::string> RecordedAidanPresetName(const Json& summary) {
  std::optional<std::string> name;
  ForEachAidanCell(summary, [&](const std::string&, const std::string&, const Json& cell) {
    if (!name.has_value() && !StringAt(cell, "preset").empty()) name = StringAt(cell, "preset");
  });
  return name;
}

absl::StatusOr<std::vector<UnitResult>> ReadAidanAnswersFile(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  std::vector<UnitResult> units;
  std::map<std::string, size_t> position;  // unit id -> index in `units`
  int line_number = 0;
  for (absl::string_view piece : absl::StrSplit(text, '\n')) {
    const std::string_view line(piece.data(), piece.size());  // Debian's absl::string_view is its own type
    ++line_number;
    if (StripWhitespace(line).empty()) continue;
    const std::string where = absl::StrCat(path, ":", line_number, ": ");
    UnitResult unit;
    try {
      absl::StatusOr<Json> parsed = ParseJson(line);
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(where, "malformed answer line: ", parsed.status().message()));
      }
      const Json& j = *parsed;
      if (!j.is_object()) return absl::InvalidArgumentError(where + "expected a JSON object");
      if (j.contains("benchmark") && j.at("benchmark") != kAidanBench) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, "not an AidanBench answer (benchmark ", DumpJson(j.at("benchmark")), ")"));
      }
      unit.unit.id = j.at("unit_id").get<std::string>();
      unit.unit.benchmark = kAidanBench;
      unit.unit.model = j.at("model").get<std::string>();
      unit.unit.temperature = j.at("temperature").get<double>();
      unit.unit.item_id = j.at("question_id").get<std::string>();
      unit.unit.item_text = j.at("question").get<std::string>();
      absl::StatusOr<int> repeat = IntField(j, "repeat", 0);
      if (!repeat.ok())
        return absl::InvalidArgumentError(absl::StrCat(where, "malformed answer line: ", repeat.status().message()));
      unit.unit.repeat = *repeat;
      ReadUnitMetadata(j, unit.unit);
      absl::StatusOr<StepRecord> answer = StepFromJson(j);
      if (!answer.ok()) return absl::InvalidArgumentError(where + std::string(answer.status().message()));
      unit.answers.push_back(std::move(*answer));
    } catch (const Json::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat(where, "malformed answer line: ", e.what()));
    }
    auto [it, inserted] = position.try_emplace(unit.unit.id, units.size());
    if (inserted) {
      unit.unit.index = static_cast<int>(units.size());
      units.push_back(std::move(unit));
    } else {
      units[it->second].answers.push_back(std::move(unit.answers.front()));
    }
  }
  return units;
}

absl::StatusOr<std::unique_ptr<BenchmarkResults>> RebuildAidanResults(const RebuildRequest& request,
                                                                      std::vector<std::string>& notes) {
  const std::string& answers_path = request.rows_path;
  const std::optional<AidanPreset>& preset = request.preset;
  AidanPrior prior = request.old_summary != nullptr ? ReadAidanPrior(*request.old_summary) : AidanPrior{};
  ASSIGN_OR_RETURN(std::vector<UnitResult> answered, ReadAidanAnswersFile(answers_path));
  AidanPreset chosen;
  if (preset.has_value()) {
    chosen = *preset;
  } else {
    if (!prior.preset_name.has_value()) notes.push_back("no recorded preset; using reference-2025");
    ASSIGN_OR_RETURN(chosen, FindAidanPreset(prior.preset_name.value_or("reference-2025")));
  }

  // Units in the old table's order (it includes units that stored no answer), then any others.
  std::map<std::string, size_t> by_id;
  for (size_t i = 0; i < answered.size(); ++i) by_id[answered[i].unit.id] = i;
  std::vector<bool> used(answered.size(), false);
  std::vector<UnitResult> units;
  for (UnitResult& row : prior.rows) {
    if (auto it = by_id.find(row.unit.id); it != by_id.end()) {
      if (used[it->second]) continue;
      used[it->second] = true;
      UnitResult& unit = answered[it->second];
      unit.stop_reason = std::move(row.stop_reason);
      unit.error = std::move(row.error);
      units.push_back(std::move(unit));
    } else {
      units.push_back(std::move(row));
    }
  }
  const size_t recorded = units.size();
  for (size_t i = 0; i < answered.size(); ++i) {
    if (!used[i]) units.push_back(std::move(answered[i]));
  }

  std::vector<std::string> models;
  std::vector<double> temperatures;
  for (size_t i = 0; i < units.size(); ++i) {
    UnitResult& unit = units[i];
    unit.unit.index = static_cast<int>(i);
    auto cap = prior.max_iterations.find({unit.unit.model, FormatTemperature(unit.unit.temperature)});
    unit.max_iterations = cap == prior.max_iterations.end() ? 0 : cap->second;
    if (i >= recorded) {
      unit.stop_reason = InferAidanStopReason(chosen, unit.answers, unit.max_iterations);
      if (unit.stop_reason == kStopError) unit.error = unit.answers.back().error;
    }
    AppendUnique(models, unit.unit.model);
    AppendUnique(temperatures, unit.unit.temperature);
  }

  AidanReducer reducer(chosen, models, temperatures);
  return ReduceRebuiltUnits(
      request, std::move(units), reducer,
      absl::StrCat("rewrote ", kAnswersFileName, ": its valid/mmr fields or order differed from what preset ",
                   chosen.name, " gives"),
      notes);
}

}  // namespace noveltygrid
