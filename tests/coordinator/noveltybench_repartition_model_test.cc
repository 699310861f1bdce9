// `repartition` with the model-backed partitioners: the partitions precomputed elsewhere scored like
// the in-process ones, `--config` choosing the partitioner and its model, the simulated pair
// classifier deciding exactly as its rule says (in process and through serve-sim over HTTP, byte for
// byte), a failing model naming the row, and the usage errors around --config.
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "common/json_util.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/rows.h"
#include "common/noveltybench/unigram.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "coordinator/report/results_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/noveltybench_test_runs.h"
#include "tests/coordinator/repartition_configs.h"
#include "tests/worker/partition/sim_classifier_equivalence.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid::cli::testing_runs {
namespace {

using nbtest::SimClassifierEquivalence;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kClassifierThreshold = 0.102;

TEST(RepartitionRowsTest, PrecomputedPartitionsScoreLikeTheEquivalence) {
  const auto& run = kReferenceRuns[3];  // gemma: many classes and imputed qualities
  absl::StatusOr<std::vector<noveltybench::NoveltyRow>> rows = noveltybench::ReadNoveltyRows(run.ScoresPath());
  ASSERT_TRUE(rows.ok()) << rows.status();
  const noveltybench::UnigramEquivalence unigram(0.458);
  std::vector<std::vector<int>> partitions;
  for (const noveltybench::NoveltyRow& row : *rows) {
    partitions.push_back(noveltybench::GreedyPartition(row.prompt, row.generations, unigram));
  }
  NoveltyScoring scoring;
  scoring.partitioner = "unigram";
  scoring.threshold = 0.458;
  const NoveltySourceOptions options;
  absl::StatusOr<Repartitioned> by_rule = RepartitionRows(*rows, unigram, scoring, options);
  absl::StatusOr<Repartitioned> given = RepartitionRows(*rows, partitions, scoring, options);
  ASSERT_TRUE(by_rule.ok()) << by_rule.status();
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(NoveltySamplesJsonl(given->results), NoveltySamplesJsonl(by_rule->results));
  EXPECT_EQ(DumpJsonPretty(NoveltySummaryJson(given->results)), DumpJsonPretty(NoveltySummaryJson(by_rule->results)));
  EXPECT_EQ(FormatNoveltyLeaderboard(given->results), FormatNoveltyLeaderboard(by_rule->results));
  EXPECT_EQ(DumpJsonPretty(given->agreement), DumpJsonPretty(by_rule->agreement));
  EXPECT_FALSE(given->agreement.contains("partition_model"));
  EXPECT_NE(given->agreement["pair_f1"], 1.0);  // the partitions really are new

  // One partition per row, each fitting its row.
  std::vector<std::vector<int>> short_list(partitions.begin(), partitions.end() - 1);
  absl::StatusOr<Repartitioned> missing = RepartitionRows(*rows, short_list, scoring, options);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("99 new partitions for 100 rows"));
  std::vector<std::vector<int>> bad = partitions;
  bad[4] = {0, 2};
  absl::StatusOr<Repartitioned> invalid = RepartitionRows(*rows, bad, scoring, options);
  EXPECT_THAT(invalid.status().message(), HasSubstr((*rows)[4].where + ": "));
  bad[4] = {0, 0, 1};
  invalid = RepartitionRows(*rows, bad, scoring, options);
  EXPECT_THAT(invalid.status().message(), HasSubstr((*rows)[4].where + ": "));
}

