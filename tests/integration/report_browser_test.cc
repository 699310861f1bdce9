// report.html in a real browser (issue 15 item 3). The quickstart sweep (examples/quickstart.yaml) is run,
// and its report is opened in Debian's headless chromium by tests/browser/inspect_report.mjs (node and
// playwright-core over the DevTools protocol), which prints what it saw as JSON; this file judges it: no
// console or page errors and no requests, one series per model in every temperature-ablation chart, and
// picking another question (prompt) redraws the iteration plot (sample view). A second test runs the
// documented screenshot command, scripts/report_screenshot.sh.
//
// The browser is a test-only install (`NOVELTYGRID_SETUP_BROWSER=1 bash scripts/setup.sh`; scripts/test.sh
// does it): without it these tests skip with that command, and fail under CI, where it must be there.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {
namespace {

using testing::FindOnPath;
using ::testing::IsEmpty;
using testing::Process;
using testing::ProcessOptions;
using ::testing::UnorderedElementsAreArray;
using testing_files::UnderCi;

constexpr char kSetupCommand[] = "NOVELTYGRID_SETUP_BROWSER=1 bash scripts/setup.sh";
constexpr char kBrowserDir[] = NOVELTYGRID_SOURCE_DIR "/tests/browser";
constexpr char kQuickstart[] = NOVELTYGRID_SOURCE_DIR "/examples/quickstart.yaml";

std::string Chromium() {
  const char* chromium = std::getenv("NOVELTYGRID_CHROMIUM");  // as inspect_report.mjs reads it
  return chromium != nullptr && *chromium != '\0' ? chromium : "/usr/bin/chromium";
}

// What of the browser setup is missing ("" when nothing is).
std::string MissingBrowserSetup() {
  if (!FindOnPath("node").has_value()) return "node is not on PATH";
  if (::access(Chromium().c_str(), X_OK) != 0) return absl::StrCat(Chromium(), " is not installed");
  if (!std::filesystem::exists(absl::StrCat(kBrowserDir, "/node_modules/playwright-core/package.json"))) {
    return absl::StrCat(kBrowserDir, "/node_modules has no playwright-core");
  }
  return "";
}

// PNG width and height from the IHDR chunk, or {0, 0} when `path` is not a PNG.
std::pair<uint32_t, uint32_t> PngSize(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(24, '\0');
  if (!in.read(head.data(), head.size()) || head.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  auto be32 = [&](int at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(head[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// `object[key]` when it is a string, else "" (missing, null or another type).
std::string Field(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
  return object[key].get<std::string>();
}

// `object[key]` as strings (other elements as their JSON text); empty when it is not an array.
std::vector<std::string> Strings(const nlohmann::json& object, const char* key) {
  std::vector<std::string> strings;
  if (!object.is_object() || !object.contains(key) || !object[key].is_array()) return strings;
  for (const nlohmann::json& element : object[key]) {
    strings.push_back(element.is_string() ? element.get<std::string>() : element.dump());
  }
  return strings;
}

class ReportBrowserTest : public testing::ClusterTest {
 protected:
  void SetUp() override {
    if (const std::string missing = MissingBrowserSetup(); !missing.empty()) {
      const std::string message = absl::StrCat(missing, ": the report's browser test needs Debian's chromium and ",
                                               "tests/browser's packages; run `", kSetupCommand, "` first");
      if (UnderCi()) GTEST_FAIL() << message << " (under CI this test does not skip)";
      GTEST_SKIP() << message;
    }
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    config_ = YAML::LoadFile(kQuickstart);
    for (const YAML::Node& model : config_["models"]) models_.push_back(model.as<std::string>());
    ASSERT_FALSE(models_.empty()) << kQuickstart << " lists no models";

    out_ = Path("out");  // not the sweep's name, which the report's <title> must take from the results
    std::unique_ptr<Process> run = Spawn({"run", kQuickstart, "--out", out_, "--quiet"}, std::nullopt);
    ASSERT_NE(run, nullptr);
    ASSERT_EQ(run->Wait(), 0) << run->Output();
    ASSERT_TRUE(std::filesystem::exists(out_ + "/report.html"))
        << "noveltygrid run wrote no " << out_ << "/report.html";
    // The bound for the quickstart's page (BENCHMARKS.md, "Report", has the figure).
    EXPECT_LT(std::filesystem::file_size(out_ + "/report.html"), 2'000'000u);
  }

  // Runs `args` (args[0] found on PATH) to its end; its exit code, and its output in `out` and `err`.
  int RunTool(std::vector<std::string> args, std::string* out, std::string* err) {
    ProcessOptions options;
    std::optional<std::string> tool = FindOnPath(args[0]);
    if (!tool.has_value()) {
      ADD_FAILURE() << args[0] << " is not on PATH";
      return -1;
    }
    args[0] = *tool;
    options.args = std::move(args);
    options.timeout = absl::Seconds(150);  // inspect_report.mjs gives up after 90 s by itself
    absl::StatusOr<std::unique_ptr<Process>> process = Process::Start(std::move(options));
    if (!process.ok()) {
      ADD_FAILURE() << process.status();
      return -1;
    }
    const int code = (*process)->Wait();
    *out = (*process)->Stdout();
    *err = (*process)->Stderr();
    return code;
  }

  YAML::Node config_;
  std::vector<std::string> models_;  // the config's, in its order
  std::string out_;                  // the quickstart's results folder
};

TEST_F(ReportBrowserTest, RendersWithoutErrorsOrRequestsAndPickersRedraw) {
  std::string out, err;
  ASSERT_EQ(RunTool({"node", absl::StrCat(kBrowserDir, "/inspect_report.mjs"), out_ + "/report.html"}, &out, &err), 0)
      << err;
  const nlohmann::json facts = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(facts.is_object()) << "inspect_report.mjs printed no JSON object:\n" << out << err;
  std::ofstream(out_ + "/browser_facts.json") << out;  // kept with the report when the test fails
  SCOPED_TRACE(absl::StrCat("what the browser saw: ", out_, "/browser_facts.json"));
  for (const char* key : {"console_errors", "page_errors", "requests", "charts", "chart_details", "models"}) {
    ASSERT_TRUE(facts.contains(key)) << "inspect_report.mjs reported no " << key;
  }

  EXPECT_EQ(Field(facts, "marker"), "1") << "<html data-noveltygrid-report=\"1\"> is missing";
  EXPECT_TRUE(absl::StrContains(Field(facts, "title"), config_["name"].as<std::string>()))
      << "the <title> does not name the sweep: " << Field(facts, "title");
  EXPECT_THAT(Strings(facts, "console_errors"), IsEmpty());
  EXPECT_THAT(Strings(facts, "page_errors"), IsEmpty());
  EXPECT_THAT(Strings(facts, "requests"), IsEmpty()) << "report.html must be self-contained: it asked for other URLs";

  // #models lists the config's models; every ablation chart has one series per model, labelled with it.
  const std::vector<std::string> listed = Strings(facts, "models");
  EXPECT_THAT(listed, UnorderedElementsAreArray(models_));
  std::map<std::string, int> ablation_charts;  // per benchmark
  ASSERT_TRUE(facts["charts"].is_object());
  for (const auto& [id, series] : facts["charts"].items()) {
    SCOPED_TRACE(absl::StrCat("chart ", id));
    const nlohmann::json& detail = facts["chart_details"][id];
    EXPECT_EQ(detail.value("svgs", 0), 1);
    EXPECT_GT(detail.value("width", 0), 0);
    EXPECT_GT(detail.value("height", 0), 0);
    EXPECT_THAT(Strings(detail, "empty_series"), IsEmpty()) << "series that draw nothing";
    if (!absl::StartsWith(id, "ablation-")) continue;
    const size_t dash = id.find('-', 9);
    ++ablation_charts[id.substr(9, dash == std::string::npos ? std::string::npos : dash - 9)];
    EXPECT_EQ(series.get<size_t>(), models_.size());
    EXPECT_EQ(series.get<size_t>(), listed.size());
    EXPECT_THAT(Strings(detail, "labels"), UnorderedElementsAreArray(models_));
  }
  EXPECT_THAT(Strings(facts, "duplicate_chart_ids"), IsEmpty());
  // The quickstart's prompts carry categories (issue 17): a grouped bar chart of them, a series per model.
  ASSERT_TRUE(facts["chart_details"].contains("noveltybench-by-category")) << "no noveltybench-by-category chart";
  EXPECT_THAT(Strings(facts["chart_details"]["noveltybench-by-category"], "labels"),
              UnorderedElementsAreArray(models_));
  for (const char* benchmark : {"aidanbench", "noveltybench"}) {  // the quickstart runs both
    EXPECT_GT(ablation_charts[benchmark], 0) << "no ablation-" << benchmark << "-* chart";
  }

  // Picking another question swaps in its plots: the view says so, and the coherence line changed.
  const nlohmann::json& iteration = facts["iteration"];
  ASSERT_TRUE(iteration.is_object()) << "no #question-picker with options";
  const nlohmann::json& before = iteration["before"];
  const nlohmann::json& after = iteration["after"];
  EXPECT_GE(iteration.value("options", 0), 2);
  EXPECT_NE(Field(before, "question"), "") << "#iteration-plot has no data-question";
  EXPECT_NE(Field(before, "points"), "") << "no line in #iteration-plot's iteration-coherence chart";
  EXPECT_GT(before.value("series", 0), 0);
  EXPECT_EQ(Field(after, "question"), Field(iteration, "picked")) << "#iteration-plot's data-question did not follow";
  EXPECT_NE(Field(after, "question"), Field(before, "question"));
  EXPECT_NE(Field(after, "points"), "");
  EXPECT_NE(Field(after, "points"), Field(before, "points")) << "the iteration plot was not redrawn";

  // The same for NoveltyBench's samples.
  const nlohmann::json& samples = facts["samples"];
  ASSERT_TRUE(samples.is_object()) << "no #prompt-picker with options (the quickstart runs NoveltyBench)";
  EXPECT_GE(samples.value("options", 0), 2);
  EXPECT_NE(Field(samples["before"], "prompt"), "") << "#sample-view has no data-prompt";
  EXPECT_EQ(Field(samples["after"], "prompt"), Field(samples, "picked")) << "#sample-view's data-prompt did not follow";
  EXPECT_NE(Field(samples["after"], "prompt"), Field(samples["before"], "prompt"));
  EXPECT_NE(Field(samples["after"], "sha1"), Field(samples["before"], "sha1")) << "the sample view was not redrawn";
}

TEST_F(ReportBrowserTest, ScreenshotCommandWritesAFullPagePng) {
  std::string out, err;
  ASSERT_EQ(RunTool({"bash", NOVELTYGRID_SOURCE_DIR "/scripts/report_screenshot.sh", out_}, &out, &err), 0) << err;
  const auto [width, height] = PngSize(out_ + "/report.png");
  EXPECT_EQ(width, 1280u) << out_ << "/report.png is not a PNG of the 1280 px wide page";
  EXPECT_GT(height, 0u);
  EXPECT_THAT(err, ::testing::HasSubstr("report.png"));
}

}  // namespace
}  // namespace noveltygrid
