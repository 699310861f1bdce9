#include "common/records_json.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace noveltygrid {

namespace {
// nlohmann throws on a missing key or wrong type; convert that once, here, into a Status.
template <typename T, typename F>
absl::StatusOr<T> Guard(const char* what, F&& f) {
  try {
    return f();
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed ", what, ": ", e.what()));
  }
}

// An int field, throwing as get<int>() throws for a non-number; but a number that is not an int
// (JsonToInt) is out of range rather than cast, which get<int>() does even when that is undefined.
int IntOf(const Json& value) {
  if (!value.is_number()) {
    throw Json::type_error::create(302, absl::StrCat("type must be number, but is ", value.type_name()), &value);
  }
  const std::optional<int> n = JsonToInt(value);
  if (!n.has_value()) throw Json::out_of_range::create(406, absl::StrCat(value.dump(), " is not an int"), &value);
  return *n;
}

// The metadata keys with the fields they name (`Spec`: UnitSpec or const UnitSpec).
template <typename Spec>
auto MetadataFields(Spec& u) {
  using Field = decltype(&u.domain);
  return std::array<std::pair<const char*, Field>, 3>{
      {{"domain", &u.domain}, {"subdomain", &u.subdomain}, {"category", &u.category}}};
}

// The members of a step's JSON form, in their order, each given to `f(key, value)` (value: int, int64_t,
// double, bool or std::string); the optional ones only when set. StepToJson and AppendStepMembers both
// read it, so the tree and the rows written without one name the same members.
template <typename F>
void ForEachStepMember(const StepRecord& a, F&& f) {
  f("answer_num", a.answer_num);
  f("answer", a.answer);
  f("coherence", a.coherence);
  f("novelty", a.novelty);
  f("valid", a.valid);
  if (a.llm_novelty.has_value()) f("llm_novelty", *a.llm_novelty);
  if (!a.error.empty()) f("error", a.error);
  if (a.reasoning_tokens != 0) f("reasoning_tokens", a.reasoning_tokens);  // only when reported
}

}  // namespace

std::vector<std::pair<const char*, std::string>> UnitMetadata(const UnitSpec& unit) {
  std::vector<std::pair<const char*, std::string>> set;
  for (const auto& [key, value] : MetadataFields(unit)) {
    if (!value->empty()) set.emplace_back(key, *value);
  }
  return set;
}

void ReadUnitMetadata(const Json& json, UnitSpec& unit) {
  for (const auto& [key, value] : MetadataFields(unit)) {
    if (auto it = json.find(key); it != json.end()) *value = it->get<std::string>();
  }
}

Json UnitSpecToJson(const UnitSpec& u) {
  Json j{{"id", u.id},
         {"index", u.index},
         {"benchmark", u.benchmark},
         {"model", u.model},
         {"temperature", u.temperature},
         {"item_id", u.item_id},
         {"item_text", u.item_text}};
  // NoveltyBench fields only when set, so AidanBench records keep their form.
  if (!u.mode.empty()) j["mode"] = u.mode;
  if (!u.dataset.empty()) j["dataset"] = u.dataset;
  if (!u.paraphrases.empty()) j["paraphrases"] = u.paraphrases;
  if (u.repeat != 0) j["repeat"] = u.repeat;  // repeat 0 keeps the form of records without repeats
  for (const auto& [key, value] : UnitMetadata(u)) j[key] = value;  // only when set, as above
  return j;
}

absl::StatusOr<UnitSpec> UnitSpecFromJson(const Json& j) {
  return Guard<UnitSpec>("unit", [&] {
    UnitSpec u;
    u.id = j.at("id").get<std::string>();
    u.index = IntOf(j.at("index"));
    u.benchmark = j.at("benchmark").get<std::string>();
    u.model = j.at("model").get<std::string>();
    u.temperature = j.at("temperature").get<double>();
    u.item_id = j.at("item_id").get<std::string>();
    u.item_text = j.at("item_text").get<std::string>();
    if (j.contains("mode")) u.mode = j.at("mode").get<std::string>();
    if (j.contains("dataset")) u.dataset = j.at("dataset").get<std::string>();
    if (j.contains("paraphrases")) u.paraphrases = j.at("paraphrases").get<std::vector<std::string>>();
    if (j.contains("repeat")) u.repeat = IntOf(j.at("repeat"));
    ReadUnitMetadata(j, u);
    return u;
  });
}

Json StepToJson(const StepRecord& a) {
  Json j = Json::object();
  ForEachStepMember(a, [&j](const char* key, const auto& value) { j[key] = value; });
  return j;
}

void AppendStepMembers(const StepRecord& a, std::string* out) {
  bool first = true;
  ForEachStepMember(a, [&](const char* key, const auto& value) {
    using Value = std::decay_t<decltype(value)>;
    if (std::string_view(key) == "error") return;
    absl::StrAppend(out, first ? "\"" : ",\"", key, "\":");  // the keys need no escaping
    first = false;
    if constexpr (std::is_same_v<Value, bool>) {
      out->append(value ? "true" : "false");
    } else if constexpr (std::is_same_v<Value, double>) {
      AppendJsonNumber(value, out);
    } else if constexpr (std::is_same_v<Value, std::string>) {
      AppendJsonString(value, out);
    } else {
      absl::StrAppend(out, value);  // the integers
    }
  });
}