TEST(RepartitionTest, ClassifierFromTheConfigDecidesByItsRule) {
  const auto& run = kReferenceRuns[4];
  TempDir dir;
  const std::string config = WriteConfig(dir, "classifier.yaml", "  partitioner: classifier\n");
  const auto out = dir.path() / "out";
  const auto result =
      CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", config, "--out", out.string()});
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("partitioning 100 rows with classifier sim:classifier"));
  EXPECT_THAT(result.err, HasSubstr("10/100 rows partitioned"));
  EXPECT_THAT(result.err, HasSubstr("100/100 rows partitioned"));
  EXPECT_THAT(result.err, HasSubstr("classify:sim:classifier: "));

  const Json agreement = ReadJson(out / kAgreementFileName);
  EXPECT_EQ(agreement["partitioner"], "classifier");
  EXPECT_EQ(agreement["threshold"], kClassifierThreshold);
  EXPECT_EQ(agreement["partition_model"], "sim:classifier");
  EXPECT_EQ(agreement["rows"], 100);
  const double f1 = agreement["pair_f1"].get<double>();
  EXPECT_GE(f1, 0.0);
  EXPECT_LE(f1, 1.0);

  // Every row's partition is GreedyPartition's under P(same) > 0.102 of the simulated classifier.
  const SimClassifierEquivalence rule(kClassifierThreshold);
  const std::vector<Json> source = ReadJsonLines(run.ScoresPath());
  const std::vector<Json> samples = ReadJsonLines((out / kSamplesFileName).string());
  ASSERT_EQ(samples.size(), source.size());
  int differ_from_recorded = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const std::vector<std::string> generations = source[i]["generations"].get<std::vector<std::string>>();
    const std::vector<int> want =
        noveltybench::GreedyPartition(source[i]["prompt"].get<std::string>(), generations, rule);
    EXPECT_EQ(samples[i]["partition"].get<std::vector<int>>(), want) << "row " << i;
    EXPECT_EQ(samples[i]["partition_recorded"], source[i]["partition"]);
    if (samples[i]["partition"] != source[i]["partition"]) ++differ_from_recorded;
  }
  EXPECT_GT(differ_from_recorded, 0);

  // The summary says which model partitioned, and that it is simulated.
  const Json summary = ReadJson(out / kSummaryFileName);
  const Json cell = summary["noveltybench"][run.model]["1.0"];
  EXPECT_EQ(cell["partitioner"], "classifier");
  EXPECT_EQ(cell["partition_model"], "sim:classifier");
  EXPECT_EQ(summary["simulated"], true);
  EXPECT_EQ(summary["run"]["config"], config);
  EXPECT_THAT(Contents(out / kLeaderboardFileName), HasSubstr("partition model: sim:classifier"));

  // --threshold overrides the config's; --partitioner may repeat it; the cache (here in memory) changes
  // nothing.
  const auto strict = dir.path() / "strict";
  ASSERT_EQ(CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", config, "--partitioner", "classifier",
                                                   "--threshold", "0.5", "--redis", "memory", "--out", strict.string()})
                .code,
            0);
  const Json strict_agreement = ReadJson(strict / kAgreementFileName);
  EXPECT_EQ(strict_agreement["threshold"], 0.5);
  EXPECT_GT(strict_agreement["mean_distinct_new"].get<double>(), agreement["mean_distinct_new"].get<double>());
  const std::vector<Json> strict_samples = ReadJsonLines((strict / kSamplesFileName).string());
  const SimClassifierEquivalence strict_rule(0.5);
  for (size_t i = 0; i < strict_samples.size(); ++i) {
    const std::vector<std::string> generations = source[i]["generations"].get<std::vector<std::string>>();
    EXPECT_EQ(strict_samples[i]["partition"].get<std::vector<int>>(),
              noveltybench::GreedyPartition(source[i]["prompt"].get<std::string>(), generations, strict_rule))
        << "row " << i;
  }
}

TEST(RepartitionTest, EmbeddingAndLlmPartitionersAskTheirModels) {
  const auto& run = kReferenceRuns[1];
  TempDir dir;
  // Their default models: the config's embedder and judge.
  for (const auto& [partitioner, model, calls] :
       {std::tuple<std::string, std::string, std::string>{"embedding", "lexical", "embed:lexical: "},
        {"llm", "sim:judge", "judge:sim:judge: "}}) {
    SCOPED_TRACE(partitioner);
    const std::string config = WriteConfig(dir, partitioner + ".yaml", "  partitioner: " + partitioner + "\n");
    const auto out = dir.path() / partitioner;
    const auto result =
        CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", config, "--out", out.string()});
    ASSERT_EQ(result.code, 0) << result.err;
    EXPECT_THAT(result.err, HasSubstr(calls));
    EXPECT_THAT(result.err, Not(HasSubstr(calls + "0 requests")));
    const Json agreement = ReadJson(out / kAgreementFileName);
    EXPECT_EQ(agreement["partitioner"], partitioner);
    EXPECT_EQ(agreement["partition_model"], model);
    EXPECT_GE(agreement["pair_f1"].get<double>(), 0.0);
    EXPECT_LE(agreement["pair_f1"].get<double>(), 1.0);
  }
}

