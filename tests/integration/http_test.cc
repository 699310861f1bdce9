// Sweeps through the HTTP provider against a real `noveltygrid serve-sim` process: identical results to
// the in-process simulated models (plain, with injected faults, and on a cluster whose workers learn the
// endpoint from their leases), and a wrong API key that fails once per request in flight, clearly and
// without leaking the key.
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/storage/redis_server.h"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/http_provider_fixture.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

TEST_F(HttpProviderTest, SweepThroughServeSimMatchesInProcessModels) {
  StartServer();
  const std::string plain = WriteHttpConfig("plain", "");
  const std::string http = WriteHttpConfig("http", SimProvider());
  RunReference(plain, Path("reference"));
  std::string output;
  ASSERT_EQ(RunSweep(http, Path("http"), {}, &output), 0) << output;
  ExpectSameResults(Path("reference"), Path("http"));

  // The answers really came over HTTP, and embeddings of concurrent loops were coalesced.
  const Json stats = Stats();
  const Json summary = Json::parse(ReadText(Path("http/summary.json")));
  const int64_t embed_calls = summary["calls"]["embed:lexical"]["requests"].get<int64_t>();
  const int64_t generate_calls = summary["calls"]["generate:sim:explorer"]["requests"].get<int64_t>() +
                                 summary["calls"]["generate:sim:steady"]["requests"].get<int64_t>();
  const int64_t judge_calls = summary["calls"]["judge:sim:judge"]["requests"].get<int64_t>();
  EXPECT_EQ(stats["chat"].get<int64_t>(), generate_calls + judge_calls) << stats.dump();
  // NoveltyBench's simulated pair classifier and reward model were reached over HTTP too.
  EXPECT_EQ(stats["classify"].get<int64_t>(), summary["calls"]["classify:sim:classifier"]["requests"].get<int64_t>())
      << stats.dump();
  EXPECT_GT(stats["classify"].get<int64_t>(), 0);
  EXPECT_EQ(stats["reward"].get<int64_t>(), summary["calls"]["reward:sim:reward"]["requests"].get<int64_t>())
      << stats.dump();
  EXPECT_GT(stats["reward"].get<int64_t>(), 0);
  EXPECT_GT(stats["embeddings"].get<int64_t>(), 0);
  EXPECT_LT(stats["embeddings"].get<int64_t>(), embed_calls) << "no embedding request was coalesced";
  EXPECT_GT(summary["calls"]["generate:sim:explorer"]["prompt_tokens"].get<int64_t>(), 0);
  EXPECT_GT(summary["calls"]["embed:lexical"]["prompt_tokens"].get<int64_t>(), 0);
}

TEST_F(HttpProviderTest, TwentyPercentInjectedFaultsLeaveResultsUnchanged) {
  // Every kind of fault: 429 (with Retry-After), 500, a held request that times out, malformed and
  // truncated 200 bodies. The client's timeout is short so the held requests cost little time.
  StartServer({"--fault-rate", "0.2", "--seed", "11", "--timeout-hold-ms", "5000", "--threads", "128"});
  const std::string plain = WriteHttpConfig("plain", "");
  const std::string http = WriteHttpConfig(
      "faults",
      SimProvider("    timeout_s: 0.5\n    initial_backoff_ms: 5\n    max_backoff_s: 1\n    max_retries: 30\n"), 32);
  RunReference(plain, Path("reference"));
  std::string output;
  ASSERT_EQ(RunSweep(http, Path("http"), {}, &output), 0) << output;
  ExpectSameResults(Path("reference"), Path("http"));

  const Json stats = Stats();
  EXPECT_GT(stats["faults_injected"].get<int64_t>(), 100) << stats.dump();
  const Json calls = Json::parse(ReadText(Path("http/summary.json")))["calls"];
  int64_t retries = 0;
  for (const auto& [key, counters] : calls.items()) retries += counters["retries"].get<int64_t>();
  EXPECT_GT(retries, 100) << calls.dump();
}

