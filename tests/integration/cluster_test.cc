// The cluster end to end: a real coordinator process and real worker processes on loopback ports
// chosen at run time, compared with `noveltygrid run`. Workers run few loops at a time so that a sweep
// lasts long enough to act in its middle; "the middle" is a Status poll, never a sleep.
#include <signal.h>

#include <fstream>
#include <regex>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"

namespace noveltygrid::testing {
namespace {

using grpc::health::v1::HealthCheckResponse;
using Stream = Process::Stream;

// Fast recovery from a vanished worker, for the tests that make one vanish.
const std::vector<std::string> kQuickRecovery = {"--lease-ttl-ms", "3000",           "--worker-timeout-ms",
                                                 "2000",           "--heartbeat-ms", "300"};

bool Contains(const std::string& text, const std::string& part) { return absl::StrContains(text, part); }

// The process helper itself: what every test below relies on to never hang and to see output.
TEST(ClusterProcessHelper, CapturesOutputExitCodeAndEnvironment) {
  ProcessOptions options;
  options.args = {"/bin/sh", "-c", "echo \"hello $GREETING\"; echo oops >&2; exit 3"};
  options.env["GREETING"] = "world";
  absl::StatusOr<std::unique_ptr<Process>> p = Process::Start(options);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<std::string> line = (*p)->WaitForStdoutPrefix("hello");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(*line, "hello world");
  EXPECT_TRUE((*p)->WaitForLine(Stream::kStderr, [](const std::string& l) { return l == "oops"; }).ok());
  EXPECT_EQ((*p)->Wait(), 3);
  EXPECT_EQ((*p)->WaitForStdoutPrefix("never").status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE((*p)->timed_out());
}

TEST(ClusterProcessHelper, HardDeadlineKillsAHungChild) {
  ProcessOptions options;
  options.args = {"/bin/sh", "-c", "exec sleep 600"};
  options.timeout = absl::Milliseconds(200);
  absl::StatusOr<std::unique_ptr<Process>> p = Process::Start(options);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Wait(), 128 + SIGKILL);
  EXPECT_TRUE((*p)->timed_out());
  ProcessOptions missing;
  missing.args = {"/nonexistent/noveltygrid"};
  EXPECT_FALSE(Process::Start(missing).ok());
}

TEST_F(ClusterTest, ThreeWorkersMatchSingleProcessRun) {
  const SweepSpec sweep;
  const std::string config = WriteConfig("sweep", sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));

  std::string coordinator_stdout;
  ASSERT_NO_FATAL_FAILURE(RunOnThreeWorkers(config, 2, sweep.units(), &coordinator_stdout));
  EXPECT_TRUE(Contains(coordinator_stdout, "sim:explorer")) << "no leaderboard on stdout\n" << coordinator_stdout;
  ExpectClusterMatchesReference(sweep.units());
}

// Issue 6, item 7: one sweep holding both benchmarks gives byte-identical results in one process and
// on a cluster of three workers.
TEST_F(ClusterTest, BothBenchmarksOnClusterMatchSingleProcessRun) {
  SweepSpec sweep;
  sweep.models = {"sim:explorer", "sim:collapse"};
  sweep.temperatures = {"0.7"};
  sweep.noveltybench_yaml =
      absl::StrCat("noveltybench:\n  prompts: ", testing_files::SharedData("noveltybench/curated.jsonl"),
                   "\n  limit: 6\n  k: 5\n  modes: [standard, in-context]\n"
                   "  temperatures: [1.0]\n");
  sweep.novelty_units = 2 * 1 * 2 * 6;  // models x temperatures x modes x prompts
  const std::string config = WriteConfig("both", sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));

  ASSERT_NO_FATAL_FAILURE(RunOnThreeWorkers(config, 4, sweep.units()));
  ExpectSameResults(Path("reference"), Path("cluster"));

