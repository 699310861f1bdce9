// `noveltygrid export` on what the real pipeline writes, exported to the reference layouts and imported
// again by the binary: a small sweep of both benchmarks with two repeats (each repeat must give the
// figures the sweep's summary.json records for it) and the quickstart (every cell and mode).
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

// The cluster tests' fixture gives the temporary folder and the binary.
class ExportTest : public ClusterTest {
 protected:
  Json Summary(const std::string& dir) { return Json::parse(std::ifstream(dir + "/summary.json")); }
};

TEST_F(ExportTest, EachRepeatOfARunRoundTripsThroughTheReferenceLayouts) {
  const std::string config = WriteSweepYaml(Path("sweep.yaml"), "export", 7, {"sim:explorer", "sim:collapse"}, {"0.7"},
                                            NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl",
                                            "  max_iterations: 6\n"
                                            "repeats: 2\n"
                                            "noveltybench:\n"
                                            "  prompts: " NOVELTYGRID_SOURCE_DIR
                                            "/datasets/noveltybench/prompts-own-20.jsonl\n"
                                            "  modes: [standard, in-context]\n"
                                            "  k: 4\n"
                                            "  temperatures: [1.0]\n");
  const std::string sweep = Path("sweep");
  std::string output;
  ASSERT_EQ(Run({"run", config, "--out", sweep, "--quiet"}, &output), 0) << output;
  const Json run = Summary(sweep);

  for (int repeat : {0, 1}) {
    SCOPED_TRACE(absl::StrCat("repeat ", repeat));
    const std::string r = std::to_string(repeat);

    // AidanBench: one file; imported, each cell's figures are the run's for this repeat.
    const std::string aidan = Path("aidan" + r + ".json");
    ASSERT_EQ(Run({"export", sweep, "--format", "aidanbench", "--out", aidan, "--repeat", r}, &output), 0) << output;
    EXPECT_THAT(output, HasSubstr(absl::StrCat("wrote repeat ", repeat, " and left out")));
    ASSERT_EQ(Run({"import", "aidanbench", aidan, "--out", Path("ia" + r)}, &output), 0) << output;
    const Json imported = Summary(Path("ia" + r))["aidanbench"];
    for (const std::string model : {"sim:explorer", "sim:collapse"}) {
      const Json& cell = run["aidanbench"][model]["0.7"];
      EXPECT_EQ(imported[model]["0.7"]["valid_answers"], cell["repeats"]["valid_answers"]["values"][repeat]) << model;
      EXPECT_NEAR(imported[model]["0.7"]["novelty_sum"].get<double>(),
                  cell["repeats"]["novelty_sum"]["values"][repeat].get<double>(), 1e-9)
          << model;
      EXPECT_EQ(imported[model]["0.7"]["questions"], 65) << model;
    }

    // NoveltyBench: a folder per mode and model; the standard mode's (the headline) per repeat.
    const std::string novelty = Path("nb" + r);
    ASSERT_EQ(Run({"export", sweep, "--format", "noveltybench", "--out", novelty, "--repeat", r}, &output), 0)
        << output;
    for (const std::string model : {"sim:explorer", "sim:collapse"}) {
      const std::string imported_dir = Path("in" + r + model);
      ASSERT_EQ(Run({"import", "noveltybench", novelty + "/standard/" + model + "/scores.jsonl", "--out", imported_dir},
                    &output),
                0)
          << output;
      const Json& cell = run["noveltybench"][model]["1.0"];
      const Json got = Summary(imported_dir)["noveltybench"][model]["1.0"];
      EXPECT_NEAR(got["mean_utility"].get<double>(), cell["repeats"]["mean_utility"]["values"][repeat].get<double>(),
                  1e-12)
          << model;
      EXPECT_NEAR(got["mean_distinct"].get<double>(), cell["repeats"]["mean_distinct"]["values"][repeat].get<double>(),
                  1e-12)
          << model;
      EXPECT_TRUE(std::filesystem::exists(novelty + "/in-context/" + model + "/summary.json"));
    }
  }
}

// The quickstart (4 models x 3 temperatures x 65 questions; NoveltyBench in two modes), exported and
// imported again: every AidanBench cell and every NoveltyBench mode's figures come back.
TEST_F(ExportTest, TheQuickstartRoundTrips) {
  const std::string sweep = Path("quickstart");
  std::string output;
  ASSERT_EQ(Run({"run", NOVELTYGRID_SOURCE_DIR "/examples/quickstart.yaml", "--out", sweep, "--quiet"}, &output), 0)
      << output;
  const Json run = Summary(sweep);

  const std::string aidan = Path("quickstart-aidan.json");
  ASSERT_EQ(Run({"export", sweep, "--format", "aidanbench", "--out", aidan}, &output), 0) << output;
  ASSERT_EQ(Run({"import", "aidanbench", aidan, "--out", Path("quickstart-ia")}, &output), 0) << output;
  const Json imported = Summary(Path("quickstart-ia"))["aidanbench"];
  int cells = 0;
  for (const auto& [model, temperatures] : run["aidanbench"].items()) {
    for (const auto& [t, cell] : temperatures.items()) {
      SCOPED_TRACE(model + " T=" + t);
      ++cells;
      const Json& back = imported[model][t];
      EXPECT_EQ(back["valid_answers"], cell["valid_answers"]);
      EXPECT_EQ(back["questions"], cell["questions"]);
      for (const char* sum : {"novelty_sum", "coherence_sum", "mmr_sum"}) {
        EXPECT_NEAR(back[sum].get<double>(), cell[sum].get<double>(), 1e-9) << sum;
      }
    }
  }
  EXPECT_EQ(cells, 12);

  const std::string novelty = Path("quickstart-nb");
  ASSERT_EQ(Run({"export", sweep, "--format", "noveltybench", "--out", novelty}, &output), 0) << output;
  int folders = 0;
  for (const auto& [model, temperatures] : run["noveltybench"].items()) {
    for (const auto& [mode, figures] : temperatures["1.0"]["by_mode"].items()) {
      SCOPED_TRACE(model + " " + mode);
      ++folders;
      const std::string dir = Path("quickstart-in" + std::to_string(folders));
      ASSERT_EQ(
          Run({"import", "noveltybench", novelty + "/" + mode + "/" + model + "/scores.jsonl", "--out", dir}, &output),
          0)
          << output;
      const Json got = Summary(dir)["noveltybench"][model]["1.0"];
      EXPECT_NEAR(got["mean_utility"].get<double>(), figures["mean_utility"].get<double>(), 1e-12);
      EXPECT_NEAR(got["mean_distinct"].get<double>(), figures["mean_distinct"].get<double>(), 1e-12);
    }
  }
  EXPECT_EQ(folders, 8);
}

}  // namespace
}  // namespace noveltygrid::testing
