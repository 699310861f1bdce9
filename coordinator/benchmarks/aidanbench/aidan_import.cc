#include "coordinator/benchmarks/aidanbench/aidan_import.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/aidan_scoring.h"
#include "common/hashing.h"

namespace noveltygrid {

namespace {

// Builds messages of the form "SOURCE: models["m"]["0.7"]["q"][3].coherence_score: ...".
class PathError {
 public:
  explicit PathError(const std::string& source) : source_(source) {}

  absl::Status Wrong(const std::string& path, const std::string& expected, const Json& got) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", path.empty() ? "(top level)" : path, ": expected ",
                                                   expected, ", got ", got.type_name()));
  }
  absl::Status Message(const std::string& path, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", path, ": ", message));
  }

 private:
  const std::string& source_;
};

std::string Key(const std::string& path, const std::string& key) {
  return absl::StrCat(path, "[", DumpJson(Json(key)), "]");
}

absl::StatusOr<double> NumberField(const Json& object, const std::string& path, const char* name,
                                   const PathError& err) {
  const std::string field_path = absl::StrCat(path, ".", name);
  auto it = object.find(name);
  if (it == object.end()) return err.Message(field_path, "missing");
  if (!it->is_number()) return err.Wrong(field_path, "a number", *it);
  const double value = it->get<double>();
  if (!std::isfinite(value)) return err.Message(field_path, "not a finite number");
  return value;
}

absl::StatusOr<StepRecord> ReadAnswer(const Json& item, const std::string& path, const AidanPreset& preset,
                                      const PathError& err) {
  if (!item.is_object()) return err.Wrong(path, "an answer object", item);
  StepRecord answer;
  auto num = item.find("answer_num");
  if (num == item.end()) return err.Message(path + ".answer_num", "missing");
  if (!num->is_number_integer()) return err.Wrong(path + ".answer_num", "an integer", *num);
  answer.answer_num = num->get<int>();
  auto text = item.find("answer");
  if (text == item.end()) return err.Message(path + ".answer", "missing");
  if (!text->is_string()) return err.Wrong(path + ".answer", "a string", *text);
  answer.answer = text->get<std::string>();

  absl::StatusOr<double> novelty = NumberField(item, path, "embedding_dissimilarity_score", err);
  if (!novelty.ok()) return novelty.status();
  answer.novelty = *novelty;
  absl::StatusOr<double> coherence = NumberField(item, path, "coherence_score", err);
  if (!coherence.ok()) return coherence.status();
  if (*coherence > preset.judge_scale_max) {
    return err.Message(path + ".coherence_score",
                       absl::StrCat(*coherence, " is above the ", preset.name, " judge scale (0-",
                                    preset.judge_scale_max, "); choose the preset the file was judged with"));
  }
  answer.coherence = *coherence;
  if (item.contains("llm_dissimilarity_score")) {
    absl::StatusOr<double> llm = NumberField(item, path, "llm_dissimilarity_score", err);
    if (!llm.ok()) return llm.status();
    answer.llm_novelty = *llm;
  }
  return answer;
}

}  // namespace

std::string AidanQuestionId(const std::string& question) {
  return absl::StrCat("q-", HexId(StableHash(question)).substr(0, 8));
}

std::string InferAidanStopReason(const AidanPreset& preset, const std::vector<StepRecord>& answers,
                                 int max_iterations) {
  if (answers.empty()) return "";
  const StepRecord& last = answers.back();
  if (!last.error.empty()) return kStopError;
  if (last.coherence <= preset.stop_coherence_at_most) return kStopIncoherent;
  if (AidanShouldStop(preset, last)) return kStopRepetitive;
  if (max_iterations > 0 && static_cast<int>(answers.size()) >= max_iterations) return kStopIterationCap;
  return "";
}

absl::StatusOr<AidanImport> ImportAidanReferenceJson(const Json& root, const std::string& source,
                                                     const AidanPreset& preset) {
  const PathError err(source);
  if (!root.is_object()) return err.Wrong("", "an object with a \"models\" key", root);
  auto models = root.find("models");
  if (models == root.end()) return err.Message("(top level)", "no \"models\" key");
  if (!models->is_object()) return err.Wrong("models", "an object of models", *models);

  AidanImport out;
  for (const auto& [model, temps] : models->items()) {
    const std::string model_path = Key("models", model);
    if (!temps.is_object()) return err.Wrong(model_path, "an object of temperatures", temps);
    out.models.push_back(model);
    for (const auto& [temp_key, questions] : temps.items()) {
      const std::string temp_path = Key(model_path, temp_key);
      double temperature;
      if (!absl::SimpleAtod(temp_key, &temperature) || !std::isfinite(temperature) || temperature < 0) {
        return err.Message(temp_path, "the key is not a temperature (expected a number such as \"0.7\")");
      }
      if (std::find(out.temperatures.begin(), out.temperatures.end(), temperature) == out.temperatures.end()) {
        out.temperatures.push_back(temperature);
      }
      if (!questions.is_object()) return err.Wrong(temp_path, "an object of questions", questions);
      for (const auto& [question, answers] : questions.items()) {
        const std::string question_path = Key(temp_path, question);
        if (!answers.is_array()) return err.Wrong(question_path, "an array of answers", answers);
        UnitResult unit;
        unit.unit.index = static_cast<int>(out.units.size());
        unit.unit.benchmark = kAidanBench;
        unit.unit.model = model;
        unit.unit.temperature = temperature;
        unit.unit.item_id = AidanQuestionId(question);
        unit.unit.item_text = question;
        unit.unit.id = HexId(StableHasher().Add(kAidanBench).Add(model).Add(temperature).Add(question).Finish());
        for (size_t i = 0; i < answers.size(); ++i) {
          absl::StatusOr<StepRecord> answer =
              ReadAnswer(answers[i], absl::StrCat(question_path, "[", i, "]"), preset, err);
          if (!answer.ok()) return answer.status();
          unit.answers.push_back(std::move(*answer));
        }
        MarkValidAnswers(preset, unit.answers);
        unit.stop_reason = InferAidanStopReason(preset, unit.answers, 0);
        if (unit.stop_reason == kStopError) unit.error = unit.answers.back().error;
        out.units.push_back(std::move(unit));
      }
    }
  }
  return out;
}

absl::StatusOr<AidanImport> ImportAidanReferenceFile(const std::string& path, const AidanPreset& preset) {
  absl::StatusOr<Json> root = ReadJsonFile(path);
  if (!root.ok()) return root.status();
  return ImportAidanReferenceJson(*root, path, preset);
}

}  // namespace noveltygrid
