#include "common/dataset.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::DeeplyNestedJson;
using ::noveltygrid::testing_files::SharedData;
using ::noveltygrid::testing_files::TempDir;
using ::testing::HasSubstr;

TEST(LoadQuestionsTest, LoadsThePaperQuestions) {
  auto questions = LoadQuestions(SharedData("aidanbench/questions-paper-65.jsonl"));
  ASSERT_TRUE(questions.ok()) << questions.status();
  ASSERT_EQ(questions->size(), 65u);
  EXPECT_EQ((*questions)[0].id, "aidan-01");
  EXPECT_EQ((*questions)[0].text, "Provide an explanation for Japan's Lost Decades.");
  EXPECT_EQ((*questions)[1].id, "aidan-02");
}

TEST(LoadQuestionsTest, SkipsBlankLinesAndCarriageReturns) {
  TempDir dir;
  const std::string path =
      dir.Write("q.jsonl", "\n{\"id\": \"a\", \"question\": \"Why?\"}\r\n   \n{\"id\": \"b\", \"question\": \"How?\"}");
  auto questions = LoadQuestions(path);
  ASSERT_TRUE(questions.ok()) << questions.status();
  ASSERT_EQ(questions->size(), 2u);
  EXPECT_EQ((*questions)[0].text, "Why?");
  EXPECT_EQ((*questions)[1].id, "b");
}

TEST(LoadQuestionsTest, DuplicateIdNamesBothLines) {
  TempDir dir;
  const std::string path = dir.Write("q.jsonl",
                                     "{\"id\": \"a\", \"question\": \"1\"}\n"
                                     "{\"id\": \"b\", \"question\": \"2\"}\n"
                                     "\n"
                                     "{\"id\": \"a\", \"question\": \"3\"}\n");
  auto questions = LoadQuestions(path);
  ASSERT_FALSE(questions.ok());
  EXPECT_EQ(questions.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(questions.status().message(), HasSubstr(path + ":4: duplicate id \"a\""));
  EXPECT_THAT(questions.status().message(), HasSubstr("line 1"));
}

TEST(LoadQuestionsTest, MalformedLineNamesFileAndLine) {
  TempDir dir;
  const std::string path =
      dir.Write("q.jsonl", "{\"id\": \"a\", \"question\": \"1\"}\n{\"id\": \"b\", \"question\": \n");
  auto questions = LoadQuestions(path);
  ASSERT_FALSE(questions.ok());
  EXPECT_THAT(questions.status().message(), HasSubstr(path + ":2: malformed JSON"));
  EXPECT_THAT(questions.status().message(), HasSubstr("expected one JSON object per line"));
  const std::string deep =
      dir.Write("deep.jsonl", "{\"id\": \"a\", \"question\": \"1\"}\n" + DeeplyNestedJson() + "\n");
  questions = LoadQuestions(deep);
  ASSERT_FALSE(questions.ok());
  EXPECT_THAT(questions.status().message(), HasSubstr(deep + ":2: malformed JSON (JSON nested deeper than 256"));
}

TEST(LoadQuestionsTest, MissingAndNonStringFields) {
  TempDir dir;
  const std::string missing = dir.Write("missing.jsonl", "{\"id\": \"a\"}\n");
  auto status = LoadQuestions(missing).status();
  EXPECT_THAT(status.message(), HasSubstr(missing + ":1: missing field \"question\""));

  const std::string number = dir.Write("number.jsonl", "{\"id\": 7, \"question\": \"q\"}\n");
  status = LoadQuestions(number).status();
  EXPECT_THAT(status.message(), HasSubstr(number + ":1: field \"id\" is number, not a string"));

  const std::string array = dir.Write("array.jsonl", "[\"id\", \"question\"]\n");
  status = LoadQuestions(array).status();
  EXPECT_THAT(status.message(), HasSubstr(array + ":1: the line is a JSON array"));
}

TEST(LoadQuestionsTest, DomainAndSubdomainAreOptionalStrings) {
  TempDir dir;
  const std::string path = dir.Write("sci.jsonl",
                                     "{\"id\": \"a\", \"question\": \"qa\", \"domain\": \"Biology\", "
                                     "\"subdomain\": \"Genetics\"}\n"
                                     "{\"id\": \"b\", \"question\": \"qb\", \"domain\": \"Physics\"}\n"
                                     "{\"id\": \"c\", \"question\": \"qc\", \"domain\": null}\n");
  auto questions = LoadQuestions(path);
  ASSERT_TRUE(questions.ok()) << questions.status();
  ASSERT_EQ(questions->size(), 3u);
  EXPECT_EQ((*questions)[0].domain, "Biology");
  EXPECT_EQ((*questions)[0].subdomain, "Genetics");
  EXPECT_EQ((*questions)[1].domain, "Physics");
  EXPECT_EQ((*questions)[1].subdomain, "");
  EXPECT_EQ((*questions)[2].domain, "");

  // The published question files have none.
  questions = LoadQuestions(SharedData("aidanbench/questions-2025-63.jsonl"));
  ASSERT_TRUE(questions.ok()) << questions.status();
  for (const Question& q : *questions) EXPECT_EQ(q.domain + q.subdomain, "") << q.id;
}

TEST(LoadQuestionsTest, MistypedDomainOrASubdomainWithoutDomainIsRefused) {
  TempDir dir;
  const std::string number = dir.Write(
      "number.jsonl", "{\"id\": \"a\", \"question\": \"q\"}\n{\"id\": \"b\", \"question\": \"q\", \"domain\": 3}\n");
  auto status = LoadQuestions(number).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(number + ":2: field \"domain\" is number, not a string"));
  EXPECT_THAT(status.message(), HasSubstr("optional string \"domain\""));

  const std::string list =
      dir.Write("list.jsonl", "{\"id\": \"a\", \"question\": \"q\", \"domain\": \"D\", \"subdomain\": [\"x\"]}\n");
  EXPECT_THAT(LoadQuestions(list).status().message(),
              HasSubstr(list + ":1: field \"subdomain\" is array, not a string"));

  const std::string orphan = dir.Write("orphan.jsonl", "{\"id\": \"a\", \"question\": \"q\", \"subdomain\": \"x\"}\n");
  EXPECT_THAT(LoadQuestions(orphan).status().message(), HasSubstr(orphan + ":1: subdomain \"x\" without a domain"));
}

