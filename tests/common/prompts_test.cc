#include "common/prompts.h"

#include <fstream>
#include <sstream>

#include "common/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::SharedData;
using ::noveltygrid::testing_files::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kReferencePath = SharedData("aidanbench/prompts-reference.json");

// Plain find-and-replace of every occurrence; independent of FillTemplate on purpose.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

nlohmann::json ReadRawReference() {
  std::ifstream in(kReferencePath);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return nlohmann::json::parse(buffer.str());
}

// THE KEY TEST: the generation prompt built from the reference file equals, byte for byte, the
// recipe in the file's "_about", built here from the raw strings.
TEST(PromptTemplatesTest, ReferenceGenerationPromptIsByteIdenticalToTheRecipe) {
  auto templates = LoadPromptTemplates(kReferencePath);
  ASSERT_TRUE(templates.ok()) << templates.status();
  const std::string question = "What is a cause of World War 1?";
  const std::vector<std::string> previous = {"The assassination of Archduke Franz Ferdinand.",
                                             "Entangling alliances\nbetween the great powers."};

  const nlohmann::json raw = ReadRawReference();
  const std::string item1 =
      ReplaceAll(ReplaceAll(raw["previous_answer_item"].get<std::string>(), "{index}", "1"), "{answer}", previous[0]);
  const std::string item2 =
      ReplaceAll(ReplaceAll(raw["previous_answer_item"].get<std::string>(), "{index}", "2"), "{answer}", previous[1]);
  const std::string expected = ReplaceAll(raw["generation_base"].get<std::string>(), "{question}", question) +
                               raw["generation_instructions"].get<std::string>() +
                               ReplaceAll(raw["generation_previous_block"].get<std::string>(), "{previous_answers}",
                                          item1 + raw["previous_answers_separator"].get<std::string>() + item2);

  const std::string prompt = templates->GenerationPrompt(question, previous);
  EXPECT_EQ(prompt, expected);

  // And a literal check, in case the recipe above and the loader shared a mistake.
  const std::string literal_start =
      "Answer the following question:.\n"
      "<question>What is a cause of World War 1?</question>\n"
      "Provide your answer in <answer></answer> XML tags.\n";
  EXPECT_EQ(prompt.substr(0, literal_start.size()), literal_start);
  EXPECT_THAT(prompt, HasSubstr("<previous_answers>\n<previous_answer id='1'>\n"
                                "The assassination of Archduke Franz Ferdinand.\n</previous_answer>\n\n"
                                "<previous_answer id='2'>\nEntangling alliances\nbetween the great "
                                "powers.\n</previous_answer>\n</previous_answers>"));
  EXPECT_EQ(prompt.substr(prompt.size() - 19), "</previous_answers>");
}

TEST(PromptTemplatesTest, ReferenceFirstPromptHasNoPreviousBlock) {
  auto templates = LoadPromptTemplates(kReferencePath);
  ASSERT_TRUE(templates.ok()) << templates.status();
  EXPECT_EQ(templates->GenerationPrompt("Q?", {}),
            "Answer the following question:.\n<question>Q?</question>\n"
            "Provide your answer in <answer></answer> XML tags.\n"
            "Your response should be one direct answer. Only provide one answer. DO NOT list multiple "
            "answers. Please try to be concise.\n");
  EXPECT_TRUE(templates->coherence_judge_1_10.empty());
  EXPECT_FALSE(templates->similarity_judge.empty());
}

TEST(PromptTemplatesTest, ReferenceJudgePromptsCarryQuestionAndAnswer) {
  auto templates = LoadPromptTemplates(kReferencePath);
  ASSERT_TRUE(templates.ok()) << templates.status();
  const std::string judge = templates->CoherencePrompt("Why?", "Because.", 100);
  EXPECT_EQ(ExtractLastTag(judge, "question"), "Why?");
  EXPECT_EQ(ExtractLastTag(judge, "answer"), "Because.");
  // No 1-10 judge in the file: the 0-100 one is returned (the config loader refuses that preset).
  EXPECT_EQ(templates->CoherencePrompt("Why?", "Because.", 10), judge);
  const std::string similarity = templates->SimilarityPrompt("Q", "A one", "A two");
  EXPECT_EQ(ExtractLastTag(similarity, "answer1"), "A one");
  EXPECT_EQ(ExtractLastTag(similarity, "answer2"), "A two");
}

