// Issue 16, item 2: the coordinator and the workers serve Prometheus text on --metrics-listen, and what
// they say about a finished sweep is what its summary.json says. Real processes: serve-sim over HTTP (so
// that provider requests are timed), a coordinator and two workers, scraped over HTTP.
#include <csignal>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"

namespace noveltygrid::testing {
namespace {

using Labels = std::map<std::string, std::string>;

// One scrape: every sample by metric name, with its labels.
struct Scrape {
  struct Sample {
    Labels labels;
    double value = 0;
  };
  std::map<std::string, std::vector<Sample>> samples;

  // The sum over the samples of `name` whose labels include `filter`; -1 (and a test failure) when
  // the metric is missing.
  double Sum(const std::string& name, const Labels& filter = {}) const {
    auto it = samples.find(name);
    if (it == samples.end()) {
      ADD_FAILURE() << "no metric " << name;
      return -1;
    }
    double sum = 0;
    for (const Sample& sample : it->second) {
      bool match = true;
      for (const auto& [key, value] : filter) {
        auto label = sample.labels.find(key);
        if (label == sample.labels.end() || label->second != value) match = false;
      }
      if (match) sum += sample.value;
    }
    return sum;
  }
};

// Parses the text format (label values here hold no commas or quotes).
Scrape ParseScrape(const std::string& text) {
  Scrape scrape;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    const size_t space = line.rfind(' ');
    Scrape::Sample sample;
    if (!absl::SimpleAtod(line.substr(space + 1), &sample.value)) continue;  // NaN of an empty summary
    absl::string_view series = line.substr(0, space);
    const size_t brace = series.find('{');
    const std::string name(series.substr(0, brace));
    if (brace != absl::string_view::npos) {
      absl::string_view inside = absl::StripSuffix(series.substr(brace + 1), "}");
      for (absl::string_view pair : absl::StrSplit(inside, ',', absl::SkipEmpty())) {
        std::pair<std::string, std::string> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
        sample.labels[kv.first] = std::string(absl::StripSuffix(absl::StripPrefix(kv.second, "\""), "\""));
      }
    }
    scrape.samples[name].push_back(std::move(sample));
  }
  return scrape;
}

Scrape ScrapeMetrics(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  httplib::Result reply = client.Get("/metrics");
  if (!reply || reply->status != 200) {
    ADD_FAILURE() << "GET /metrics on port " << port << " failed";
    return {};
  }
  EXPECT_TRUE(absl::StartsWith(reply->get_header_value("Content-Type"), "text/plain")) << "not the text format";
  return ParseScrape(reply->body);
}

// The port of a "... metrics on port N (/metrics)" line of `process`.
int MetricsPort(Process& process, Process::Stream stream) {
  absl::StatusOr<std::string> line =
      process.WaitForLine(stream, [](const std::string& l) { return absl::StrContains(l, "metrics on port "); });
  if (!line.ok()) {
    ADD_FAILURE() << line.status() << "\n" << process.Output();
    return 0;
  }
  const size_t at = line->find("metrics on port ") + std::string("metrics on port ").size();
  int port = 0;
  EXPECT_TRUE(absl::SimpleAtoi(line->substr(at, line->find(' ', at) - at), &port)) << *line;
  return port;
}

class MetricsTest : public ClusterTest {};

TEST_F(MetricsTest, CoordinatorAndWorkersAgreeWithTheSummary) {
  std::string url;
  std::unique_ptr<Process> server = StartServeSim({}, {}, &url);
  ASSERT_NE(server, nullptr);
  const std::string config = WriteSweepYaml(
      Path("sweep.yaml"), "metered", 7, {"sim:explorer", "sim:collapse"}, {"0.7"},
      NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl",
      absl::StrCat(
          "providers:\n  sim:\n    base_url: ", url, "/v1\n",
          "prices:\n  sim:explorer: {prompt: 2.5, completion: 10}\n  sim:judge: {prompt: 0.15, completion: 0.6}\n",
          "noveltybench:\n  prompts: ", testing_files::SharedData("noveltybench/curated.jsonl"),
          "\n  limit: 4\n  k: 5\n  modes: [standard]\n  temperatures: [1.0]\n"));
  const int64_t units = 2 * kPaperQuestions + 2 * 4;

  std::string address;
  std::unique_ptr<Process> coordinator = StartCoordinator(
      config, Path("cluster"), {"--metrics-listen", "127.0.0.1:0", "--metrics-linger-ms", "600000"}, &address);
  ASSERT_NE(coordinator, nullptr);
  const int coordinator_port = MetricsPort(*coordinator, Process::Stream::kStdout);
  ASSERT_NE(coordinator_port, 0);

  // Before any worker: every unit pending, per model and benchmark.
  const Scrape before = ScrapeMetrics(coordinator_port);
  EXPECT_EQ(before.Sum("noveltygrid_units_pending"), units);
  EXPECT_EQ(before.Sum("noveltygrid_units_pending", {{"model", "sim:collapse"}, {"benchmark", "aidanbench"}}),
            kPaperQuestions);
  EXPECT_EQ(before.Sum("noveltygrid_units_pending", {{"model", "sim:explorer"}, {"benchmark", "noveltybench"}}), 4);
  EXPECT_EQ(before.Sum("noveltygrid_units_committed"), 0);
  EXPECT_EQ(before.Sum("noveltygrid_sweep_info", {{"sweep", "metered"}}), 1);

  std::vector<std::unique_ptr<Process>> workers;
  std::vector<int> worker_ports;
  for (const char* id : {"w1", "w2"}) {
    workers.push_back(StartWorker(address, id, 4, {"--metrics-listen", "127.0.0.1:0", "--keep-running"}));
    ASSERT_NE(workers.back(), nullptr);
    worker_ports.push_back(MetricsPort(*workers.back(), Process::Stream::kStderr));
    ASSERT_NE(worker_ports.back(), 0);
  }
  ASSERT_TRUE(coordinator->WaitForStdoutPrefix("noveltygrid coordinator: results written", absl::Seconds(120)).ok())
      << coordinator->Output();

  std::ifstream in(Path("cluster/summary.json"));
  const nlohmann::json summary = nlohmann::json::parse(in);
  const nlohmann::json& calls = summary.at("calls");
  ASSERT_GE(calls.size(), 6u) << calls.dump();

  const Scrape after = ScrapeMetrics(coordinator_port);
  EXPECT_EQ(after.Sum("noveltygrid_units_committed"), summary.at("run").at("units").get<double>());
  EXPECT_EQ(after.Sum("noveltygrid_units_committed"), units);
  EXPECT_EQ(after.Sum("noveltygrid_units_pending") + after.Sum("noveltygrid_units_leased"), 0);
  EXPECT_EQ(after.Sum("noveltygrid_units_failed"), 0);
  EXPECT_EQ(after.Sum("noveltygrid_commits_accepted_total"), units);
  EXPECT_EQ(after.Sum("noveltygrid_commits_refused_total"), 0);
  EXPECT_EQ(after.Sum("noveltygrid_leases_expired_total"), 0);
  EXPECT_EQ(after.Sum("noveltygrid_workers"), 2);
  // The coordinator timed the calls it answered (RpcTiming): none before the workers came, then their
  // leases, steps and commits.
  EXPECT_EQ(before.Sum("noveltygrid_rpc_duration_seconds_count"), 0);
  EXPECT_GT(after.Sum("noveltygrid_rpc_duration_seconds_count", {{"method", "Lease"}}), 0);
  EXPECT_GT(after.Sum("noveltygrid_rpc_duration_seconds_count", {{"method", "CompleteMany"}}), 0);
  EXPECT_GT(after.Sum("noveltygrid_rpc_duration_seconds_count", {{"method", "Report"}}), 0);
  // And the committers' groups and their writes of the commit log: none before, some after.
  EXPECT_EQ(before.Sum("noveltygrid_commit_group_seconds_count"), 0);
  EXPECT_EQ(before.Sum("noveltygrid_commit_store_seconds_count"), 0);
  EXPECT_GT(after.Sum("noveltygrid_commit_group_seconds_count"), 0);
  EXPECT_GT(after.Sum("noveltygrid_commit_store_seconds_count"), 0);

  std::vector<Scrape> scrapes;
  for (int port : worker_ports) scrapes.push_back(ScrapeMetrics(port));
  auto workers_sum = [&scrapes](const std::string& name, const Labels& filter) {
    double sum = 0;
    for (const Scrape& s : scrapes) sum += s.Sum(name, filter);
    return sum;
  };
  double priced_cost = 0;
  for (const auto& [key, counters] : calls.items()) {
    SCOPED_TRACE(key);
    const size_t colon = key.find(':');
    const Labels labels{{"role", key.substr(0, colon)}, {"model", key.substr(colon + 1)}};
    for (const char* field : {"requests", "cache_hits", "retries", "errors"}) {
      const double expected = counters.at(field).get<double>();
      EXPECT_EQ(after.Sum(absl::StrCat("noveltygrid_committed_", field, "_total"), labels), expected) << field;
      EXPECT_EQ(workers_sum(absl::StrCat("noveltygrid_model_", field, "_total"), labels), expected) << field;
    }
    for (const char* kind : {"prompt", "completion"}) {
      Labels with_kind = labels;
      with_kind["kind"] = kind;
      const double expected = counters.at(absl::StrCat(kind, "_tokens")).get<double>();
      EXPECT_EQ(after.Sum("noveltygrid_committed_tokens_total", with_kind), expected) << kind;
      EXPECT_EQ(workers_sum("noveltygrid_model_tokens_total", with_kind), expected) << kind;
    }
    if (counters.contains("cost_usd")) {
      EXPECT_NEAR(after.Sum("noveltygrid_committed_cost_usd_total", labels), counters.at("cost_usd").get<double>(),
                  1e-9);
      priced_cost += counters.at("cost_usd").get<double>();
    }
  }
  EXPECT_GT(priced_cost, 0) << "no priced calls in summary.json";
  EXPECT_NEAR(after.Sum("noveltygrid_committed_cost_usd_total"), priced_cost, 1e-9);

  // Every model was reached over HTTP through provider "sim" (the config's providers: routes the
  // simulated family and lexical there).
  double total_requests = 0;
  for (const auto& [key, counters] : calls.items()) total_requests += counters.at("requests").get<double>();
  EXPECT_EQ(after.Sum("noveltygrid_committed_requests_total", {{"provider", "sim"}}), total_requests);
  EXPECT_EQ(workers_sum("noveltygrid_model_requests_total", {{"provider", "sim"}}), total_requests);
  // Each HTTP request was timed once (no faults: no retries). Chat calls are one request each; the
  // embedder puts the texts of concurrent calls into one request, so embeddings took between one
  // request and one per call.
  const double embeds = calls.at("embed:lexical").at("requests").get<double>();
  const double timed =
      workers_sum("noveltygrid_request_duration_seconds_count", {{"provider", "sim"}, {"outcome", "ok"}});
  EXPECT_GT(timed, total_requests - embeds);
  EXPECT_LE(timed, total_requests);
  EXPECT_EQ(workers_sum("noveltygrid_request_duration_seconds_count", {{"outcome", "failed"}}), 0);

  for (const Scrape& s : scrapes) {
    EXPECT_EQ(s.Sum("noveltygrid_loops_in_flight"), 0);
    EXPECT_EQ(s.Sum("noveltygrid_loops_capacity"), 4);
    EXPECT_EQ(s.Sum("noveltygrid_calls_waiting"), 0);
    EXPECT_EQ(s.Sum("noveltygrid_redis_errors_total"), 0);
  }
  // A worker counts a commit once the coordinator's answer is back, which may come after the coordinator
  // finished: scrape again until both say so (or give up after a minute).
  double committed_by_workers = 0;
  for (const absl::Time deadline = absl::Now() + absl::Minutes(1); absl::Now() < deadline;) {
    committed_by_workers = 0;
    for (int port : worker_ports)
      committed_by_workers += ScrapeMetrics(port).Sum("noveltygrid_worker_units_committed_total");
    if (committed_by_workers == units) break;
  }
  EXPECT_EQ(committed_by_workers, units);

  // SIGTERM ends the coordinator's linger; it exits 0 and the workers, told the sweep is over, drain.
  coordinator->Signal(SIGTERM);
  EXPECT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  for (auto& worker : workers) {
    worker->Signal(SIGTERM);
    EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  }
}

TEST_F(MetricsTest, ABadOrBusyMetricsAddressFailsAtStart) {
  const std::string config = WriteConfig("sweep");
  std::unique_ptr<Process> bad = Spawn(
      {"coordinator", "--config", config, "--listen", "127.0.0.1:0", "--out", Path("out"), "--metrics-listen", "9464"});
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->Wait(), 2);
  EXPECT_TRUE(absl::StrContains(bad->Stderr(), "--metrics-listen expects HOST:PORT")) << bad->Output();