  // Both benchmarks are in the one results folder.
  std::ifstream samples(Path("cluster") + "/samples.jsonl");
  std::string line;
  int64_t lines = 0;
  std::set<std::string> modes;
  while (std::getline(samples, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j.at("benchmark"), "noveltybench");
    EXPECT_EQ(j.at("generations").size(), 5u) << line;
    EXPECT_EQ(j.at("partition").size(), 5u) << line;
    EXPECT_GE(j.at("distinct").get<int>(), 1) << line;
    modes.insert(j.at("mode").get<std::string>());
    ++lines;
  }
  EXPECT_EQ(lines, sweep.novelty_units);
  EXPECT_EQ(modes, (std::set<std::string>{"standard", "in-context"}));
  std::ifstream summary_file(Path("cluster") + "/summary.json");
  const nlohmann::json summary = nlohmann::json::parse(summary_file);
  EXPECT_TRUE(summary.contains("aidanbench"));
  ASSERT_TRUE(summary.contains("noveltybench"));
  EXPECT_EQ(summary["noveltybench"]["sim:explorer"]["1.0"]["prompts"], 6);
}

TEST_F(ClusterTest, KilledWorkersUnitsAreRedoneElsewhere) {
  const SweepSpec sweep;
  std::string config;
  std::string address;
  std::unique_ptr<Process> coordinator;
  ASSERT_NO_FATAL_FAILURE(StartSweepWithReference(sweep, kQuickRecovery, &config, &address, &coordinator));
  auto victim = StartWorker(address, "victim", 2);
  auto a = StartWorker(address, "survivor-a", 2);
  auto b = StartWorker(address, "survivor-b", 2);
  ASSERT_TRUE(victim && a && b);

  // At least 20% done and the victim holding leases: killing it strands units that must be re-leased.
  CoordinatorClient client(address, kToken);
  absl::StatusOr<v1::StatusResponse> status = client.PollUntil([&](const v1::StatusResponse& s) {
    return s.units_done() * 5 >= s.units_total() && WorkerLeases(s, "victim") > 0;
  });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << coordinator->Output();
  ASSERT_FALSE(status->complete());
  victim->Signal(SIGKILL);
  EXPECT_EQ(victim->Wait(), 128 + SIGKILL);

  EXPECT_EQ(a->Wait(), 0) << a->Output();
  EXPECT_EQ(b->Wait(), 0) << b->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectClusterMatchesReference(sweep.units());
}

// The coordinator crashes mid-sweep and comes back on the same address: it resumes from its journal,
// the worker reconnects, and nothing is lost or counted twice.
TEST_F(ClusterTest, RestartedCoordinatorResumesFromJournal) {
  const SweepSpec sweep;
  std::string config;
  std::string address;
  std::unique_ptr<Process> first;
  ASSERT_NO_FATAL_FAILURE(StartSweepWithReference(sweep, {}, &config, &address, &first));
  // One worker: the sweep cannot finish without it reconnecting to the second coordinator.
  auto worker = StartWorker(address, "survivor", 2);
  ASSERT_NE(worker, nullptr);
  absl::StatusOr<v1::StatusResponse> status =
      CoordinatorClient(address, kToken).PollUntil([](const v1::StatusResponse& s) {
        return s.units_done() * 5 >= s.units_total();
      });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << first->Output();
  ASSERT_FALSE(status->complete());
  first->Signal(SIGKILL);
  EXPECT_EQ(first->Wait(), 128 + SIGKILL);

  std::string again;
  auto second = StartCoordinator(config, Path("cluster"), {}, &again, address);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(again, address);
  // Results are journaled before Status counts them: everything seen done is resumed.
  std::smatch resumed;
  absl::StatusOr<std::string> listening = second->WaitForStdoutPrefix("noveltygrid coordinator: listening on ");
  ASSERT_TRUE(listening.ok()) << listening.status();
  const std::string line = *listening;
  ASSERT_TRUE(std::regex_search(line, resumed, std::regex(R"(([0-9]+) already done)"))) << line;
  EXPECT_GE(std::stoll(resumed[1]), status->units_done()) << line;
  EXPECT_LT(std::stoll(resumed[1]), sweep.units()) << line;

  // The worker's only way to finish is through the second coordinator (whether its lease loop ever
  // saw a failed call depends on timing, so that is not asserted).
  EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  ASSERT_EQ(second->Wait(), 0) << second->Output();
  ExpectClusterMatchesReference(sweep.units());
}

