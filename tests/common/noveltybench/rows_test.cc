#include "common/noveltybench/rows.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid::noveltybench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_files::SharedData;
using testing_files::TempDir;

// A reference scores.jsonl row with 3 generations in 2 classes; `patch` overrides fields.
std::string ScoresRow(const Json& patch = Json::object()) {
  Json row{{"id", "curated-1"},
           {"prompt", "Name a colour."},
           {"model", "m"},
           {"generations", {"Red", "red", "Blue"}},
           {"partition", {0, 0, 1}},
           {"distinct", 1},
           {"generation_scores", {7, 0, 4}},
           {"partition_scores", {7, 4}},
           {"utility", 4.5}};
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      row.erase(key);
    } else {
      row[key] = value;
    }
  }
  return DumpJson(row);
}

absl::Status ReadError(const std::string& contents) {
  TempDir dir;
  const std::string path = dir.Write("scores.jsonl", contents);
  absl::StatusOr<std::vector<NoveltyRow>> rows = ReadNoveltyRows(path);
  EXPECT_FALSE(rows.ok());
  if (rows.ok()) return absl::OkStatus();
  // Every row error names the file first.
  EXPECT_THAT(std::string(rows.status().message()), StartsWith(path));
  return rows.status();
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(NoveltyRowsTest, ReadsTheReferenceScoresLayout) {
  TempDir dir;
  const std::string path = dir.Write("scores.jsonl", ScoresRow() + "\n\n" + ScoresRow({{"id", "curated-2"}}) + "\n");
  absl::StatusOr<std::vector<NoveltyRow>> rows = ReadNoveltyRows(path);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  const NoveltyRow& r = (*rows)[0];
  EXPECT_EQ(r.prompt_id, "curated-1");
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.temperature, std::nullopt);
  EXPECT_THAT(r.partition, ElementsAre(0, 0, 1));
  EXPECT_THAT(r.quality, ElementsAre(7, std::nullopt, 4));
  EXPECT_EQ(r.where, path + ":1");
  EXPECT_EQ((*rows)[1].where, path + ":3");
}

TEST(NoveltyRowsTest, ReadsOurSamplesLayout) {
  Json sample{{"benchmark", "noveltybench"}, {"model", "m"},          {"temperature", 0.7},
              {"prompt_id", "p1"},           {"prompt", "Name one."}, {"generations", {"a", "b"}},
              {"partition", {0, 1}},         {"quality", {3, 9}},     {"generation_scores", {3, 9}}};
  absl::StatusOr<NoveltyRow> row = NoveltyRowFromJson(sample, "f:1");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->prompt_id, "p1");
  EXPECT_EQ(row->temperature, 0.7);
  EXPECT_THAT(row->quality, ElementsAre(3, 9));
  sample["quality"] = {3, nullptr};
  EXPECT_THAT(Message(NoveltyRowFromJson(sample, "f:1").status()),
              HasSubstr("generation 1 opens a class but its quality is null"));
}

TEST(NoveltyRowsTest, ReadsEveryPublishedRun) {
  for (const char* model : {"Llama-3.1-8B-Instruct", "claude-3-5-sonnet-v2@20241022", "gemini-2.0-flash",
                            "gemma-2-2b-it", "gpt-4o-2024-11-20"}) {
    absl::StatusOr<std::vector<NoveltyRow>> rows =
        ReadNoveltyRows(SharedData(std::string("noveltybench/reference-runs/") + model + "/scores.jsonl"));
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(rows->size(), 100u) << model;
  }
}

TEST(NoveltyRowsTest, ErrorsNameFileAndLine) {
  EXPECT_THAT(Message(ReadError(ScoresRow() + "\nnot json\n")), HasSubstr("scores.jsonl:2: not JSON"));
  EXPECT_THAT(Message(ReadError("[1, 2]\n")), HasSubstr(":1: expected a JSON object, got array"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"model", nullptr}}))), HasSubstr(":1: missing \"model\""));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"id", nullptr}}))), HasSubstr(":1: missing \"id\""));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generations", nullptr}}))), HasSubstr("missing \"generations\""));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generation_scores", nullptr}}))),
              HasSubstr("missing \"generation_scores\""));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generations", {"a", 5, "c"}}}))),
              HasSubstr("\"generations\"[1] must be a string"));
  EXPECT_THAT(Message(ReadError("\n\n")), HasSubstr("no rows"));
  EXPECT_THAT(Message(ReadError(testing_files::DeeplyNestedJson())),
              HasSubstr(":1: not JSON (one row object per line expected): JSON nested deeper than 256 levels"));
}

TEST(NoveltyRowsTest, LengthsMustMatchTheGenerations) {
  EXPECT_THAT(Message(ReadError(ScoresRow({{"partition", {0, 0}}}))),
              HasSubstr(":1: \"partition\" has 2 entries but \"generations\" has 3"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generation_scores", {7, 0, 4, 0}}}))),
              HasSubstr("\"generation_scores\" has 4 entries but \"generations\" has 3"));
}

TEST(NoveltyRowsTest, PartitionAndScoresMustBeConsistent) {
  EXPECT_THAT(Message(ReadError(ScoresRow({{"partition", {1, 0, 0}}}))), HasSubstr("partition[0] is 1"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generation_scores", {7, 5, 4}}}))),
              HasSubstr("\"generation_scores\"[1] is 5 but generation 1 does not open its class"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generation_scores", {7, 0, 0}}}))),
              HasSubstr("\"generation_scores\"[2] is 0 but generation 2 opens class 1"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"generation_scores", {-5.25, 0, 4}}}))),
              HasSubstr("raw rewards must be bucketed first"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"partition_scores", {7, 5}}}))),
              HasSubstr("\"partition_scores\" [7,5] disagree"));
}

TEST(NoveltyRowsTest, RepeatedPromptIsAnError) {
  EXPECT_THAT(Message(ReadError(ScoresRow() + "\n" + ScoresRow() + "\n")),
              HasSubstr(":2: prompt \"curated-1\" of model \"m\" appears again (first at "));
}

TEST(NoveltyRowsTest, RepeatsOfAPromptAndFailedUnitsAreNotErrors) {
  TempDir dir;
  const std::string path = dir.Write("samples.jsonl", ScoresRow() + "\n" + ScoresRow({{"repeat", 1}}) + "\n" +
                                                          ScoresRow({{"error", "HTTP 503"}}) + "\n");
  int failed = -1;
  absl::StatusOr<std::vector<NoveltyRow>> rows = ReadNoveltyRows(path, &failed);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].repeat, 0);
  EXPECT_EQ((*rows)[1].repeat, 1);
  EXPECT_EQ(failed, 1);

  EXPECT_THAT(Message(ReadError(ScoresRow({{"repeat", 1}}) + "\n" + ScoresRow({{"repeat", 1}}) + "\n")),
              HasSubstr("appears again"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"repeat", 1.5}}))), HasSubstr("\"repeat\" is 1.5"));
  EXPECT_THAT(Message(ReadError(ScoresRow({{"repeat", -1}}))), HasSubstr("expected 0 or more"));
}

}  // namespace
}  // namespace noveltygrid::noveltybench