TEST_F(HttpProviderTest, WrongApiKeyFailsOnceWithoutARetryStormAndNeverLeaks) {
  StartServer({}, {{"NOVELTYGRID_SIM_API_KEY", kServerKey}});
  constexpr int kConcurrency = 8;
  const std::string http = WriteHttpConfig("key", SimProvider("    api_key_env: SIM_TEST_KEY\n"), kConcurrency);
  std::string output;
  const int64_t code = RunSweep(http, Path("http"), {{"SIM_TEST_KEY", kWrongKey}}, &output);
  EXPECT_EQ(code, 1) << output;
  EXPECT_TRUE(absl::StrContains(output, "HTTP 401: Incorrect API key provided (the key from $SIM_TEST_KEY)")) << output;
  // The key is the worker's problem, not the units': they are handed back, not failed.
  EXPECT_TRUE(absl::StrContains(output, "this worker stops and hands its units back")) << output;
  EXPECT_TRUE(absl::StrContains(output, "re-run the same command to resume")) << output;

  // One refused request per loop in flight at most: the first 401 stops every later request.
  const Json stats = Stats();
  EXPECT_GE(stats["unauthorized"].get<int64_t>(), 1) << stats.dump();
  EXPECT_LE(stats["unauthorized"].get<int64_t>(), kConcurrency) << stats.dump();
  EXPECT_EQ(stats["chat"].get<int64_t>(), 0) << stats.dump();

  // The key is nowhere: not in the output, the results, the journal or the server's log.
  EXPECT_FALSE(absl::StrContains(output, kWrongKey));
  for (const char* file : {"answers.jsonl", "summary.json", "leaderboard.txt", ".noveltygrid/journal.bin"}) {
    EXPECT_FALSE(absl::StrContains(ReadText(Path(absl::StrCat("http/", file))), kWrongKey)) << file;
  }
  server_->Signal(SIGTERM);
  server_->Wait();
  EXPECT_FALSE(absl::StrContains(server_->Output(), kWrongKey));
  EXPECT_FALSE(absl::StrContains(server_->Output(), kServerKey));

  // A missing key variable is refused before any work, naming the variable.
  std::string missing;
  EXPECT_EQ(RunSweep(http, Path("missing"), {}, &missing), 2) << missing;
  EXPECT_TRUE(absl::StrContains(missing, "SIM_TEST_KEY")) << missing;
}

TEST_F(HttpProviderTest, ClusterWorkersReachTheProviderNamedInTheirLeases) {
  // The endpoint (URL, key variable) travels in the lease; each worker reads the key from its own
  // environment. The coordinator's config is the only place the URL is written.
  std::string address;
  std::unique_ptr<Process> coordinator = StartKeyedCluster(&address);
  ASSERT_NE(coordinator, nullptr);
  std::vector<std::unique_ptr<Process>> workers;
  for (const char* id : {"w1", "w2"}) {
    workers.push_back(StartKeyedWorker(address, id, kServerKey));
    ASSERT_NE(workers.back(), nullptr);
  }
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  for (auto& w : workers) EXPECT_EQ(w->Wait(), 0) << w->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  EXPECT_GT(Stats()["chat"].get<int64_t>(), 0);
  EXPECT_EQ(Stats()["unauthorized"].get<int64_t>(), 0);
}

TEST_F(HttpProviderTest, AWorkerWhoseKeyIsRefusedHandsItsUnitsBackForAnotherWorker) {
  // One pod with a stale secret must not fail the sweep's units one after another: it stops, handing
  // its units back, and a worker with the right key does them all.
  std::string address;
  std::unique_ptr<Process> coordinator = StartKeyedCluster(&address);
  ASSERT_NE(coordinator, nullptr);
  std::unique_ptr<Process> stale = StartKeyedWorker(address, "stale", kWrongKey);
  ASSERT_NE(stale, nullptr);
  EXPECT_EQ(stale->Wait(), 1) << stale->Output();
  EXPECT_TRUE(absl::StrContains(stale->Output(), "HTTP 401")) << stale->Output();
  EXPECT_TRUE(absl::StrContains(stale->Output(), "this worker stops and hands its units back")) << stale->Output();
  EXPECT_FALSE(absl::StrContains(stale->Output(), kWrongKey));
  const int64_t refused = Stats()["unauthorized"].get<int64_t>();
  EXPECT_GE(refused, 1);
  EXPECT_LE(refused, 8) << "more refused requests than the stale worker's loops: it kept going";

  std::unique_ptr<Process> good = StartKeyedWorker(address, "good", kServerKey);
  ASSERT_NE(good, nullptr);
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  EXPECT_EQ(good->Wait(), 0) << good->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));  // no unit failed
  EXPECT_EQ(Stats()["unauthorized"].get<int64_t>(), refused);
}