  std::unique_ptr<Process> linger = Spawn({"coordinator", "--config", config, "--listen", "127.0.0.1:0", "--out",
                                           Path("out"), "--metrics-linger-ms", "1000"});
  ASSERT_NE(linger, nullptr);
  EXPECT_EQ(linger->Wait(), 2);
  EXPECT_TRUE(absl::StrContains(linger->Stderr(), "--metrics-linger-ms needs --metrics-listen")) << linger->Output();

  // A port already taken (the first coordinator's metrics port) is refused with the address named.
  std::string address;
  std::unique_ptr<Process> first =
      StartCoordinator(config, Path("first"), {"--metrics-listen", "127.0.0.1:0"}, &address);
  ASSERT_NE(first, nullptr);
  const int port = MetricsPort(*first, Process::Stream::kStdout);
  ASSERT_NE(port, 0);
  const std::string taken = absl::StrCat("127.0.0.1:", port);
  std::unique_ptr<Process> worker = StartWorker(address, "w", 1, {"--metrics-listen", taken});
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->Wait(), 1);
  EXPECT_TRUE(absl::StrContains(worker->Stderr(), "cannot serve metrics on " + taken)) << worker->Output();
  first->Signal(SIGTERM);
  first->Wait();
}

}  // namespace
}  // namespace noveltygrid::testing