TEST(LoadQuestionsTest, EmptyAndMissingFiles) {
  TempDir dir;
  const std::string empty = dir.Write("empty.jsonl", "");
  auto status = LoadQuestions(empty).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(empty + ": no questions"));

  const std::string blank = dir.Write("blank.jsonl", "\n  \n\n");
  EXPECT_THAT(LoadQuestions(blank).status().message(), HasSubstr(blank + ": no questions"));

  const std::string absent = (dir.path() / "absent.jsonl").string();
  testing_files::ExpectNotFound(LoadQuestions(absent).status(), absent);
}

TEST(LoadQuestionsTest, DirectoryIsRefused) {
  TempDir dir;
  const absl::Status status = LoadQuestions(dir.path().string()).status();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("cannot read " + dir.path().string() + ": it is a folder, not a file"));
}

TEST(LoadBenchPromptsTest, LoadsCuratedPrompts) {
  auto prompts = LoadBenchPrompts(SharedData("noveltybench/curated.jsonl"));
  ASSERT_TRUE(prompts.ok()) << prompts.status();
  ASSERT_EQ(prompts->size(), 100u);
  const BenchPrompt& first = (*prompts)[0];
  EXPECT_EQ(first.id, "curated-0");
  EXPECT_EQ(first.category, "Creativity");
  EXPECT_EQ(first.text, "Tell me a story in five sentences about a girl and her dog.");
  ASSERT_EQ(first.paraphrases.size(), 10u);
  EXPECT_EQ(first.paraphrases[0], "Create a five-sentence story involving a girl and her dog.");
  for (const BenchPrompt& p : *prompts) EXPECT_FALSE(p.paraphrases.empty()) << p.id;
}

TEST(LoadBenchPromptsTest, OptionalFieldsAndErrors) {
  TempDir dir;
  const std::string minimal = dir.Write("p.jsonl", "{\"id\": \"p1\", \"prompt\": \"Name a color.\"}\n");
  auto prompts = LoadBenchPrompts(minimal);
  ASSERT_TRUE(prompts.ok()) << prompts.status();
  EXPECT_EQ((*prompts)[0].category, "");
  EXPECT_TRUE((*prompts)[0].paraphrases.empty());

  const std::string bad_paraphrase = dir.Write(
      "bad.jsonl",
      "{\"id\": \"p1\", \"prompt\": \"x\"}\n{\"id\": \"p2\", \"prompt\": \"y\", \"prompt_paraphrases\": [\"a\", 3]}\n");
  auto status = LoadBenchPrompts(bad_paraphrase).status();
  EXPECT_THAT(status.message(), HasSubstr(bad_paraphrase + ":2: prompt_paraphrases[1] is number"));

  const std::string duplicate =
      dir.Write("dup.jsonl", "{\"id\": \"p1\", \"prompt\": \"x\"}\n{\"id\": \"p1\", \"prompt\": \"y\"}\n");
  EXPECT_THAT(LoadBenchPrompts(duplicate).status().message(), HasSubstr(duplicate + ":2: duplicate id \"p1\""));

  const std::string bad_category = dir.Write("cat.jsonl", "{\"id\": \"p1\", \"prompt\": \"x\", \"category\": 2}\n");
  EXPECT_THAT(LoadBenchPrompts(bad_category).status().message(),
              HasSubstr(bad_category + ":1: field \"category\" is number, not a string"));

  const std::string no_prompt = dir.Write("np.jsonl", "{\"id\": \"p1\", \"category\": \"c\"}\n");
  EXPECT_THAT(LoadBenchPrompts(no_prompt).status().message(), HasSubstr(no_prompt + ":1: missing field \"prompt\""));
}

}  // namespace
}  // namespace noveltygrid