TEST_F(HttpProviderTest, AnUnverifiableTlsCertificateStopsTheRunAtOnceWithoutRetries) {
  // A TLS server with a self-signed certificate: this machine cannot verify it, and retrying cannot
  // change that, so the first handshake stops the run -- no backoff, no unit failed.
  std::optional<std::string> openssl = FindOnPath("openssl");
  if (!openssl.has_value()) GTEST_SKIP() << "the openssl command is not installed (apt-get install openssl)";
  ProcessOptions make;
  make.args = {*openssl,   "req",           "-x509",   "-newkey",
               "rsa:2048", "-nodes",        "-keyout", Path("tls.key"),
               "-out",     Path("tls.pem"), "-days",   "2",
               "-subj",    "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"};
  absl::StatusOr<std::unique_ptr<Process>> made = Process::Start(make);
  ASSERT_TRUE(made.ok()) << made.status();
  ASSERT_EQ((*made)->Wait(), 0) << (*made)->Output();
  ProcessOptions serve;
  serve.args = {*openssl,        "s_server", "-accept",       "127.0.0.1:0", "-cert",
                Path("tls.pem"), "-key",     Path("tls.key"), "-www"};
  absl::StatusOr<std::unique_ptr<Process>> server = Process::Start(serve);
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<std::string> accept = (*server)->WaitForStdoutPrefix("ACCEPT ");
  ASSERT_TRUE(accept.ok()) << accept.status() << (*server)->Output();
  const std::string address = accept->substr(std::string("ACCEPT ").size());

  const std::string config = WriteHttpConfig(
      "tls", absl::StrCat("providers:\n  sim:\n    base_url: https://", address, "/v1\n    max_retries: 3\n"));
  std::string output;
  EXPECT_EQ(RunSweep(config, Path("tls-out"), {}, &output), 1) << output;
  EXPECT_TRUE(absl::StrContains(output, "SSL peer certificate or SSH remote key was not OK")) << output;
  EXPECT_TRUE(absl::StrContains(output, "check this machine's TLS setup")) << output;
  EXPECT_TRUE(absl::StrContains(output, "this worker stops and hands its units back")) << output;
  EXPECT_FALSE(absl::StrContains(output, "attempts")) << "retried: " << output;
  (*server)->Signal(SIGTERM);
  (*server)->Wait();
}

TEST_F(HttpProviderTest, ADrainedWorkerDoesNotWaitForItsSlowCalls) {
  // Every reply takes ten minutes and calls may take an hour: once the drain grace is over the
  // worker hands its units back and ends their calls, instead of outliving a Kubernetes grace period.
  StartServer({"--latency-ms", "600000"});
  const std::string config = WriteHttpConfig("slow", SimProvider("    timeout_s: 3600\n"));
  std::string address;
  std::unique_ptr<Process> coordinator = StartCoordinator(config, Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);
  std::unique_ptr<Process> worker = StartWorker(address, "slow", 4, {"--drain-grace-ms", "0"});
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitForCallsInFlight()) << worker->Output();
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  EXPECT_FALSE(worker->timed_out()) << "the worker waited for its calls";
  const std::optional<WorkerTally> tally = ParseWorkerTally(worker->Stderr());
  ASSERT_TRUE(tally.has_value()) << worker->Output();
  EXPECT_EQ(tally->committed, 0);
  EXPECT_EQ(tally->handed_back, 4) << worker->Output();
  CoordinatorClient client(address, kToken);
  absl::StatusOr<v1::StatusResponse> status = client.Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->units_leased(), 0) << "the units are pending again at once: " << status->ShortDebugString();
  EXPECT_EQ(status->workers_size(), 0) << "the worker said goodbye: " << status->ShortDebugString();
  coordinator->Signal(SIGTERM);
  coordinator->Wait();
}

TEST_F(HttpProviderTest, CtrlCStopsARunWithoutWaitingForItsSlowCalls) {
  StartServer({"--latency-ms", "600000"});
  const std::string config = WriteHttpConfig("slow", SimProvider("    timeout_s: 3600\n"));
  std::unique_ptr<Process> run = Spawn({"run", config, "--out", Path("slow-out"), "--quiet"}, kToken);
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCallsInFlight()) << run->Output();
  run->Signal(SIGINT);
  EXPECT_EQ(run->Wait(), 1) << run->Output();
  EXPECT_FALSE(run->timed_out()) << "the run waited for its calls";
  EXPECT_TRUE(absl::StrContains(run->Output(), "re-run to resume")) << run->Output();
}