TEST(PromptTemplatesTest, DefaultGenerationPromptFollowsTheTagConventions) {
  const PromptTemplates& t = DefaultPromptTemplates();
  const std::string first = t.GenerationPrompt("Name a fruit.", {});
  EXPECT_THAT(first, HasSubstr("<question>Name a fruit.</question>"));
  EXPECT_THAT(first, HasSubstr("<answer></answer>"));
  EXPECT_THAT(first, Not(HasSubstr("<previous_answers>")));

  const std::string later = t.GenerationPrompt("Name a fruit.", {"Apple", "Pear"});
  EXPECT_TRUE(later.starts_with(first));
  EXPECT_THAT(later, HasSubstr("<previous_answers>\n<previous_answer id='1'>\nApple\n</previous_answer>"));
  EXPECT_THAT(later, HasSubstr("<previous_answer id='2'>\nPear\n</previous_answer>\n</previous_answers>"));
  EXPECT_EQ(ExtractLastTag(later, "question"), "Name a fruit.");
}

// Placeholders where a template does not fill them, and values that look like placeholders, are kept
// as written: the separator is not a template, an item has only {index} and {answer}, the block only
// {question} and {previous_answers} (which may appear twice); indexes count past 9.
TEST(PromptTemplatesTest, GenerationPromptKeepsWhatNoTemplateFills) {
  PromptTemplates t;
  t.generation_base = "Q={question};";
  t.generation_instructions = "I{x}.";
  t.generation_previous_block = "[{previous_answers}|{question}|{previous_answers}]";
  t.previous_answer_item = "<{index}:{answer}:{question}{previous_answers}>";
  t.previous_answers_separator = "{index},";
  const std::vector<std::string> answers(11, "a{index}");
  std::string items;
  for (int i = 1; i <= 11; ++i) {
    if (i > 1) items += "{index},";
    items += "<" + std::to_string(i) + ":a{index}:{question}{previous_answers}>";
  }
  EXPECT_EQ(t.GenerationPrompt("q{answer}", {}), "Q=q{answer};I{x}.");
  EXPECT_EQ(t.GenerationPrompt("q{answer}", answers), "Q=q{answer};I{x}.[" + items + "|q{answer}|" + items + "]");
  // Braces around and inside the placeholders, an unclosed one last: as FillTemplate reads them.
  t.generation_previous_block = "{{previous_answers}}{question";
  t.previous_answer_item = "{{index}{}{answer}}{index";
  const std::vector<std::string> two = {"x", "y"};
  EXPECT_EQ(t.GenerationPrompt("q", two), "Q=q;I{x}.{{1{}x}{index{index},{2{}y}{index}{question");
}

TEST(PromptTemplatesTest, DefaultJudgesFollowTheTagAndScaleConventions) {
  const PromptTemplates& t = DefaultPromptTemplates();
  const std::string q = "Why is the sky blue?";
  const std::string a = "Rayleigh scattering.";

  const std::string judge100 = t.CoherencePrompt(q, a, 100);
  EXPECT_THAT(judge100, HasSubstr("0 to 100"));
  EXPECT_THAT(judge100, HasSubstr("<coherence_score></coherence_score>"));
  // A simulated judge picks the 1-10 scale when it sees any of these.
  for (const char* ten : {"1 to 10", "1-10", "1 - 10"}) EXPECT_THAT(judge100, Not(HasSubstr(ten)));
  EXPECT_EQ(ExtractLastTag(judge100, "question"), q);
  EXPECT_EQ(ExtractLastTag(judge100, "answer"), a);

  const std::string judge10 = t.CoherencePrompt(q, a, 10);
  EXPECT_THAT(judge10, HasSubstr("1 to 10"));
  EXPECT_THAT(judge10, HasSubstr("<coherence_score></coherence_score>"));
  EXPECT_THAT(judge10, Not(HasSubstr("0 to 100")));
  EXPECT_EQ(ExtractLastTag(judge10, "question"), q);
  EXPECT_EQ(ExtractLastTag(judge10, "answer"), a);

  const std::string similarity = t.SimilarityPrompt(q, "first", "second");
  EXPECT_THAT(similarity, HasSubstr("<similarity_score></similarity_score>"));
  EXPECT_THAT(similarity, HasSubstr("0 to 100"));
  for (const char* ten : {"1 to 10", "1-10", "1 - 10"}) EXPECT_THAT(similarity, Not(HasSubstr(ten)));
  EXPECT_EQ(ExtractLastTag(similarity, "question"), q);
  EXPECT_EQ(ExtractLastTag(similarity, "answer1"), "first");
  EXPECT_EQ(ExtractLastTag(similarity, "answer2"), "second");
}