TEST_F(ClusterTest, LateWorkerGetsWork) {
  const SweepSpec sweep;
  std::string config;
  std::string address;
  std::unique_ptr<Process> coordinator;
  ASSERT_NO_FATAL_FAILURE(StartSweepWithReference(sweep, {}, &config, &address, &coordinator));
  auto early = StartWorker(address, "early", 1);
  ASSERT_NE(early, nullptr);
  CoordinatorClient client(address, kToken);
  absl::StatusOr<v1::StatusResponse> status =
      client.PollUntil([](const v1::StatusResponse& s) { return s.units_done() >= 5; });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << coordinator->Output();
  ASSERT_FALSE(status->complete());
  auto late = StartWorker(address, "late", 4);
  ASSERT_NE(late, nullptr);

  EXPECT_EQ(early->Wait(), 0) << early->Output();
  EXPECT_EQ(late->Wait(), 0) << late->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  const int64_t early_units = Committed(*early);
  const int64_t late_units = Committed(*late);
  EXPECT_GE(early_units, 5);
  EXPECT_GT(late_units, 0) << late->Output();
  EXPECT_EQ(early_units + late_units, sweep.units());
  ExpectClusterMatchesReference(sweep.units());
}

// SIGTERM on one of two workers once it holds leases and >= 20% is done. With a long grace its running
// units finish and are committed; with no grace they are handed back mid-loop and resumed elsewhere
// from the steps already reported. Either way no unit is lost and the results do not change.
class ClusterDrainTest : public ClusterTest, public ::testing::WithParamInterface<int> {};

TEST_P(ClusterDrainTest, SigtermDrainsWorkerWithoutLosingUnits) {
  const int grace_ms = GetParam();
  const SweepSpec sweep;
  std::string config;
  std::string address;
  std::unique_ptr<Process> coordinator;
  ASSERT_NO_FATAL_FAILURE(StartSweepWithReference(sweep, kQuickRecovery, &config, &address, &coordinator));
  CoordinatorClient client(address, kToken);
  absl::StatusOr<HealthCheckResponse::ServingStatus> health = client.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthCheckResponse::SERVING);

  auto drained = StartWorker(address, "drained", 2, {"--drain-grace-ms", std::to_string(grace_ms)});
  auto stays = StartWorker(address, "stays", 2);
  ASSERT_TRUE(drained && stays);
  absl::StatusOr<v1::StatusResponse> status = client.PollUntil([](const v1::StatusResponse& s) {
    return s.units_done() * 5 >= s.units_total() && WorkerLeases(s, "drained") > 0;
  });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << coordinator->Output();
  ASSERT_FALSE(status->complete());
  health = client.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthCheckResponse::SERVING) << "health during the sweep";

  drained->Signal(SIGTERM);
  // Bounded by the grace plus the worker's delivery time, far below the process deadline.
  ASSERT_EQ(drained->Wait(), 0) << drained->Output();
  EXPECT_FALSE(drained->timed_out());
  EXPECT_TRUE(Contains(drained->Stderr(), "draining")) << drained->Output();
  const std::optional<WorkerTally> tally = ParseWorkerTally(drained->Stderr());
  ASSERT_TRUE(tally.has_value()) << drained->Output();
  // With a grace, the units it held are finished and committed by it.
  if (grace_ms > 0) {
    EXPECT_GT(tally->committed, 0) << drained->Output();
  }

  EXPECT_EQ(stays->Wait(), 0) << stays->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectClusterMatchesReference(sweep.units());
}