TEST_F(HttpProviderTest, StatusFindsARunThroughItsFolderAndSaysWhatItsCallsWaitFor) {
  // Every reply takes ten minutes and the provider admits two requests at a time: the run stands still
  // with two calls in flight and the other loops' calls waiting on the limit. No NOVELTYGRID_TOKEN
  // anywhere: status finds the run's own token through its folder.
  StartServer({"--latency-ms", "600000"});
  const std::string config =
      WriteHttpConfig("slow", SimProvider("    timeout_s: 3600\n    max_in_flight: 2\n"), /*concurrency=*/4);
  const std::string out = Path("slow-out");
  std::unique_ptr<Process> run = Spawn({"run", config, "--out", out}, std::nullopt);
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCallsInFlight()) << run->Output();
  auto status = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"status", "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    std::unique_ptr<Process> p = Spawn(std::move(args), std::nullopt);
    EXPECT_NE(p, nullptr);
    return p;
  };
  // The worker reports its calls with its heartbeats (every 2 s): ask until they show.
  Json j;
  for (const absl::Time deadline = absl::Now() + absl::Seconds(30); absl::Now() < deadline;) {
    std::unique_ptr<Process> p = status({"--json"});
    ASSERT_EQ(p->Wait(), 0) << p->Output() << run->Output();
    j = Json::parse(p->Stdout(), nullptr, false);
    if (j.is_object() && j["calls"]["in_flight"] == 2 && j["calls"]["limited"] == 2) break;
    absl::SleepFor(absl::Milliseconds(100));  // between polls of the condition
  }
  ASSERT_TRUE(j.is_object()) << run->Output();
  EXPECT_EQ(j["sweep"], "http") << j.dump(2);
  EXPECT_EQ(j["units_done"], 0) << j.dump(2);
  EXPECT_EQ(j["calls"]["in_flight"], 2) << j.dump(2);
  EXPECT_EQ(j["calls"]["limited"], 2) << j.dump(2);
  ASSERT_EQ(j["workers"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["workers"][0]["worker_id"], "in-process") << j.dump(2);

  std::unique_ptr<Process> text = status({});
  ASSERT_EQ(text->Wait(), 0) << text->Output();
  const std::string shown = text->Stdout();
  EXPECT_TRUE(absl::StrContains(shown, "sweep http: 0/")) << shown;
  EXPECT_TRUE(absl::StrContains(shown, "calls: 2 at provider limits, 2 in flight (oldest ")) << shown;
  const std::string token = ReadText(out + "/.noveltygrid/run.token");
  ASSERT_GE(token.size(), 16u);
  EXPECT_FALSE(absl::StrContains(shown + run->Output(), token.substr(0, 16))) << "the token leaked";

  // Killed without a chance to clean up: its run.json stays behind, and status says it is stale.
  run->Signal(SIGKILL);
  run->Wait();
  std::unique_ptr<Process> stale = status({});
  EXPECT_EQ(stale->Wait(), 1) << stale->Output();
  EXPECT_TRUE(absl::StrContains(stale->Stderr(), "is stale")) << stale->Output();
  EXPECT_TRUE(absl::StrContains(stale->Stderr(), "no longer running")) << stale->Output();
  // The next run into the folder takes it over (and removes it when it ends).
  std::unique_ptr<Process> again = Spawn({"run", config, "--out", out, "--quiet"}, std::nullopt);
  ASSERT_NE(again, nullptr);
  auto written_by_again = [&] {
    const Json file = Json::parse(ReadText(out + "/.noveltygrid/run.json"), nullptr, false);
    return file.is_object() && file.value("pid", 0LL) == static_cast<long long>(again->pid());
  };
  for (const absl::Time deadline = absl::Now() + absl::Seconds(30); absl::Now() < deadline && !written_by_again();) {
    absl::SleepFor(absl::Milliseconds(20));  // between polls of the condition
  }
  ASSERT_TRUE(written_by_again()) << again->Output();
  again->Signal(SIGINT);
  EXPECT_EQ(again->Wait(), 1) << again->Output();
  EXPECT_FALSE(std::filesystem::exists(out + "/.noveltygrid/run.json")) << again->Output();
  std::unique_ptr<Process> none = status({});
  EXPECT_EQ(none->Wait(), 1) << none->Output();
  EXPECT_TRUE(absl::StrContains(none->Stderr(), "no sweep is running into")) << none->Output();
}

