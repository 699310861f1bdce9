#include "coordinator/report/results_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "coordinator/reduce/aidan_import.h"
#include "coordinator/report/leaderboard.h"
#include "coordinator/report/novelty_sweep_results.h"
#include "coordinator/report/noveltybench_results.h"

namespace noveltygrid {

namespace {

namespace fs = std::filesystem;

// What a rebuild keeps from an earlier summary.json. Lenient: a missing or mistyped part is absent.
struct PriorSummary {
  std::optional<std::string> preset_name;
  std::map<std::pair<std::string, std::string>, int> max_iterations;  // (model, TEMP key)
  std::vector<UnitResult> rows;  // unit spec, stop_reason and error of every unit, in order
  CallStats calls;
  Json run = Json::object();
  std::optional<std::vector<std::string>> simulated_models;
};

std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

PriorSummary ReadPriorSummary(const Json& summary) {
  PriorSummary prior;
  if (!summary.is_object()) return prior;
  if (auto aidan = summary.find("aidanbench"); aidan != summary.end() && aidan->is_object()) {
    for (const auto& [model, temps] : aidan->items()) {
      if (!temps.is_object()) continue;
      for (const auto& [temp, cell] : temps.items()) {
        if (!cell.is_object()) continue;
        if (!prior.preset_name.has_value() && !StringAt(cell, "preset").empty()) {
          prior.preset_name = StringAt(cell, "preset");
        }
        if (auto cap = cell.find("max_iterations"); cap != cell.end() && cap->is_number_integer()) {
          prior.max_iterations[{model, temp}] = cap->get<int>();
        }
      }
    }
  }
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
        unit.stop_reason = StringAt(row, "stop_reason");
        unit.error = StringAt(row, "error");
        prior.rows.push_back(std::move(unit));
      }
    }
  }
  if (auto calls = summary.find("calls"); calls != summary.end()) prior.calls = CallStatsFromJson(*calls);
  if (auto run = summary.find("run"); run != summary.end() && run->is_object()) prior.run = *run;
  if (auto sim = summary.find("simulated_models"); sim != summary.end() && sim->is_array()) {
    std::vector<std::string> models;
    for (const Json& m : *sim) {
      if (m.is_string()) models.push_back(m.get<std::string>());
    }
    prior.simulated_models = std::move(models);
  }
  return prior;
}

template <typename T>
void AppendUnique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

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
      const Json j = Json::parse(line);
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

namespace {

// The AidanBench part of a rebuild: answers.jsonl re-read, re-scored under `preset` (or the recorded
// one) and rewritten when its derived fields change. `prior` supplies what answers.jsonl lacks.
absl::StatusOr<AidanSnapshot> RebuildAidan(const std::string& answers_path, PriorSummary& prior,
                                           const std::optional<AidanPreset>& preset, bool keep_calls,
                                           std::vector<std::string>& notes) {
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
  for (UnitResult& unit : units) reducer.Add(std::move(unit));
  if (keep_calls) {
    reducer.AddCalls(prior.calls);
    reducer.SetRunInfo(prior.run);
  }
  AidanSnapshot snapshot = reducer.Snapshot();

  const std::string answers_text = AidanAnswersJsonl(snapshot);
  ASSIGN_OR_RETURN(const std::string old_answers, ReadFile(answers_path));
  if (answers_text != old_answers) {
    RETURN_IF_ERROR(WriteFileAtomically(answers_path, answers_text));
    notes.push_back(absl::StrCat("rewrote ", kAnswersFileName,
                                 ": its valid/mmr fields or order differed"
                                 " from what preset ",
                                 chosen.name, " gives"));
  }
  return snapshot;
}

// The NoveltyBench part of a rebuild: samples.jsonl re-read and re-scored with the settings the old
// summary.json records.
absl::StatusOr<NoveltySnapshot> RebuildNovelty(const std::string& samples_path, const Json& old_summary,
                                               const PriorSummary& prior, bool keep_calls,
                                               std::vector<std::string>& notes) {
  ASSIGN_OR_RETURN(std::vector<UnitResult> units, ReadNoveltySweepSamples(samples_path));
  std::optional<NoveltySettings> settings = NoveltySettingsFromSummary(old_summary);
  if (!settings.has_value()) {
    settings = NoveltySettings{};
    notes.push_back(absl::StrCat("no recorded NoveltyBench settings; scored with patience ", settings->patience,
                                 " and described with the defaults (partitioner ", settings->partitioner, ", quality ",
                                 settings->quality, ")"));
  }
  std::vector<std::string> models, modes, datasets;
  std::vector<double> temperatures;
  for (const UnitResult& unit : units) {
    AppendUnique(models, unit.unit.model);
    AppendUnique(temperatures, unit.unit.temperature);
    AppendUnique(modes, unit.unit.mode);
    AppendUnique(datasets, unit.unit.dataset);
  }
  NoveltyReducer reducer(*settings, models, temperatures, modes, datasets);
  for (UnitResult& unit : units) reducer.Add(std::move(unit));
  if (keep_calls) {
    reducer.AddCalls(prior.calls);
    reducer.SetRunInfo(prior.run);
  }
  NoveltySnapshot snapshot = reducer.Snapshot();

  const std::string samples_text = NoveltySweepSamplesJsonl(snapshot);
  ASSIGN_OR_RETURN(const std::string old_samples, ReadFile(samples_path));
  if (samples_text != old_samples) {
    RETURN_IF_ERROR(WriteFileAtomically(samples_path, samples_text));
    notes.push_back(absl::StrCat("rewrote ", kSamplesFileName, ": its scores or order differed from what patience ",
                                 settings->patience, " gives"));
  }
  return snapshot;
}

}  // namespace