INSTANTIATE_TEST_SUITE_P(Grace, ClusterDrainTest, ::testing::Values(30'000, 0),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param > 0 ? std::string("FinishRunningUnits")
                                                 : std::string("HandBackRunningUnits");
                         });

TEST_F(ClusterTest, SigtermStopsCoordinatorAndHealthGoesNotServing) {
  std::string address;
  auto coordinator = StartCoordinator(WriteConfig("sweep"), Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);
  CoordinatorClient client(address, kToken);
  absl::StatusOr<HealthCheckResponse::ServingStatus> health = client.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthCheckResponse::SERVING);

  // Watch streams every change of the serving status: SERVING now, NOT_SERVING once stopping.
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  grpc::health::v1::HealthCheckRequest request;
  auto watch = client.health().Watch(&context, request);
  HealthCheckResponse update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::SERVING);

  coordinator->Signal(SIGTERM);
  ASSERT_TRUE(watch->Read(&update)) << "the health stream ended without reporting NOT_SERVING";
  EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
  const int code = coordinator->Wait();
  EXPECT_FALSE(coordinator->timed_out()) << coordinator->Output();
  EXPECT_NE(code, 0) << "the sweep is incomplete\n" << coordinator->Output();
  EXPECT_LT(code, 128) << "it stops by itself, not by a signal\n" << coordinator->Output();
  EXPECT_TRUE(Contains(coordinator->Stderr(), "stopping")) << coordinator->Output();
  context.TryCancel();
}

TEST_F(ClusterTest, WrongOrMissingTokenIsRefused) {
  std::string address;
  auto coordinator = StartCoordinator(WriteConfig("sweep"), Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);

  auto intruder = StartWorker(address, "intruder", 2, {}, "not-the-token");
  ASSERT_NE(intruder, nullptr);
  EXPECT_EQ(intruder->Wait(), 1) << intruder->Output();
  EXPECT_TRUE(Contains(intruder->Stderr(), "refused")) << intruder->Output();
  EXPECT_TRUE(Contains(intruder->Stderr(), "token")) << intruder->Output();

  auto status = Spawn({"status", "--coordinator", address}, "not-the-token");
  ASSERT_NE(status, nullptr);
  EXPECT_NE(status->Wait(), 0) << status->Output();
  EXPECT_TRUE(Contains(status->Stderr(), "token")) << status->Output();

  auto tokenless = StartWorker(address, "tokenless", 2, {}, std::nullopt);
  ASSERT_NE(tokenless, nullptr);
  EXPECT_EQ(tokenless->Wait(), 2) << tokenless->Output();
  EXPECT_TRUE(Contains(tokenless->Stderr(), "NOVELTYGRID_TOKEN")) << tokenless->Output();

  // The coordinator refuses a wrong token itself, and never saw any of those workers.
  CoordinatorClient wrong(address, "not-the-token");
  absl::StatusOr<v1::StatusResponse> refused = wrong.Status();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated) << refused.status();
  absl::StatusOr<v1::StatusResponse> s = CoordinatorClient(address, kToken).Status();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->units_done(), 0);
  EXPECT_EQ(s->units_leased(), 0);
  EXPECT_EQ(s->workers_size(), 0) << s->ShortDebugString();
}

