// The planner (coordinator/plan/planner.h): unit order, ids and the plan fingerprint.
#include "coordinator/plan/planner.h"

#include <set>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/hashing.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::TempDir;

// Two questions and three NoveltyBench prompts (with 3 paraphrases each) in a scratch folder.
class PlannerTest : public ::testing::Test {
 protected:
  PlannerTest() {
    dir_.Write("q.jsonl",
               "{\"id\": \"q1\", \"question\": \"Why is the sky blue?\"}\n"
               "{\"id\": \"q2\", \"question\": \"Name a use for a brick.\"}\n");
    std::string prompts;
    for (int i = 0; i < 3; ++i) {
      prompts += "{\"id\": \"c" + std::to_string(i) + "\", \"prompt\": \"Prompt " + std::to_string(i) +
                 "\", \"prompt_paraphrases\": [\"P" + std::to_string(i) + "a\", \"P" + std::to_string(i) + "b\", \"P" +
                 std::to_string(i) + "c\"]}\n";
    }
    dir_.Write("curated.jsonl", prompts);
    dir_.Write("wildchat.jsonl", "{\"id\": \"w0\", \"prompt\": \"Name a colour.\"}\n");
  }

  Plan PlanOf(const std::string& yaml) {
    absl::StatusOr<SweepConfig> config = ParseSweepConfig(yaml, (dir_.path() / "sweep.yaml").string());
    EXPECT_TRUE(config.ok()) << config.status();
    return config.ok() ? PlanSweep(*config) : Plan{};
  }

  static constexpr char kAidan[] =
      "seed: 7\nmodels: [sim:explorer, openai:gpt-4o]\ntemperatures: [0.4, 1.0]\n"
      "aidanbench:\n  questions: q.jsonl\n";

  TempDir dir_;
};

TEST_F(PlannerTest, AidanBenchOnlyPlansKeepTheirIdsAndFingerprint) {
  // Pinned: ids computed before NoveltyBench joined the planner. A change here re-runs every sweep.
  const Plan plan = PlanOf(kAidan);
  std::vector<std::string> ids;
  for (const UnitSpec& u : plan.units) ids.push_back(u.id);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"0de298fefbd41e5a", "8d6d2f20268c2007", "b477a14d37ba4b95", "46a13124ebf00073",
                                      "add84952a2a3376d", "e127dbb3866157b1", "162b38abb6345d64", "9d8efd8bcffbd310"}));
  EXPECT_EQ(plan.fingerprint, "ecf173205f345ea9");
  EXPECT_EQ(plan.units[5].model, "openai:gpt-4o");
  EXPECT_EQ(plan.units[5].temperature, 0.4);
  EXPECT_EQ(plan.units[5].item_id, "q2");
  ASSERT_EQ(plan.benchmarks.size(), 1u);
  EXPECT_EQ(plan.benchmarks[0]->name(), kAidanBench);
  EXPECT_EQ(plan.Find(kNoveltyBench), nullptr);
}

TEST_F(PlannerTest, NoveltyBenchUnitsFollowAidanBenchInConfigOrder) {
  const Plan plan = PlanOf(std::string(kAidan) +
                           "noveltybench:\n  datasets: {curated: curated.jsonl, wildchat: wildchat.jsonl}\n"
                           "  limit: 2\n  k: 2\n  modes: [in-context, standard]\n  temperatures: [1.0]\n"
                           "  partitioner: unigram\n  quality_model: sim:reward\n");
  // 8 AidanBench units, then 2 models x 1 temperature x 2 modes x (2 curated + 1 wildchat) prompts.
  ASSERT_EQ(plan.units.size(), 8u + 12u);
  const auto* novelty = dynamic_cast<const NoveltyBenchmark*>(plan.Find(kNoveltyBench));
  ASSERT_NE(novelty, nullptr);
  EXPECT_EQ(novelty->temperatures(), std::vector<double>{1.0});
  EXPECT_EQ(novelty->modes(), (std::vector<std::string>{"in-context", "standard"}));
  EXPECT_EQ(novelty->dataset_names(), (std::vector<std::string>{"curated", "wildchat"}));
  EXPECT_EQ(novelty->settings().k(), 2);
  EXPECT_EQ(novelty->settings().partitioner(), "unigram");
  std::vector<std::string> order;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const UnitSpec& u = plan.units[i];
    EXPECT_EQ(u.index, static_cast<int>(i));
    if (i < 8) {
      EXPECT_EQ(u.benchmark, kAidanBench);
      EXPECT_TRUE(u.mode.empty() && u.dataset.empty());
      continue;
    }
    EXPECT_EQ(u.benchmark, kNoveltyBench);
    EXPECT_EQ(u.temperature, 1.0);
    EXPECT_TRUE(u.paraphrases.empty()) << "only the paraphrase mode carries paraphrases";
    order.push_back(u.model + "|" + u.mode + "|" + u.dataset + "|" + u.item_id);
  }
  EXPECT_EQ(order,
            (std::vector<std::string>{"sim:explorer|in-context|curated|c0", "sim:explorer|in-context|curated|c1",
                                      "sim:explorer|in-context|wildchat|w0", "sim:explorer|standard|curated|c0",
                                      "sim:explorer|standard|curated|c1", "sim:explorer|standard|wildchat|w0",
                                      "openai:gpt-4o|in-context|curated|c0", "openai:gpt-4o|in-context|curated|c1",
                                      "openai:gpt-4o|in-context|wildchat|w0", "openai:gpt-4o|standard|curated|c0",
                                      "openai:gpt-4o|standard|curated|c1", "openai:gpt-4o|standard|wildchat|w0"}));
  EXPECT_EQ(plan.units[8].item_text, "Prompt 0");

  // The AidanBench half is the AidanBench-only plan, id for id; the fingerprint covers both.
  const Plan aidan_only = PlanOf(kAidan);
  for (size_t i = 0; i < aidan_only.units.size(); ++i) EXPECT_EQ(plan.units[i].id, aidan_only.units[i].id);
  EXPECT_NE(plan.fingerprint, aidan_only.fingerprint);

  std::set<std::string> ids;
  for (const UnitSpec& u : plan.units) ids.insert(u.id);
  EXPECT_EQ(ids.size(), plan.units.size()) << "unit ids must be distinct";
}