absl::StatusOr<RebuildOutcome> RebuildResultsFolder(const std::string& dir, const std::optional<AidanPreset>& preset) {
  const fs::path root(dir);
  const std::string answers_path = (root / kAnswersFileName).string();
  const std::string samples_path = (root / kSamplesFileName).string();
  const bool has_answers = fs::exists(answers_path);
  const bool has_samples = fs::exists(samples_path);
  if (!has_answers && !has_samples) {
    return absl::NotFoundError(absl::StrCat(dir, " has no ", kAnswersFileName, " or ", kSamplesFileName,
                                            "; give a results folder written by run, coordinator or import"));
  }

  RebuildOutcome out;
  PriorSummary prior;
  Json old_summary;
  const std::string summary_path = (root / kSummaryFileName).string();
  if (!fs::exists(summary_path)) {
    out.notes.push_back(absl::StrCat(
        "no ", kSummaryFileName, " to keep calls, run and stop reasons from;",
        has_answers ? " stop reasons are inferred from the last answers" : " NoveltyBench settings are assumed"));
  } else if (absl::StatusOr<Json> summary = ReadJsonFile(summary_path); !summary.ok()) {
    out.notes.push_back(absl::StrCat("ignored the old ", kSummaryFileName, ": ", summary.status().message()));
  } else {
    prior = ReadPriorSummary(*summary);
    old_summary = *std::move(summary);
  }

  // The run-dependent "calls" and "run" are kept once, with the first benchmark.
  std::vector<std::string> models;
  std::vector<std::string> helpers;
  if (has_answers) {
    ASSIGN_OR_RETURN(out.aidan, RebuildAidan(answers_path, prior, preset, /*keep_calls=*/true, out.notes));
    models = out.aidan->models;
  }
  if (has_samples) {
    ASSIGN_OR_RETURN(out.novelty, RebuildNovelty(samples_path, old_summary, prior, !has_answers, out.notes));
    for (const std::string& m : out.novelty->models) AppendUnique(models, m);
    if (!out.novelty->settings.partition_model.empty()) helpers.push_back(out.novelty->settings.partition_model);
    helpers.push_back(out.novelty->settings.quality_model);
  }
  out.options.simulated_models = prior.simulated_models.value_or(SimulatedModelIds(models, helpers));
  RETURN_IF_ERROR(WriteSweepSummaryFiles(dir, out.aidan, out.novelty, out.options));
  out.leaderboard = SweepLeaderboardText(out.aidan, out.novelty, out.options);
  return out;
}

}  // namespace noveltygrid