TEST_F(ClusterTest, StatusShowsModelsAndWorkers) {
  const SweepSpec sweep;
  std::string address;
  auto coordinator = StartCoordinator(WriteConfig("sweep", sweep), Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);
  auto worker = StartWorker(address, "status-worker", 2);
  ASSERT_NE(worker, nullptr);
  CoordinatorClient client(address, kToken);
  // Freeze the worker so the sweep is certainly still running while we ask (it stays "alive" for the
  // coordinator's default worker timeout, 10 s). A commit the worker sent just before the stop can still
  // end its last lease afterwards, and it may hold none between a commit and its next lease: then let it
  // go and try again, until `status --json` of the frozen worker shows a lease.
  nlohmann::json j;
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<v1::StatusResponse> polled = client.PollUntil(
        [](const v1::StatusResponse& s) { return s.units_done() >= 10 && WorkerLeases(s, "status-worker") > 0; });
    ASSERT_TRUE(polled.ok()) << polled.status() << "\n" << coordinator->Output();
    worker->Signal(SIGSTOP);
    auto json = Spawn({"status", "--coordinator", address, "--json"});
    ASSERT_NE(json, nullptr);
    ASSERT_EQ(json->Wait(), 0) << json->Output();
    j = nlohmann::json::parse(json->Stdout(), nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(j.is_object()) << json->Stdout();
    ASSERT_TRUE(j["workers"].is_array()) << j.dump(2);
    ASSERT_GE(j["workers"].size(), 1u) << j.dump(2);
    if (j["workers"][0].value("leases", 0) >= 1) break;
    ASSERT_LT(attempt, 20) << "the worker held no lease whenever it was stopped: " << j.dump(2);
    worker->Signal(SIGCONT);
  }

  auto text = Spawn({"status", "--coordinator", address});
  ASSERT_NE(text, nullptr);
  ASSERT_EQ(text->Wait(), 0) << text->Output();
  const std::string out = text->Stdout();
  EXPECT_TRUE(Contains(out, absl::StrCat("/", sweep.units(), " units done"))) << out;
  for (const std::string& model : sweep.models) {
    EXPECT_TRUE(std::regex_search(out, std::regex("(^|\n)" + model + " +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\n"))) << out;
  }
  std::smatch alive;
  ASSERT_TRUE(std::regex_search(out, alive, std::regex(R"(([0-9]+) worker\(s\) alive)"))) << out;
  EXPECT_GE(std::stoi(alive[1]), 1) << out;
  EXPECT_TRUE(Contains(out, "status-worker")) << out;

  EXPECT_EQ(j.value("units_total", -1), sweep.units());
  EXPECT_GE(j.value("units_done", -1), 10);
  EXPECT_EQ(j.value("complete", true), false);
  ASSERT_TRUE(j["models"].is_array()) << j.dump(2);
  ASSERT_EQ(j["models"].size(), sweep.models.size()) << j.dump(2);
  for (size_t i = 0; i < sweep.models.size(); ++i) {
    const nlohmann::json& m = j["models"][i];
    EXPECT_EQ(m.value("model", ""), sweep.models[i]);
    EXPECT_EQ(m.value("done", 0) + m.value("leased", 0) + m.value("pending", 0),
              sweep.units() / static_cast<int64_t>(sweep.models.size()))
        << m.dump();
  }
  const nlohmann::json& w = j["workers"][0];
  EXPECT_EQ(w.value("worker_id", ""), "status-worker");  // its leases (>= 1) were checked above
  // capacity and loops_in_flight arrive with the first heartbeat, which may not have happened yet.
  for (const char* key : {"capacity", "loops_in_flight", "draining", "last_seen_ms_ago"}) {
    EXPECT_TRUE(w.contains(key)) << key << " missing: " << w.dump();
  }

  worker->Signal(SIGCONT);
  EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  EXPECT_EQ(coordinator->Wait(), 0) << coordinator->Output();
}