TEST(PromptTemplatesTest, DefaultWordingIsNotTheReferenceWording) {
  auto reference = LoadPromptTemplates(kReferencePath);
  ASSERT_TRUE(reference.ok()) << reference.status();
  const PromptTemplates& t = DefaultPromptTemplates();
  EXPECT_NE(t.generation_base, reference->generation_base);
  EXPECT_NE(t.generation_instructions, reference->generation_instructions);
  EXPECT_NE(t.generation_previous_block, reference->generation_previous_block);
  EXPECT_NE(t.coherence_judge, reference->coherence_judge);
  EXPECT_NE(t.similarity_judge, reference->similarity_judge);
}

TEST(FillTemplateTest, SinglePassNeverExpandsSubstitutedText) {
  EXPECT_EQ(FillTemplate("<q>{question}</q><a>{answer}</a>", {{"question", "say {answer}"}, {"answer", "{question}"}}),
            "<q>say {answer}</q><a>{question}</a>");
  // The generation prompt, too: an answer that looks like a placeholder stays literal.
  const std::string prompt = DefaultPromptTemplates().GenerationPrompt("{previous_answers}", {"{index} {question}"});
  EXPECT_THAT(prompt, HasSubstr("<question>{previous_answers}</question>"));
  EXPECT_THAT(prompt, HasSubstr("<previous_answer id='1'>\n{index} {question}\n</previous_answer>"));
}

TEST(FillTemplateTest, OtherBracesAreLeftAsTheyAre) {
  const std::vector<TemplateValue> values = {{"x", "1"}};
  EXPECT_EQ(FillTemplate("{y} {x} {} {x", values), "{y} 1 {} {x");
  EXPECT_EQ(FillTemplate("{{x}}", values), "{1}");
  EXPECT_EQ(FillTemplate("json {\"a\": {x}}", values), "json {\"a\": 1}");
  EXPECT_EQ(FillTemplate("", values), "");
  EXPECT_EQ(FillTemplate("{x}{x}", values), "11");
}

TEST(LoadPromptTemplatesTest, ErrorsNameTheFileAndTheKey) {
  TempDir dir;
  nlohmann::json good = ReadRawReference();

  nlohmann::json unknown = good;
  unknown["generation_extra"] = "x";
  const std::string unknown_path = dir.Write("unknown.json", unknown.dump());
  auto status = LoadPromptTemplates(unknown_path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(unknown_path + ": generation_extra: unknown key"));

  nlohmann::json wrong_type = good;
  wrong_type["coherence_judge"] = 5;
  const std::string wrong_path = dir.Write("wrong.json", wrong_type.dump());
  status = LoadPromptTemplates(wrong_path).status();
  EXPECT_THAT(status.message(), HasSubstr(wrong_path + ": coherence_judge: is a number"));
  EXPECT_THAT(status.message(), HasSubstr("expected a string"));

  nlohmann::json missing = good;
  missing.erase("previous_answers_separator");
  const std::string missing_path = dir.Write("missing.json", missing.dump());
  EXPECT_THAT(LoadPromptTemplates(missing_path).status().message(),
              HasSubstr(missing_path + ": previous_answers_separator: missing"));

  nlohmann::json no_placeholder = good;
  no_placeholder["coherence_judge"] = "Rate it.";
  const std::string no_placeholder_path = dir.Write("noph.json", no_placeholder.dump());
  EXPECT_THAT(LoadPromptTemplates(no_placeholder_path).status().message(),
              HasSubstr(no_placeholder_path + ": coherence_judge: has no {answer} placeholder"));

  const std::string not_json = dir.Write("bad.json", "{\"generation_base\": ");
  EXPECT_THAT(LoadPromptTemplates(not_json).status().message(), HasSubstr(not_json));

  const std::string absent = (dir.path() / "absent.json").string();
  testing_files::ExpectNotFound(LoadPromptTemplates(absent).status(), absent);
}

TEST(LoadPromptTemplatesTest, OptionalKeysAndCommentsAreAccepted) {
  TempDir dir;
  nlohmann::json minimal = ReadRawReference();
  minimal.erase("similarity_judge");
  minimal["_note"] = 12;  // any "_" key is a comment, whatever its type
  minimal["coherence_judge_1_10"] = "Score 1 to 10: <answer>{answer}</answer>";
  auto templates = LoadPromptTemplates(dir.Write("t.json", minimal.dump()));
  ASSERT_TRUE(templates.ok()) << templates.status();
  EXPECT_TRUE(templates->similarity_judge.empty());
  EXPECT_EQ(templates->CoherencePrompt("q", "A", 10), "Score 1 to 10: <answer>A</answer>");
}

}  // namespace
}  // namespace noveltygrid