TEST(RepartitionTest, ClassifierOverHttpIsByteIdentical) {
  const auto& run = kReferenceRuns[4];
  TempDir dir;
  const auto local = dir.path() / "local";
  const std::string local_config = WriteConfig(dir, "local.yaml", "  partitioner: classifier\n");
  ASSERT_EQ(
      CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", local_config, "--out", local.string()}).code,
      0);

  SimServer server;
  absl::StatusOr<int> port = server.Start(SimServerOptions{});
  ASSERT_TRUE(port.ok()) << port.status();
  const std::string http_config = WriteConfig(dir, "http.yaml", "  partitioner: classifier\n", SimProvider(*port));
  const auto http = dir.path() / "http";
  const auto result =
      CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", http_config, "--out", http.string()});
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_GT(server.stats().classify, 0);  // the classifier really was asked over HTTP
  EXPECT_EQ(Contents(http / kSamplesFileName), Contents(local / kSamplesFileName));
  EXPECT_EQ(Contents(http / kAgreementFileName), Contents(local / kAgreementFileName));
}

TEST(RepartitionTest, AFailingModelNamesTheRow) {
  const auto& run = kReferenceRuns[4];
  SimServer server;
  SimServerOptions faulty;
  faulty.fault_rate = 1.0;
  faulty.faults = {SimFault::kServerError};
  absl::StatusOr<int> port = server.Start(faulty);
  ASSERT_TRUE(port.ok()) << port.status();
  TempDir dir;
  const std::string config =
      WriteConfig(dir, "faulty.yaml", "  partitioner: classifier\n", SimProvider(*port, "    max_retries: 0\n"));
  const auto out = dir.path() / "out";
  const auto result =
      CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", config, "--out", out.string()});
  EXPECT_EQ(result.code, 1);
  // The first row of the file asks the classifier, so it is the one named.
  EXPECT_THAT(result.err, HasSubstr(run.ScoresPath() + ":1: partitioner classifier (sim:classifier) failed: "));
  EXPECT_THAT(result.err, HasSubstr("500"));
  EXPECT_FALSE(std::filesystem::exists(out / kSamplesFileName));
}

TEST(RepartitionTest, ConfigUsageErrors) {
  TempDir dir;
  const std::string file = kReferenceRuns[0].ScoresPath();
  const std::string out = (dir.path() / "out").string();

  // (A model-backed partitioner without --config: RepartitionTest.ModelBackedPartitionersNeedAConfig.)
  // The config must hold noveltybench:.
  const std::string aidan_only = WriteConfig(dir, "aidan.yaml", "");
  auto result = CaptureCommand(RunRepartitionCommand, {file, "--config", aidan_only, "--out", out});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr(aidan_only + " has no noveltybench: section"));
  // --partitioner must agree with the config.
  const std::string classifier = WriteConfig(dir, "classifier.yaml", "  partitioner: classifier\n");
  result = CaptureCommand(RunRepartitionCommand, {file, "--config", classifier, "--partitioner", "llm", "--out", out});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("--partitioner llm does not match noveltybench.partitioner 'classifier'"));
  // A threshold outside [0, 1], a missing config, a model no provider serves.
  result = CaptureCommand(RunRepartitionCommand, {file, "--config", classifier, "--threshold", "1.5", "--out", out});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("threshold 1.5 for classifier is outside [0, 1]"));
  result = CaptureCommand(RunRepartitionCommand, {file, "--config", (dir.path() / "none.yaml").string(), "--out", out});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("none.yaml"));
  const std::string unknown =
      WriteConfig(dir, "unknown.yaml", "  partitioner: classifier\n  partition_model: nowhere:deberta\n");
  result = CaptureCommand(RunRepartitionCommand, {file, "--config", unknown, "--out", out});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("nowhere"));
  EXPECT_FALSE(std::filesystem::exists(out));

  // A config choosing unigram runs it offline, with the config's threshold.
  const std::string unigram = WriteConfig(dir, "unigram.yaml", "  partitioner: unigram\n  threshold: 0.6\n");
  result = CaptureCommand(RunRepartitionCommand, {file, "--config", unigram, "--out", out});
  ASSERT_EQ(result.code, 0) << result.err;
  const Json agreement = ReadJson(std::filesystem::path(out) / kAgreementFileName);
  EXPECT_EQ(agreement["partitioner"], "unigram");
  EXPECT_EQ(agreement["threshold"], 0.6);
  EXPECT_FALSE(agreement.contains("partition_model"));
  EXPECT_THAT(result.err, Not(HasSubstr("partitioning")));
}

}  // namespace
}  // namespace noveltygrid::cli::testing_runs