TEST_F(PlannerTest, TheParaphraseModeCarriesTheFirstKParaphrases) {
  const Plan plan = PlanOf(
      "models: [sim:a]\ntemperatures: [1.0]\n"
      "noveltybench:\n  prompts: curated.jsonl\n  k: 2\n  modes: [paraphrase]\n");
  ASSERT_EQ(plan.units.size(), 3u);
  EXPECT_EQ(plan.units[1].mode, "paraphrase");
  EXPECT_EQ(plan.units[1].dataset, "curated");
  EXPECT_EQ(plan.units[1].paraphrases, (std::vector<std::string>{"P1a", "P1b"}));
}

TEST_F(PlannerTest, IdsAreStableAndChangeWithWhatAUnitComputes) {
  const std::string base = "seed: 1\nmodels: [sim:a]\ntemperatures: [1.0]\nnoveltybench:\n  prompts: curated.jsonl\n";
  const Plan a = PlanOf(base);
  const Plan again = PlanOf(base);
  ASSERT_EQ(a.units.size(), 3u);
  EXPECT_EQ(a.units[0].id, again.units[0].id);
  EXPECT_EQ(a.fingerprint, again.fingerprint);
  for (const std::string& change :
       {std::string("  k: 9\n"), std::string("  threshold: 0.2\n"), std::string("  patience: 0.7\n"),
        std::string("  ask_n: false\n"), std::string("  quality: llm\n"), std::string("  modes: [system-prompt]\n")}) {
    const Plan changed = PlanOf(base + change);
    ASSERT_EQ(changed.units.size(), 3u) << change;
    EXPECT_NE(changed.units[0].id, a.units[0].id) << change;
    EXPECT_NE(changed.fingerprint, a.fingerprint) << change;
  }
  // The dataset's name is part of the unit: the same file under another name is other work.
  const Plan renamed = PlanOf(
      "seed: 1\nmodels: [sim:a]\ntemperatures: [1.0]\n"
      "noveltybench:\n  datasets: {mine: curated.jsonl}\n");
  EXPECT_NE(renamed.units[0].id, a.units[0].id);
  EXPECT_EQ(renamed.units[0].item_id, a.units[0].item_id);
}

TEST_F(PlannerTest, HelperModelsAreThoseOfThePlannedBenchmarks) {
  EXPECT_EQ(PlanHelperModels(PlanOf(kAidan)), (std::vector<std::string>{"sim:judge", "lexical"}));
  EXPECT_EQ(PlanHelperModels(PlanOf("models: [openai:gpt-4o]\ntemperatures: [1.0]\n"
                                    "noveltybench:\n  prompts: curated.jsonl\n  partitioner: unigram\n"
                                    "  quality_model: vllm:skywork\n")),
            std::vector<std::string>{"vllm:skywork"});
  EXPECT_EQ(PlanHelperModels(PlanOf(std::string(kAidan) +
                                    "noveltybench:\n  prompts: curated.jsonl\n"
                                    "  partition_model: sim:classifier\n  quality_model: sim:reward\n")),
            (std::vector<std::string>{"sim:judge", "lexical", "sim:classifier", "sim:reward"}));
}

