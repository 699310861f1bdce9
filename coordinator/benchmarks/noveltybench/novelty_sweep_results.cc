#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/noveltybench/rows.h"
#include "common/records_json.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "coordinator/benchmarks/repeat_interval.h"

namespace noveltygrid {

namespace {

template <typename T>
Json OptionalArray(const std::vector<std::optional<T>>& values) {
  Json out = Json::array();
  for (const std::optional<T>& v : values) out.push_back(v.has_value() ? Json(*v) : Json(nullptr));
  return out;
}

Json MeansJson(const noveltybench::ScoreMeans& means) {
  return Json{{"mean_distinct", means.mean_distinct}, {"mean_utility", means.mean_utility}, {"prompts", means.prompts}};
}

Json GroupsJson(const std::vector<NoveltyGroupMeans>& groups) {
  Json out = Json::object();
  for (const NoveltyGroupMeans& g : groups) out[g.name] = MeansJson(g.means);
  return out;
}

Json NoveltyRepeatsJson(const std::vector<NoveltyWeightedValue>& by_repeat) {
  return RepeatsJson({{"mean_distinct", PerRepeatDistinct(by_repeat)}, {"mean_utility", PerRepeatUtility(by_repeat)}});
}

// `whole`: the row's unit with its generations (row.result may have none: see UnitSource).
Json SampleLine(const NoveltyRowResult& row, const UnitResult& whole) {
  const UnitSpec& u = row.result.unit;
  std::vector<std::string> generations;
  for (const StepRecord& a : whole.answers) generations.push_back(a.answer);
  Json line{{"benchmark", kNoveltyBench}, {"model", u.model},      {"temperature", u.temperature},
            {"prompt_id", u.item_id},     {"prompt", u.item_text}, {"generations", std::move(generations)}};
  const std::optional<NoveltyOutcome>& outcome = row.result.novelty;
  if (row.score.has_value()) {
    line["partition"] = outcome->partition;
    line["quality"] = OptionalArray(outcome->quality);
    line["generation_scores"] = row.score->generation_scores;
    line["distinct"] = row.score->distinct;
    line["utility"] = row.score->utility;
  } else {
    for (const char* key : {"partition", "quality", "generation_scores", "distinct", "utility"}) line[key] = nullptr;
  }
  line["mode"] = u.mode;
  line["dataset"] = u.dataset;
  if (u.repeat != 0) line["repeat"] = u.repeat;  // lines of repeat 0 keep the form of sweeps without repeats
  for (const auto& [key, value] : UnitMetadata(u)) line[key] = value;  // only when the prompt has a category
  line["unit_id"] = u.id;
  if (std::any_of(whole.answers.begin(), whole.answers.end(), [](const StepRecord& a) { return a.reasoning_tokens; })) {
    Json reasoning = Json::array();  // only when the provider reported any: other sweeps' lines are unchanged
    for (const StepRecord& a : whole.answers) reasoning.push_back(a.reasoning_tokens);
    line["reasoning_tokens"] = std::move(reasoning);
  }
  if (row.score.has_value() &&
      std::any_of(outcome->reward.begin(), outcome->reward.end(), [](const auto& r) { return r.has_value(); })) {
    line["reward"] = OptionalArray(outcome->reward);
  }
  if (!row.error.empty()) line["error"] = row.error;
  return line;
}

std::string StringAt(const Json& j, const char* key) { return j.at(key).get<std::string>(); }

// One line of a sweep's samples.jsonl as the unit result it came from.
absl::StatusOr<UnitResult> UnitFromSampleLine(const Json& j, const std::string& path, const std::string& where) {
  if (!j.is_object()) return absl::InvalidArgumentError(where + ": expected a JSON object");
  if (!j.contains("unit_id")) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": no \"unit_id\": ", path,
                     " was not written by a sweep (import noveltybench and repartition "
                     "folders are rebuilt by running that command again)"));
  }
  UnitResult r;
  try {
    r.unit.id = StringAt(j, "unit_id");
    r.unit.benchmark = kNoveltyBench;
    r.unit.model = StringAt(j, "model");
    r.unit.temperature = j.at("temperature").get<double>();
    r.unit.item_id = StringAt(j, "prompt_id");
    r.unit.item_text = StringAt(j, "prompt");
    r.unit.mode = StringAt(j, "mode");
    r.unit.dataset = StringAt(j, "dataset");
    absl::StatusOr<int> repeat = IntField(j, "repeat", 0);
    if (!repeat.ok())
      return absl::InvalidArgumentError(absl::StrCat(where, ": malformed sample line: ", repeat.status().message()));
    r.unit.repeat = *repeat;
    ReadUnitMetadata(j, r.unit);
    const std::vector<std::string> generations = j.at("generations").get<std::vector<std::string>>();
    for (size_t i = 0; i < generations.size(); ++i) {
      StepRecord a;
      a.answer_num = static_cast<int>(i) + 1;
      a.answer = generations[i];
      if (auto reasoning = j.find("reasoning_tokens"); reasoning != j.end() && i < reasoning->size()) {
        a.reasoning_tokens = reasoning->at(i).get<int64_t>();
      }
      r.answers.push_back(std::move(a));
    }
    if (j.contains("error")) {
      r.stop_reason = kStopError;
      r.error = StringAt(j, "error");
      return r;
    }
    NoveltyOutcome outcome;
    if (auto reward = j.find("reward"); reward != j.end()) {
      for (const Json& x : *reward) {
        outcome.reward.push_back(x.is_null() ? std::nullopt : std::optional<double>(x.get<double>()));
      }
    }
    // The partition and quality are checked as import checks them.
    ASSIGN_OR_RETURN(noveltybench::NoveltyRow row, noveltybench::NoveltyRowFromJson(j, where));
    outcome.partition = std::move(row.partition);
    outcome.quality = std::move(row.quality);
    r.novelty = std::move(outcome);
    r.stop_reason = kStopComplete;
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": malformed sample line: ", e.what()));
  }
  return r;
}

}  // namespace

