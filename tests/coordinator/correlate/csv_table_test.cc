#include "coordinator/report/correlate/csv_table.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_files::TempDir;

CsvTable Parsed(const std::string& text) {
  absl::StatusOr<CsvTable> table = ParseCsv(text);
  EXPECT_TRUE(table.ok()) << table.status();
  return table.value_or(CsvTable{});
}

void ExpectError(const std::string& text, const std::string& message) {
  absl::StatusOr<CsvTable> table = ParseCsv(text);
  ASSERT_FALSE(table.ok()) << "parsed: " << text;
  EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(table.status().message(), HasSubstr(message));
}

TEST(CsvTableTest, PlainTable) {
  const CsvTable table = Parsed("model,elo\ngpt,1250\nclaude,1270\n");
  EXPECT_THAT(table.header, ElementsAre("model", "elo"));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_THAT(table.rows[1].fields, ElementsAre("claude", "1270"));
  EXPECT_EQ(table.rows[0].line, 2);
  EXPECT_EQ(table.rows[1].line, 3);
  EXPECT_EQ(table.ColumnIndex("elo"), 1);
  EXPECT_EQ(table.ColumnIndex("Elo"), -1);
}

TEST(CsvTableTest, BomCrlfQuotesAndNoFinalLineBreak) {
  const CsvTable table = Parsed(
      "\xEF\xBB\xBFmodel,\"score, overall\"\r\n"
      "\"org/model \"\"v2\"\"\",\"1,250\"\r\n"
      "\"two\nlines\",7\r\n"
      "last,\"\"");
  EXPECT_THAT(table.header, ElementsAre("model", "score, overall"));  // the BOM is not part of "model"
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_THAT(table.rows[0].fields, ElementsAre("org/model \"v2\"", "1,250"));
  EXPECT_THAT(table.rows[1].fields, ElementsAre("two\nlines", "7"));
  EXPECT_THAT(table.rows[2].fields, ElementsAre("last", ""));
  EXPECT_EQ(table.rows[1].line, 3);
  EXPECT_EQ(table.rows[2].line, 5);  // after the quoted line break
}

TEST(CsvTableTest, BlankLinesAndEmptyFields) {
  const CsvTable table = Parsed("\na,b,c\n\n1,,3\r\n\r\n,,\n");
  EXPECT_THAT(table.header, ElementsAre("a", "b", "c"));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_THAT(table.rows[0].fields, ElementsAre("1", "", "3"));
  EXPECT_EQ(table.rows[0].line, 4);
  EXPECT_THAT(table.rows[1].fields, ElementsAre("", "", ""));
  EXPECT_EQ(table.rows[1].line, 6);
}

TEST(CsvTableTest, HeaderOnly) {
  const CsvTable table = Parsed("model,elo");
  EXPECT_THAT(table.header, ElementsAre("model", "elo"));
  EXPECT_TRUE(table.rows.empty());
}

TEST(CsvTableTest, MalformedTextNamesTheLine) {
  ExpectError("", "no header row");
  ExpectError("\n\n", "no header row");
  ExpectError("a,b\n1,2,3\n", "line 2: 3 fields where the header has 2");
  ExpectError("a,b\n1\n", "line 2: 1 fields where the header has 2");
  ExpectError("a,b\nx\"y,2\n", "line 2: a quote inside an unquoted field");
  ExpectError("a,b\n\"x\"y,2\n", "line 2: text after a closing quote");
  ExpectError("a,b\n1,2\n\"open,3\n4,5\n", "line 3: a quoted field is never closed");
  ExpectError("a,b\r1,2\n", "line 1: a carriage return that does not end a line");
}

TEST(CsvTableTest, FileErrorsNameThePath) {
  TempDir dir;
  const std::string missing = (dir.path() / "missing.csv").string();
  testing_files::ExpectNotFound(ReadCsvFile(missing).status(), missing);
  const std::string bad = dir.Write("bad.csv", "a,b\n1\n");
  absl::StatusOr<CsvTable> table = ReadCsvFile(bad);
  ASSERT_FALSE(table.ok());
  EXPECT_THAT(table.status().message(), HasSubstr(bad + ": line 2"));
  const std::string good = dir.Write("good.csv", "a\n1\n");
  ASSERT_TRUE(ReadCsvFile(good).ok());
}

}  // namespace
}  // namespace noveltygrid
