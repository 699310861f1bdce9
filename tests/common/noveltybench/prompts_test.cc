// NoveltyBench's prompt wording: the defaults carry the tags judges read, substitution is one pass,
// and a prompts file replaces only the entries it names, refusing anything malformed by file and key.
#include "common/noveltybench/prompts.h"

#include <string>

#include "common/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid::noveltybench {
namespace {

using ::noveltygrid::testing_files::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(NoveltyPromptsTest, DefaultsAreNonEmptyAndCarryTheirPlaceholders) {
  const NoveltyPrompts p = DefaultNoveltyPrompts();
  EXPECT_FALSE(p.in_context_followup.empty());
  EXPECT_FALSE(p.system_prompt.empty());
  for (const char* placeholder : {"{prompt}", "{answer1}", "{answer2}", "<similarity_score>"}) {
    EXPECT_THAT(p.equivalence_judge, HasSubstr(placeholder));
  }
  for (const char* placeholder : {"{prompt}", "{response}", "<coherence_score>", "from 1 to 10"}) {
    EXPECT_THAT(p.quality_judge, HasSubstr(placeholder));
  }
  for (const char* placeholder : {"{prompt}", "{responses}", "{count}", "<groups></groups>"}) {
    EXPECT_THAT(p.groups_judge, HasSubstr(placeholder));
  }
  // The equivalence judge is on 0..100 and must not read as a 1-10 judge.
  EXPECT_THAT(p.equivalence_judge, HasSubstr("0 to 100"));
  EXPECT_THAT(p.equivalence_judge, Not(HasSubstr("1 to 10")));
}

TEST(NoveltyPromptsTest, JudgePromptsPutTheTextsInTheLastTags) {
  const NoveltyPrompts p = DefaultNoveltyPrompts();
  const std::string equivalence = EquivalenceJudgePrompt(p, "Name a color.", "Teal.", "Crimson.");
  EXPECT_EQ(ExtractLastTag(equivalence, "question"), "Name a color.");
  EXPECT_EQ(ExtractLastTag(equivalence, "answer1"), "Teal.");
  EXPECT_EQ(ExtractLastTag(equivalence, "answer2"), "Crimson.");
  const std::string quality = QualityJudgePrompt(p, "Name a color.", "Teal.");
  EXPECT_EQ(ExtractLastTag(quality, "question"), "Name a color.");
  EXPECT_EQ(ExtractLastTag(quality, "answer"), "Teal.");
  const std::string groups = GroupsJudgePrompt(p, "Name a color.", {"Teal.", "Crimson.", "Teal, again."});
  EXPECT_EQ(ExtractLastTag(groups, "question"), "Name a color.");
  EXPECT_EQ(ExtractLastTag(groups, "response1"), "Teal.");
  EXPECT_EQ(ExtractLastTag(groups, "response2"), "Crimson.");
  EXPECT_EQ(ExtractLastTag(groups, "response3"), "Teal, again.");
  EXPECT_EQ(ExtractLastTag(groups, "response4"), std::nullopt);
  EXPECT_THAT(groups, HasSubstr("only the 3 group numbers"));
}

TEST(NoveltyPromptsTest, SubstitutionIsOnePassSoTextsAreNeverExpanded) {
  NoveltyPrompts p;
  p.equivalence_judge = "[{prompt}|{answer1}|{answer2}]";
  p.quality_judge = "[{prompt}|{response}]";
  EXPECT_EQ(EquivalenceJudgePrompt(p, "P {answer2}", "A {prompt}", "B"), "[P {answer2}|A {prompt}|B]");
  EXPECT_EQ(QualityJudgePrompt(p, "{response}", "R"), "[{response}|R]");
  p.groups_judge = "[{prompt}|{count}|{responses}]";
  EXPECT_EQ(GroupsJudgePrompt(p, "{count}", {"{responses}", "x"}),
            "[{count}|2|<response1>{responses}</response1>\n\n<response2>x</response2>]");
}

TEST(LoadNoveltyPromptsTest, ReplacesOnlyTheEntriesTheFileNames) {
  TempDir dir;
  const std::string path = dir.Write("prompts.json", R"({
    "_about": "comments are ignored",
    "in_context_followup": "Another one, please.",
    "quality_judge": "Rate {response} to {prompt} from 1 to 10 in <coherence_score></coherence_score>."
  })");
  absl::StatusOr<NoveltyPrompts> loaded = LoadNoveltyPrompts(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const NoveltyPrompts defaults = DefaultNoveltyPrompts();
  EXPECT_EQ(loaded->in_context_followup, "Another one, please.");
  EXPECT_EQ(loaded->quality_judge, "Rate {response} to {prompt} from 1 to 10 in <coherence_score></coherence_score>.");
  EXPECT_EQ(loaded->system_prompt, defaults.system_prompt);
  EXPECT_EQ(loaded->equivalence_judge, defaults.equivalence_judge);
}

TEST(LoadNoveltyPromptsTest, MissingFileIsNotFound) {
  TempDir dir;
  EXPECT_EQ(LoadNoveltyPrompts((dir.path() / "absent.json").string()).status().code(), absl::StatusCode::kNotFound);
}

TEST(LoadNoveltyPromptsTest, MalformedFilesAreRefusedNamingFileAndKey) {
  TempDir dir;
  struct Case {
    const char* contents;
    const char* expected;  // in the message, besides the path
  };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {R"(["a list"])", "expected an object"},
      {R"({"system_promt": "typo"})", "system_promt: unknown key"},
      {R"({"system_prompt": 3})", "system_prompt: is a number"},
      {R"({"system_prompt": ""})", "system_prompt: is empty"},
      {R"({"equivalence_judge": "Compare {answer1} and {answer2}."})",
       "equivalence_judge: has no {prompt} placeholder"},
      {R"({"quality_judge": "Rate {prompt}."})", "quality_judge: has no {response} placeholder"},
      {R"({"groups_judge": "Group these: {responses}"})", "groups_judge: has no {prompt} placeholder"},
  };
  for (const Case& c : cases) {
    const std::string path = dir.Write("bad.json", c.contents);
    absl::StatusOr<NoveltyPrompts> loaded = LoadNoveltyPrompts(path);
    ASSERT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << c.contents;
    EXPECT_THAT(loaded.status().message(), HasSubstr(path)) << c.contents;
    EXPECT_THAT(loaded.status().message(), HasSubstr(c.expected)) << c.contents;
  }
}

}  // namespace
}  // namespace noveltygrid::noveltybench