// Writes a CA, a server certificate for localhost / 127.0.0.1 and a client certificate into `dir`.
// Returns false (with the reason in `why`) when openssl is not there.
bool MakeCertificates(const std::string& dir, std::string* why) {
  std::optional<std::string> openssl = FindOnPath("openssl");
  if (!openssl.has_value()) {
    *why = "the openssl command is not installed (apt-get install openssl)";
    return false;
  }
  {
    std::ofstream(dir + "/server.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
    std::ofstream(dir + "/client.ext") << "extendedKeyUsage=clientAuth\n";
  }
  const std::vector<std::vector<std::string>> commands = {
      {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/ca.key", "-out", dir + "/ca.pem", "-days",
       "2", "-subj", "/CN=noveltygrid test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
       "keyUsage=critical,keyCertSign,cRLSign"},
      {"req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/server.key", "-out", dir + "/server.csr", "-subj",
       "/CN=localhost"},
      {"x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.pem", "-CAkey", dir + "/ca.key", "-CAcreateserial",
       "-out", dir + "/server.pem", "-days", "2", "-extfile", dir + "/server.ext"},
      {"req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/client.key", "-out", dir + "/client.csr", "-subj",
       "/CN=noveltygrid test worker"},
      {"x509", "-req", "-in", dir + "/client.csr", "-CA", dir + "/ca.pem", "-CAkey", dir + "/ca.key", "-CAcreateserial",
       "-out", dir + "/client.pem", "-days", "2", "-extfile", dir + "/client.ext"},
  };
  for (const std::vector<std::string>& args : commands) {
    ProcessOptions options;
    options.args = {*openssl};
    options.args.insert(options.args.end(), args.begin(), args.end());
    absl::StatusOr<std::unique_ptr<Process>> p = Process::Start(options);
    if (!p.ok()) {
      ADD_FAILURE() << p.status();
      return false;
    }
    if ((*p)->Wait() != 0) {
      ADD_FAILURE() << "openssl " << args[0] << " failed\n" << (*p)->Output();
      return false;
    }
  }
  return true;
}

TEST_F(ClusterTest, MutualTlsWorkerCompletesAndCertlessWorkerIsRefused) {
  std::string why;
  const bool made = MakeCertificates(dir_, &why);
  if (!made && !HasFailure()) GTEST_SKIP() << why;
  ASSERT_TRUE(made);
  SweepSpec sweep;
  sweep.models = {"sim:collapse"};
  sweep.temperatures = {"0.7"};
  const std::string config = WriteConfig("tls", sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(config, Path("reference")));

  std::string address;
  auto coordinator = StartCoordinator(
      config, Path("cluster"),
      {"--tls-cert", Path("server.pem"), "--tls-key", Path("server.key"), "--tls-ca", Path("ca.pem")}, &address);
  ASSERT_NE(coordinator, nullptr);
  const TlsFiles client_tls{Path("client.pem"), Path("client.key"), Path("ca.pem")};
  CoordinatorClient client(address, kToken, client_tls);

  // Without a client certificate the handshake fails: the worker keeps retrying and never gets work.
  auto certless = StartWorker(address, "certless", 2, {"--tls-ca", Path("ca.pem")});
  ASSERT_NE(certless, nullptr);
  absl::StatusOr<std::string> complaint = certless->WaitForLine(Stream::kStderr, [](const std::string& line) {
    return absl::StrContains(line, "unreachable") || absl::StrContains(line, "refused");
  });
  ASSERT_TRUE(complaint.ok()) << complaint.status() << "\n" << certless->Output();
  absl::StatusOr<v1::StatusResponse> s = client.Status();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->units_done(), 0);
  EXPECT_EQ(s->units_leased(), 0);
  EXPECT_EQ(s->workers_size(), 0) << s->ShortDebugString();
  EXPECT_FALSE(CoordinatorClient(address, kToken, TlsFiles{"", "", Path("ca.pem")}).Status().ok())
      << "a client without a certificate got an answer";
  EXPECT_FALSE(CoordinatorClient(address, kToken).Status().ok()) << "a plaintext client got an answer";
  certless->Signal(SIGKILL);
  certless->Wait();
  EXPECT_FALSE(ParseWorkerTally(certless->Stderr()).has_value()) << certless->Output();

  auto worker =
      StartWorker(address, "mtls", 4,
                  {"--tls-ca", Path("ca.pem"), "--tls-cert", Path("client.pem"), "--tls-key", Path("client.key")});
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  EXPECT_EQ(Committed(*worker), sweep.units());
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectClusterMatchesReference(sweep.units());
}

}  // namespace
}  // namespace noveltygrid::testing