absl::Status WriteNoveltySweepSamples(const NoveltySnapshot& snapshot, const RowsSink& sink) {
  std::vector<const UnitResult*> units;
  units.reserve(snapshot.rows.size());
  for (const NoveltyRowResult& row : snapshot.rows) units.push_back(&row.result);
  size_t next = 0;
  return ForEachWholeUnit(units, snapshot.source, [&](const UnitResult& whole) {
    return sink(absl::StrCat(DumpJson(SampleLine(snapshot.rows[next++], whole)), "\n"));
  });
}

Json NoveltySweepSectionJson(const NoveltySnapshot& snapshot) {
  const NoveltySettings& s = snapshot.settings;
  Json section = Json::object();
  for (const NoveltySweepCell& cell : snapshot.cells) {
    Json j = MeansJson(cell.means);
    j["patience"] = s.patience();
    j["partitioner"] = s.partitioner();
    if (s.partitioner() != kPartitionerLlmGroups) j["threshold"] = s.threshold();  // it has none
    j["quality"] = s.quality();
    j["mode"] = cell.mode;
    if (!s.partition_model().empty()) j["partition_model"] = s.partition_model();
    j["quality_model"] = s.quality_model();
    j["k"] = s.k();
    j["errors"] = cell.errors;
    if (snapshot.modes.size() > 1) j["by_mode"] = GroupsJson(cell.by_mode);
    if (snapshot.datasets.size() > 1) j["by_dataset"] = GroupsJson(cell.by_dataset);
    if (!cell.by_category.empty()) j["by_category"] = GroupsJson(cell.by_category);
    if (cell.leaderboard_value.has_value()) {
      j["leaderboard_value"] =
          Json{{"distinct", cell.leaderboard_value->distinct}, {"utility", cell.leaderboard_value->utility}};
    }
    if (cell.by_repeat.size() > 1) j["repeats"] = NoveltyRepeatsJson(cell.by_repeat);
    section[cell.model][FormatTemperature(cell.temperature)] = std::move(j);
  }
  return section;
}

Json NoveltySweepLeaderboardJson(const NoveltySnapshot& snapshot) {
  Json board = Json::array();
  for (const NoveltyBest& best : snapshot.leaderboard) {
    Json entry{{"model", best.model},
               {"best_temperature", best.temperature},
               {"mean_utility", best.utility},
               {"mean_distinct", best.distinct},
               {"weighted", best.weighted}};
    if (best.by_repeat.size() > 1) entry["repeats"] = NoveltyRepeatsJson(best.by_repeat);
    board.push_back(std::move(entry));
  }
  return board;
}

absl::StatusOr<std::vector<UnitResult>> ReadNoveltySweepSamples(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  std::vector<UnitResult> units;
  int line_number = 0;
  for (absl::string_view piece : absl::StrSplit(text, '\n')) {
    const std::string_view line(piece.data(), piece.size());  // Debian's absl::string_view is its own type
    ++line_number;
    if (StripWhitespace(line).empty()) continue;
    const std::string where = absl::StrCat(path, ":", line_number);
    absl::StatusOr<Json> j = ParseJson(line);
    if (!j.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", j.status().message()));
    ASSIGN_OR_RETURN(UnitResult unit, UnitFromSampleLine(*j, path, where));
    unit.unit.index = static_cast<int>(units.size());
    units.push_back(std::move(unit));
  }
  return units;
}

std::optional<NoveltySettings> NoveltySettingsFromSummary(const Json& summary) {
  if (!summary.is_object()) return std::nullopt;
  auto section = summary.find("noveltybench");
  if (section == summary.end() || !section->is_object()) return std::nullopt;
  for (const auto& [model, temps] : section->items()) {
    if (!temps.is_object()) continue;
    for (const auto& [temp, cell] : temps.items()) {
      if (!cell.is_object() || !cell.contains("patience") || !cell["patience"].is_number()) continue;
      NoveltySettings s = DefaultNoveltySettings();
      try {
        s.set_patience(cell["patience"].get<double>());
        s.set_partitioner(cell.value("partitioner", s.partitioner()));
        s.set_threshold(cell.value("threshold", s.threshold()));
        s.set_partition_model(cell.value("partition_model", std::string()));
        s.set_quality(cell.value("quality", s.quality()));
        s.set_quality_model(cell.value("quality_model", s.quality_model()));
        absl::StatusOr<int> k = IntField(cell, "k", s.k());
        if (!k.ok()) continue;  // mistyped, as below
        s.set_k(*k);
      } catch (const Json::exception&) {
        continue;  // a mistyped cell; another may be readable
      }
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace noveltygrid