TEST_F(HttpProviderTest, TwoWorkersShareTheProvidersInFlightLimitThroughRedis) {
  // Each worker alone would keep 8 loops' requests in flight; the provider allows 3 across the cluster.
  absl::StatusOr<std::unique_ptr<testing_redis::RedisServer>> redis = testing_redis::RedisServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  StartServer({"--latency-ms", "20"});
  const std::string plain = WriteHttpConfig("plain", "", 16, 5);
  const std::string http = WriteHttpConfig("limited", SimProvider("    max_in_flight: 3\n"), 16, 5);
  RunReference(plain, Path("reference"));
  std::string address;
  std::unique_ptr<Process> coordinator =
      StartCoordinator(http, Path("cluster"), {"--redis", (*redis)->url()}, &address);
  ASSERT_NE(coordinator, nullptr);
  std::vector<std::unique_ptr<Process>> workers;
  for (const char* id : {"w1", "w2"}) {
    workers.push_back(
        Spawn({"worker", "--coordinator", address, "--id", id, "--concurrency", "8", "--redis", (*redis)->url()}));
    ASSERT_NE(workers.back(), nullptr);
  }
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  for (auto& w : workers) EXPECT_EQ(w->Wait(), 0) << w->Output();
  ExpectSameResults(Path("reference"), Path("cluster"));
  const Json stats = Stats();
  EXPECT_GT(stats["chat"].get<int64_t>(), 0);
  EXPECT_GE(stats["in_flight_peak"].get<int64_t>(), 2) << "the limit was never reached: the test shows nothing";
  EXPECT_LE(stats["in_flight_peak"].get<int64_t>(), 3) << stats.dump();
}

// Committed units are stored by id: a sweep that grows from 2 to 4 models pays exactly what a fresh
// run of the 2 new models costs and ends byte-identical to a fresh 4-model run; dropping a
// temperature then costs nothing and leaves that temperature out of the results.
TEST_F(HttpProviderTest, AGrowingSweepPaysOnlyForItsNewUnits) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string all = "[sim:explorer, sim:steady, sim:chaotic, sim:collapse]";
  const std::string two = WriteHttpConfig("two", SimProvider(), 16, 6, "[sim:explorer, sim:steady]");
  const std::string four = WriteHttpConfig("four", SimProvider(), 16, 6, all);
  const std::string new_two = WriteHttpConfig("new-two", SimProvider(), 16, 6, "[sim:chaotic, sim:collapse]");
  const std::string one_temperature = WriteHttpConfig("four-0.7", SimProvider(), 16, 6, all, "[0.7]");
  // Requests served since `before`, per endpoint.
  auto since = [this](const Json& before) {
    const Json now = Stats();
    std::map<std::string, int64_t> delta;
    for (const char* kind : {"chat", "embeddings", "classify", "reward"}) {
      delta[kind] = now[kind].get<int64_t>() - before[kind].get<int64_t>();
    }
    return delta;
  };

  ASSERT_EQ(RunSweep(two, Path("grown")), 0);
  Json before = Stats();
  ASSERT_EQ(RunSweep(four, Path("grown")), 0);
  const std::map<std::string, int64_t> growing = since(before);
  before = Stats();
  ASSERT_EQ(RunSweep(new_two, Path("new-two")), 0);
  const std::map<std::string, int64_t> fresh_new = since(before);
  EXPECT_GT(fresh_new.at("chat"), 0);
  for (const char* kind : {"chat", "classify", "reward"}) {
    EXPECT_EQ(growing.at(kind), fresh_new.at(kind)) << kind << " requests of the grown run";
  }
  ASSERT_EQ(RunSweep(four, Path("fresh-four")), 0);
  ExpectSameResults(Path("fresh-four"), Path("grown"));
  // The grown sweep's call statistics are those of its units (embedding cache hits depend on timing).
  const Json fresh_calls = Json::parse(ReadText(Path("fresh-four/summary.json")))["calls"];
  const Json grown_calls = Json::parse(ReadText(Path("grown/summary.json")))["calls"];
  for (const auto& [key, counters] : fresh_calls.items()) {
    if (!absl::StartsWith(key, "embed:")) {
      EXPECT_EQ(grown_calls[key], counters) << key;
    }
  }

  before = Stats();
  ASSERT_EQ(RunSweep(one_temperature, Path("grown")), 0);
  for (const auto& [kind, requests] : since(before)) EXPECT_EQ(requests, 0) << kind;
  ASSERT_EQ(RunSweep(one_temperature, Path("fresh-0.7")), 0);
  ExpectSameResults(Path("fresh-0.7"), Path("grown"));
}

}  // namespace
}  // namespace noveltygrid::testing
