#include "coordinator/benchmarks/aidanbench/aidan_export.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/aidanbench/aidan_rebuild.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

namespace {

constexpr char kDefaultPreset[] = "reference-2025";  // what `import aidanbench` assumes

Json ReferenceAnswer(const StepRecord& answer) {
  Json j{{"answer_num", answer.answer_num},
         {"answer", answer.answer},
         {"embedding_dissimilarity_score", answer.novelty},
         {"coherence_score", answer.coherence},
         {"processing_time", nullptr}};
  if (answer.llm_novelty.has_value()) j["llm_dissimilarity_score"] = *answer.llm_novelty;
  return j;
}

// The notes a user needs to read the export and import it again.
std::vector<std::string> ExportNotes(const AidanReferenceExport& exported, int repeat, const Json* summary) {
  std::vector<std::string> notes;
  if (exported.other_repeat_answers > 0) {
    notes.push_back(absl::StrCat("the reference layout holds one pass: wrote repeat ", repeat, " and left out ",
                                 exported.other_repeat_answers, " answers of the other repeats (0..",
                                 exported.last_repeat, "; --repeat N exports another)"));
  }
  if (exported.error_answers > 0) {
    notes.push_back(absl::StrCat("left out ", exported.error_answers,
                                 exported.error_answers == 1 ? " answer" : " answers",
                                 " that ended a question in an error (the reference layout has no errors); valid "
                                 "answers and score sums are unchanged, stored_answers and errors are not"));
  }
  notes.push_back(
      "the reference layout holds no question or unit ids, stop reasons or timings: processing_time is null, "
      "and import derives the ids from the question text and infers the stop reasons");
  const std::optional<std::string> preset =
      summary != nullptr ? RecordedAidanPresetName(*summary) : std::optional<std::string>();
  if (!preset.has_value()) {
    notes.push_back(absl::StrCat("no preset recorded in ", kSummaryFileName,
                                 "; coherence_score is on the results' judge scale (import assumes ", kDefaultPreset,
                                 ")"));
  } else if (*preset != kDefaultPreset) {
    notes.push_back(
        absl::StrCat("coherence_score is on the ", *preset, " judge's scale: import with --preset ", *preset));
  }
  return notes;
}

}  // namespace

absl::StatusOr<AidanReferenceExport> AidanReferenceJson(const std::vector<UnitResult>& units, int repeat) {
  AidanReferenceExport out;
  Json models = Json::object();
  for (const UnitResult& unit : units) {
    const UnitSpec& u = unit.unit;
    out.last_repeat = std::max(out.last_repeat, u.repeat);
    if (u.repeat != repeat) {
      out.other_repeat_answers += static_cast<int>(unit.answers.size());
      continue;
    }
    Json& questions = models[u.model][FormatTemperature(u.temperature)];
    if (questions.is_null()) questions = Json::object();
    if (questions.contains(u.item_text)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "two questions of model ", u.model, " at temperature ", FormatTemperature(u.temperature), " have the text ",
          DumpJson(Json(u.item_text)), "; the reference layout keys answers by the question's text"));
    }
    Json answers = Json::array();
    for (size_t i = 0; i < unit.answers.size(); ++i) {
      if (!unit.answers[i].error.empty()) {
        out.error_answers += static_cast<int>(unit.answers.size() - i);
        break;
      }
      answers.push_back(ReferenceAnswer(unit.answers[i]));
    }
    out.answers += static_cast<int>(answers.size());
    questions[u.item_text] = std::move(answers);
  }
  if (models.empty()) {
    return absl::FailedPreconditionError(
        units.empty()
            ? std::string("no answers to export")
            : absl::StrCat("no answers of repeat ", repeat, " (the results hold repeats 0..", out.last_repeat, ")"));
  }
  out.root = Json{{"models", std::move(models)}};
  return out;
}

absl::StatusOr<ExportOutcome> ExportAidanReference(const ExportRequest& request) {
  namespace fs = std::filesystem;
  const fs::path out(request.out_path);
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        request.out_path, " is a folder; the AidanBench reference layout is one file (e.g. --out results.json)"));
  }
  ASSIGN_OR_RETURN(const std::vector<UnitResult> units, ReadAidanAnswersFile(request.rows_path));
  absl::StatusOr<AidanReferenceExport> exported = AidanReferenceJson(units, request.repeat);
  if (!exported.ok()) {
    return absl::Status(exported.status().code(), absl::StrCat(request.rows_path, ": ", exported.status().message()));
  }
  if (out.has_parent_path()) {
    fs::create_directories(out.parent_path(), ec);
    if (ec) {
      return absl::InternalError(absl::StrCat("cannot create the folder of ", request.out_path, ": ", ec.message()));
    }
  }
  RETURN_IF_ERROR(WriteFileAtomically(request.out_path, DumpJsonPretty(exported->root)));
  ExportOutcome outcome;
  outcome.written.push_back(request.out_path);
  outcome.notes = ExportNotes(*exported, request.repeat, request.summary);
  return outcome;
}

}  // namespace noveltygrid