TEST_F(PlannerTest, RepeatsFollowEachBenchmarksUnitsAndRepeatZeroKeepsItsIds) {
  const Plan once = PlanOf(kAidan);
  const Plan thrice = PlanOf(std::string(kAidan) + "repeats: 3\n");
  ASSERT_EQ(thrice.units.size(), 3 * once.units.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < thrice.units.size(); ++i) {
    const UnitSpec& u = thrice.units[i];
    const UnitSpec& base = once.units[i % once.units.size()];
    EXPECT_EQ(u.repeat, static_cast<int>(i / once.units.size()));
    EXPECT_EQ(u.index, static_cast<int>(i));
    EXPECT_EQ(u.model, base.model);
    EXPECT_EQ(u.temperature, base.temperature);
    EXPECT_EQ(u.item_id, base.item_id);
    if (u.repeat == 0) {
      EXPECT_EQ(u.id, base.id) << "repeat 0 keeps the ids of a sweep without repeats";
    }
    EXPECT_TRUE(ids.insert(u.id).second) << "unit " << i << " shares an id";
  }
  EXPECT_EQ(thrice.units[once.units.size()].id, RepeatUnitId(once.units[0].id, 1));
  EXPECT_NE(RepeatSeed(7, 1), 7u);
  EXPECT_EQ(RepeatSeed(7, 0), 7u);
  EXPECT_NE(RepeatSeed(7, 1), RepeatSeed(7, 2));
}

// Question and prompt metadata (issue 17) travels with every unit, repeats included, and changes no id:
// it is reported, not computed with.
TEST_F(PlannerTest, MetadataTravelsWithTheUnitsAndLeavesTheirIds) {
  const std::string yaml = std::string(kAidan) +
                           "repeats: 2\nnoveltybench:\n  prompts: curated.jsonl\n  k: 2\n"
                           "  partitioner: unigram\n  quality_model: sim:reward\n";
  const Plan plain = PlanOf(yaml);
  dir_.Write("q.jsonl",
             "{\"id\": \"q1\", \"question\": \"Why is the sky blue?\", \"domain\": \"Physics\", "
             "\"subdomain\": \"Optics\"}\n"
             "{\"id\": \"q2\", \"question\": \"Name a use for a brick.\"}\n");
  dir_.Write("curated.jsonl",
             "{\"id\": \"c0\", \"prompt\": \"Prompt 0\", \"category\": \"Creativity\"}\n"
             "{\"id\": \"c1\", \"prompt\": \"Prompt 1\"}\n"
             "{\"id\": \"c2\", \"prompt\": \"Prompt 2\", \"category\": \"Facts\"}\n");
  const Plan tagged = PlanOf(yaml);
  ASSERT_EQ(tagged.units.size(), plain.units.size());
  EXPECT_EQ(tagged.fingerprint, plain.fingerprint);
  int with_domain = 0, with_category = 0;
  for (size_t i = 0; i < tagged.units.size(); ++i) {
    const UnitSpec& u = tagged.units[i];
    SCOPED_TRACE(u.benchmark + " " + u.item_id + " repeat " + std::to_string(u.repeat));
    EXPECT_EQ(u.id, plain.units[i].id);
    EXPECT_EQ(plain.units[i].domain + plain.units[i].subdomain + plain.units[i].category, "");
    if (u.benchmark == kAidanBench) {
      EXPECT_EQ(u.domain, u.item_id == "q1" ? "Physics" : "");
      EXPECT_EQ(u.subdomain, u.item_id == "q1" ? "Optics" : "");
      EXPECT_EQ(u.category, "");
      with_domain += u.domain.empty() ? 0 : 1;
    } else {
      EXPECT_EQ(u.category, u.item_id == "c0" ? "Creativity" : u.item_id == "c2" ? "Facts" : "");
      EXPECT_EQ(u.domain, "");
      with_category += u.category.empty() ? 0 : 1;
    }
  }
  EXPECT_EQ(with_domain, 2 * 2 * 2);        // q1 x 2 models x 2 temperatures x 2 repeats
  EXPECT_EQ(with_category, 2 * 2 * 2 * 2);  // c0 and c2 x 2 models x 2 temperatures x 2 repeats
}

TEST_F(PlannerTest, RepeatsMustBeAPositiveWholeNumber) {
  for (const char* bad : {"repeats: 0\n", "repeats: -2\n", "repeats: two\n"}) {
    absl::StatusOr<SweepConfig> config =
        ParseSweepConfig(std::string(kAidan) + bad, (dir_.path() / "sweep.yaml").string());
    EXPECT_FALSE(config.ok()) << bad;
    if (!config.ok()) {
      EXPECT_NE(config.status().message().find("repeats"), std::string::npos) << config.status();
    }
  }
}

}  // namespace
}  // namespace noveltygrid
