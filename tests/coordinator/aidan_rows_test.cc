// answers.jsonl rows, written a line at a time without a Json tree, against the rows a tree per answer
// gives (how they were written before): the file must not change by a byte.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/aidan_scoring.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "gtest/gtest.h"
#include "tests/coordinator/aidan_test_units.h"

namespace noveltygrid {
namespace {

using testing_units::MakeUnit;
using testing_units::Preset;

// One unit's rows as a Json object per answer made them: the unit's fields, the answer's (StepToJson but
// "error"), "mmr", "unit_id", then "error".
std::string RowsByTree(const AidanPreset& preset, const UnitResult& unit) {
  const UnitSpec& u = unit.unit;
  Json head{{"benchmark", kAidanBench},
            {"model", u.model},
            {"temperature", u.temperature},
            {"question_id", u.item_id},
            {"question", u.item_text}};
  if (u.repeat != 0) head["repeat"] = u.repeat;
  for (const auto& [key, value] : UnitMetadata(u)) head[key] = value;
  std::vector<StepRecord> answers = unit.answers;
  MarkValidAnswers(preset, answers);
  std::string rows;
  for (const StepRecord& a : answers) {
    Json row = head;
    Json fields = StepToJson(a);
    fields.erase("error");
    for (auto& [key, value] : fields.items()) row[key] = value;
    row["mmr"] = AidanMmr(preset, a);
    row["unit_id"] = u.id;
    if (!a.error.empty()) row["error"] = a.error;
    absl::StrAppend(&rows, DumpJson(row), "\n");
  }
  return rows;
}

TEST(AidanRowsTest, RowsAreTheBytesATreePerAnswerWrote) {
  const AidanPreset preset = Preset("reference-2025");
  std::vector<UnitResult> units;
  units.push_back(MakeUnit("m", 0.7, 0, {{80, 1.0}, {70, 0.4242}, {15, 0.1}}, kStopIncoherent));

  UnitResult awkward = MakeUnit("m \"quoted\"", 0.7, 1, {{80, 1.0}, {75, -0.0}, {90, 0.5}}, kStopError);
  awkward.unit.id = "id with \"quotes\", \\ and \x01 and bad \xff bytes";
  awkward.unit.domain = "caf\xc3\xa9";
  awkward.unit.repeat = 2;
  std::string answer = "tab\tnul ";
  answer.push_back('\0');
  answer += " del \x7f \xf0\x9f\x98\x80 cut \xc3";
  awkward.answers[0].answer = answer;
  awkward.answers[0].llm_novelty = std::nan("");
  awkward.answers[0].reasoning_tokens = std::numeric_limits<int64_t>::max();
  awkward.answers[1].coherence = std::numeric_limits<double>::infinity();
  awkward.answers[1].llm_novelty = 1e-7;
  awkward.answers[1].reasoning_tokens = std::numeric_limits<int64_t>::min();
  awkward.answers[1].error = "judge said \"\xfe\"";
  awkward.answers[2].answer_num = std::numeric_limits<int>::min();
  awkward.answers[2].error = "late";
  units.push_back(awkward);

  AidanReducer reducer(preset, {"m", "m \"quoted\""}, {0.7});
  std::string expected;
  for (const UnitResult& unit : units) {
    reducer.Add(UnitResult(unit));
    expected += RowsByTree(preset, unit);
  }
  const absl::StatusOr<std::string> rows = reducer.Results()->RowsText();
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, expected);
}

}  // namespace
}  // namespace noveltygrid
