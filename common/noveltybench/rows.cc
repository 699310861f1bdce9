#include "common/noveltybench/rows.h"

#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/scoring.h"

namespace noveltygrid::noveltybench {
namespace {

absl::Status Bad(std::string_view where, std::string_view what) {
  // Debian's Abseil has its own string_view: no StrCat of std::string_view.
  return absl::InvalidArgumentError(std::string(where) + ": " + std::string(what));
}

absl::StatusOr<std::string> StringField(const Json& json, std::string_view where, const char* key) {
  auto it = json.find(key);
  if (it == json.end()) return Bad(where, absl::StrCat("missing \"", key, "\""));
  if (!it->is_string()) return Bad(where, absl::StrCat("\"", key, "\" must be a string, got ", it->type_name()));
  return it->get<std::string>();
}

const Json* ArrayField(const Json& json, const char* key) {
  auto it = json.find(key);
  return it == json.end() ? nullptr : &*it;
}

// An integral JSON number (5 or 5.0) within int range.
std::optional<int> AsInt(const Json& value) {
  if (value.is_number_integer()) {
    const auto v = value.get<long long>();
    if (v < -1'000'000 || v > 1'000'000) return std::nullopt;
    return static_cast<int>(v);
  }
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 1e6) return static_cast<int>(v);
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<int>> IntArray(const Json& json, std::string_view where, const char* key,
                                          size_t expected_size) {
  const Json* array = ArrayField(json, key);
  if (array == nullptr) return Bad(where, absl::StrCat("missing \"", key, "\""));
  if (!array->is_array()) return Bad(where, absl::StrCat("\"", key, "\" must be an array"));
  if (array->size() != expected_size) {
    return Bad(where,
               absl::StrCat("\"", key, "\" has ", array->size(), " entries but \"generations\" has ", expected_size));
  }
  std::vector<int> values;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::optional<int> v = AsInt((*array)[i]);
    if (!v.has_value()) {
      return Bad(where, absl::StrCat("\"", key, "\"[", i, "] is ", DumpJson((*array)[i]), "; expected an integer"));
    }
    values.push_back(*v);
  }
  return values;
}

bool IsQuality(int q) { return q >= kMinQuality && q <= kMaxQuality; }

// samples.jsonl: "quality" with null where not scored.
absl::StatusOr<std::vector<std::optional<int>>> QualityFromSamples(const Json& array, std::string_view where,
                                                                   size_t expected_size) {
  if (!array.is_array() || array.size() != expected_size) {
    return Bad(where, absl::StrCat("\"quality\" must be an array with one entry per generation (", expected_size, ")"));
  }
  std::vector<std::optional<int>> quality;
  for (size_t i = 0; i < array.size(); ++i) {
    if (array[i].is_null()) {
      quality.push_back(std::nullopt);
      continue;
    }
    const std::optional<int> q = AsInt(array[i]);
    if (!q.has_value() || !IsQuality(*q)) {
      return Bad(where, absl::StrCat("\"quality\"[", i, "] is ", DumpJson(array[i]), "; expected 1..10 or null"));
    }
    quality.push_back(q);
  }
  return quality;
}

// scores.jsonl: "generation_scores" (quality at class openers, 0 elsewhere), checked against the
// partition and "partition_scores".
absl::StatusOr<std::vector<std::optional<int>>> QualityFromScores(const Json& json, std::string_view where,
                                                                  const std::vector<int>& partition) {
  const Json* array = ArrayField(json, "generation_scores");
  if (array == nullptr) return Bad(where, "missing \"generation_scores\" (or \"quality\")");
  if (!array->is_array() || array->size() != partition.size()) {
    return Bad(where, absl::StrCat("\"generation_scores\" has ", array->is_array() ? array->size() : 0,
                                   " entries but \"generations\" has ", partition.size()));
  }
  const std::vector<bool> openers = ClassOpeners(partition);
  std::vector<std::optional<int>> quality;
  std::vector<int> opener_scores;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::optional<int> s = AsInt((*array)[i]);
    if (!s.has_value() || *s < 0 || *s > kMaxQuality) {
      return Bad(where, absl::StrCat("\"generation_scores\"[", i, "] is ", DumpJson((*array)[i]),
                                     "; expected the reference's quality buckets (an integer 1..10 where a "
                                     "generation opens a class, 0 elsewhere) -- raw rewards must be bucketed "
                                     "first"));
    }
    if (openers[i] && *s == 0) {
      return Bad(where, absl::StrCat("\"generation_scores\"[", i, "] is 0 but generation ", i, " opens class ",
                                     partition[i], "; an opener needs its quality 1..10"));
    }
    if (!openers[i] && *s != 0) {
      return Bad(where, absl::StrCat("\"generation_scores\"[", i, "] is ", *s, " but generation ", i,
                                     " does not open its class (partition[", i, "] = ", partition[i],
                                     "); the reference records 0 there"));
    }
    quality.push_back(openers[i] ? std::optional<int>(*s) : std::nullopt);
    if (openers[i]) opener_scores.push_back(*s);
  }
  if (const Json* recorded = ArrayField(json, "partition_scores"); recorded != nullptr) {
    absl::StatusOr<std::vector<int>> classes = IntArray(json, where, "partition_scores", recorded->size());
    if (!classes.ok()) return classes.status();
    if (*classes != opener_scores) {
      return Bad(where,
                 absl::StrCat("\"partition_scores\" ", DumpJson(*recorded),
                              " disagree with the class openers' generation_scores ", DumpJson(Json(opener_scores))));
    }
  }
  return quality;
}

}  // namespace