absl::StatusOr<StepRecord> StepFromJson(const Json& j) {
  return Guard<StepRecord>("answer", [&] {
    StepRecord a;
    a.answer_num = IntOf(j.at("answer_num"));
    a.answer = j.at("answer").get<std::string>();
    a.coherence = j.at("coherence").get<double>();
    a.novelty = j.at("novelty").get<double>();
    a.valid = j.at("valid").get<bool>();
    if (j.contains("llm_novelty")) a.llm_novelty = j.at("llm_novelty").get<double>();
    if (j.contains("error")) a.error = j.at("error").get<std::string>();
    if (j.contains("reasoning_tokens")) a.reasoning_tokens = j.at("reasoning_tokens").get<int64_t>();
    return a;
  });
}

Json UnitResultToJson(const UnitResult& r) {
  Json answers = Json::array();
  for (const StepRecord& a : r.answers) answers.push_back(StepToJson(a));
  Json j{{"unit", UnitSpecToJson(r.unit)},
         {"answers", std::move(answers)},
         {"stop_reason", r.stop_reason},
         {"error", r.error},
         {"max_iterations", r.max_iterations}};
  if (r.novelty.has_value()) {
    Json quality = Json::array();
    Json reward = Json::array();
    for (const std::optional<int>& q : r.novelty->quality) quality.push_back(q.has_value() ? Json(*q) : Json());
    for (const std::optional<double>& x : r.novelty->reward) reward.push_back(x.has_value() ? Json(*x) : Json());
    j["novelty"] =
        Json{{"partition", r.novelty->partition}, {"quality", std::move(quality)}, {"reward", std::move(reward)}};
  }
  return j;
}

absl::StatusOr<UnitResult> UnitResultFromJson(const Json& j) {
  UnitResult r;
  try {
    absl::StatusOr<UnitSpec> unit = UnitSpecFromJson(j.at("unit"));
    if (!unit.ok()) return unit.status();
    r.unit = std::move(*unit);
    for (const Json& a : j.at("answers")) {
      absl::StatusOr<StepRecord> answer = StepFromJson(a);
      if (!answer.ok()) return answer.status();
      r.answers.push_back(std::move(*answer));
    }
    r.stop_reason = j.at("stop_reason").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.max_iterations = IntOf(j.at("max_iterations"));
    if (j.contains("novelty")) {
      const Json& n = j.at("novelty");
      NoveltyOutcome outcome;
      const Json& partition = n.at("partition");
      if (!partition.is_array()) {
        throw Json::type_error::create(302, absl::StrCat("type must be array, but is ", partition.type_name()),
                                       &partition);
      }
      for (const Json& c : partition) outcome.partition.push_back(IntOf(c));
      for (const Json& q : n.at("quality")) {
        outcome.quality.push_back(q.is_null() ? std::nullopt : std::optional<int>(IntOf(q)));
      }
      for (const Json& x : n.at("reward")) {
        outcome.reward.push_back(x.is_null() ? std::nullopt : std::optional<double>(x.get<double>()));
      }
      r.novelty = std::move(outcome);
    }
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed unit result: ", e.what()));
  }
  return r;
}

Json CallStatsToJson(const CallStats& calls) {
  Json j = Json::object();
  for (const auto& [key, c] : calls) {
    Json& entry = j[key] =
        Json{{"requests", c.requests}, {"cache_hits", c.cache_hits},       {"retries", c.retries},
             {"errors", c.errors},     {"prompt_tokens", c.prompt_tokens}, {"completion_tokens", c.completion_tokens}};
    // Only where a provider reported any, so summaries of models without reasoning are unchanged.
    if (c.reasoning_tokens != 0) entry["reasoning_tokens"] = c.reasoning_tokens;
    if (c.cache_read_tokens != 0) entry["cache_read_tokens"] = c.cache_read_tokens;
    if (c.cache_write_tokens != 0) entry["cache_write_tokens"] = c.cache_write_tokens;
    if (c.hedges != 0) entry["hedges"] = c.hedges;  // only with hedging on
  }
  return j;
}

namespace {
// A counter of a stored "calls" entry: 0 unless it is an integer (one beyond int64 is cut to its max).
int64_t CounterAt(const Json& counters, const char* key) {
  auto it = counters.find(key);
  if (it == counters.end() || !it->is_number_integer()) return 0;
  if (it->is_number_unsigned()) return static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT64_MAX));
  return it->get<int64_t>();
}
}  // namespace

CallStats CallStatsFromJson(const Json& j) {
  CallStats calls;
  if (!j.is_object()) return calls;
  for (const auto& [key, c] : j.items()) {
    if (!c.is_object()) continue;
    CallCounters& out = calls[key];
    out.requests = CounterAt(c, "requests");
    out.cache_hits = CounterAt(c, "cache_hits");
    out.retries = CounterAt(c, "retries");
    out.errors = CounterAt(c, "errors");
    out.prompt_tokens = CounterAt(c, "prompt_tokens");
    out.completion_tokens = CounterAt(c, "completion_tokens");
    out.reasoning_tokens = CounterAt(c, "reasoning_tokens");
    out.cache_read_tokens = CounterAt(c, "cache_read_tokens");
    out.cache_write_tokens = CounterAt(c, "cache_write_tokens");
    out.hedges = CounterAt(c, "hedges");
  }
  return calls;
}

}  // namespace noveltygrid