absl::StatusOr<NoveltyRow> NoveltyRowFromJson(const Json& json, std::string_view where) {
  if (!json.is_object()) return Bad(where, absl::StrCat("expected a JSON object, got ", json.type_name()));
  NoveltyRow row;
  row.where = std::string(where);
  if (auto b = json.find("benchmark"); b != json.end() && *b != "noveltybench") {
    return Bad(where, absl::StrCat("\"benchmark\" is ", DumpJson(*b), "; expected \"noveltybench\""));
  }
  const char* id_key = json.contains("prompt_id") ? "prompt_id" : "id";
  absl::StatusOr<std::string> id = StringField(json, where, id_key);
  if (!id.ok()) return id.status();
  row.prompt_id = *std::move(id);
  absl::StatusOr<std::string> prompt = StringField(json, where, "prompt");
  if (!prompt.ok()) return prompt.status();
  row.prompt = *std::move(prompt);
  absl::StatusOr<std::string> model = StringField(json, where, "model");
  if (!model.ok()) return model.status();
  if (model->empty()) return Bad(where, "\"model\" is empty");
  row.model = *std::move(model);
  if (auto t = json.find("temperature"); t != json.end()) {
    if (!t->is_number() || !std::isfinite(t->get<double>()) || t->get<double>() < 0) {
      return Bad(where, absl::StrCat("\"temperature\" is ", DumpJson(*t), "; expected a number >= 0"));
    }
    row.temperature = t->get<double>();
  }
  // A sweep's samples.jsonl: one prompt per (mode, dataset), too.
  for (auto [key, into] : {std::pair{"mode", &row.mode}, std::pair{"dataset", &row.dataset}}) {
    if (auto v = json.find(key); v != json.end()) {
      if (!v->is_string()) return Bad(where, absl::StrCat("\"", key, "\" must be a string"));
      *into = v->get<std::string>();
    }
  }
  absl::StatusOr<int> repeat = IntField(json, "repeat", 0);
  if (!repeat.ok()) return Bad(where, std::string(repeat.status().message()));
  if (*repeat < 0) return Bad(where, absl::StrCat("\"repeat\" is ", *repeat, "; expected 0 or more"));
  row.repeat = *repeat;

  const Json* generations = ArrayField(json, "generations");
  if (generations == nullptr) return Bad(where, "missing \"generations\"");
  if (!generations->is_array() || generations->empty()) {
    return Bad(where, "\"generations\" must be a non-empty array of strings");
  }
  for (size_t i = 0; i < generations->size(); ++i) {
    if (!(*generations)[i].is_string()) {
      return Bad(where, absl::StrCat("\"generations\"[", i, "] must be a string, got ", (*generations)[i].type_name()));
    }
    row.generations.push_back((*generations)[i].get<std::string>());
  }
  absl::StatusOr<std::vector<int>> partition = IntArray(json, where, "partition", row.generations.size());
  if (!partition.ok()) return partition.status();
  if (absl::Status valid = ValidatePartition(*partition); !valid.ok()) {
    return Bad(where, absl::StrCat("\"partition\" ", DumpJson(Json(*partition)), ": ", valid.message()));
  }
  row.partition = *std::move(partition);

  absl::StatusOr<std::vector<std::optional<int>>> quality =
      json.contains("quality") ? QualityFromSamples(json["quality"], where, row.generations.size())
                               : QualityFromScores(json, where, row.partition);
  if (!quality.ok()) return quality.status();
  row.quality = *std::move(quality);
  const std::vector<bool> openers = ClassOpeners(row.partition);
  for (size_t i = 0; i < openers.size(); ++i) {
    if (openers[i] && !row.quality[i].has_value()) {
      return Bad(where, absl::StrCat("generation ", i, " opens a class but its quality is null"));
    }
  }
  return row;
}

absl::StatusOr<std::vector<NoveltyRow>> ReadNoveltyRows(const std::string& path, int* failed_units) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::vector<NoveltyRow> rows;
  std::map<std::tuple<std::string, std::optional<double>, std::string, std::string, int, std::string>, std::string>
      seen;  // -> where
  if (failed_units != nullptr) *failed_units = 0;
  int line_number = 0;
  for (absl::string_view piece : absl::StrSplit(*text, '\n')) {
    const std::string_view line(piece.data(), piece.size());
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = absl::StrCat(path, ":", line_number);
    absl::StatusOr<Json> parsed = ParseJson(line);
    if (!parsed.ok()) {
      return Bad(where, absl::StrCat("not JSON (one row object per line expected): ", parsed.status().message()));
    }
    const Json& json = *parsed;
    // A sweep's unit that failed has no partition to rescore.
    if (json.is_object() && json.contains("error")) {
      if (failed_units != nullptr) ++*failed_units;
      continue;
    }
    absl::StatusOr<NoveltyRow> row = NoveltyRowFromJson(json, where);
    if (!row.ok()) return row.status();
    auto [it, inserted] = seen.emplace(
        std::make_tuple(row->model, row->temperature, row->mode, row->dataset, row->repeat, row->prompt_id), where);
    if (!inserted) {
      return Bad(where, absl::StrCat("prompt \"", row->prompt_id, "\" of model \"", row->model,
                                     "\" appears again (first at ", it->second, ")"));
    }
    rows.push_back(*std::move(row));
  }
  if (rows.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no rows"));
  return rows;
}

}  // namespace noveltygrid::noveltybench
