// What the cluster integration tests share: a temporary folder per test, sweep configs written into it,
// the real `noveltygrid` binary started as coordinator / worker / status / run processes, a gRPC client
// for the coordinator's Status and grpc.health.v1 services, and the checks on results folders.
//
// Synchronisation is on conditions only: a coordinator's address comes from its "listening on" line, and
// "the middle of the sweep" is a Status poll until units_done reaches a threshold. Used from the test
// thread only.
#ifndef NOVELTYGRID_TESTS_INTEGRATION_CLUSTER_HARNESS_H_
#define NOVELTYGRID_TESTS_INTEGRATION_CLUSTER_HARNESS_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"
#include "proto/security.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {

inline constexpr char kToken[] = "integration-test-token";
inline constexpr int64_t kPaperQuestions = 65;

// Path of the binary under test: $NOVELTYGRID_BIN (set by ctest), else the build folder's.
std::string NoveltygridBinary();

// An executable found on PATH, or nullopt.
std::optional<std::string> FindOnPath(const std::string& name);

// The sweep of the tests: `models` x `temperatures` x the paper's 65 questions, seed 7.
// Writes a simulated-model sweep config to `path` (judge sim:judge, embedder lexical, 8 loops in flight).
// `extra_yaml` is appended as is (e.g. a noveltybench section).
std::string WriteSweepYaml(const std::string& path, const std::string& name, int64_t seed,
                           const std::vector<std::string>& models, const std::vector<std::string>& temperatures,
                           const std::string& questions, const std::string& extra_yaml = "");

struct SweepSpec {
  std::vector<std::string> models = {"sim:explorer", "sim:steady", "sim:collapse"};
  std::vector<std::string> temperatures = {"0.7", "1.0"};
  // A NoveltyBench section to add (empty: AidanBench only) and the units it plans.
  std::string noveltybench_yaml;
  int64_t novelty_units = 0;
  int64_t units() const {
    return static_cast<int64_t>(models.size() * temperatures.size()) * kPaperQuestions + novelty_units;
  }
};

// "done: N unit(s) committed, M handed back" from a worker's stderr.
struct WorkerTally {
  int64_t committed = 0;
  int64_t handed_back = 0;
};
std::optional<WorkerTally> ParseWorkerTally(const std::string& stderr_text);
// The units a finished worker committed, from its tally line (-1, and a test failure, when absent).
int64_t Committed(const Process& worker);

// A blocking client of one coordinator: every call carries the token and a deadline.
class CoordinatorClient {
 public:
  CoordinatorClient(const std::string& address, std::string token, const TlsFiles& tls = {});

  absl::StatusOr<v1::StatusResponse> Status();
  absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> Health();
  grpc::health::v1::Health::Stub& health() { return *health_; }

  // Asks Status until `done(status)` holds (returns that status) or `timeout` passes. Failed calls are
  // retried until then too (the last error is returned).
  absl::StatusOr<v1::StatusResponse> PollUntil(const std::function<bool(const v1::StatusResponse&)>& done,
                                               absl::Duration timeout = absl::Seconds(60));

 private:
  const std::string token_;
  std::unique_ptr<v1::Coordinator::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// The leases a worker holds according to `status` (0 when it is not listed).
int WorkerLeases(const v1::StatusResponse& status, const std::string& worker_id);

// answers.jsonl and samples.jsonl (those the expected folder has) and leaderboard.txt byte-identical,
// summary.json identical apart from "calls" and "run".
void ExpectSameResults(const std::string& expected_dir, const std::string& actual_dir);
// The journal holds its fingerprint line and exactly one line per unit of the sweep.
void ExpectJournalHasEachUnitOnce(const std::string& dir, int64_t units);

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A path inside this test's temporary folder.
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  // The first `count` questions of the paper's 65, as questions-COUNT.jsonl; returns its path.
  std::string WritePaperQuestions(int count);
  // Writes the config of `sweep` as NAME.yaml and returns its path.
  std::string WriteConfig(const std::string& name, const SweepSpec& sweep = {});

  // Starts `noveltygrid ARGS...` with NOVELTYGRID_TOKEN = `token` (unset when nullopt). Null on failure
  // (already reported).
  // `env` is added to the child's environment.
  // How long a process started by Spawn may run before it is killed (tests of long runs raise it).
  absl::Duration process_timeout_ = absl::Seconds(90);
  std::unique_ptr<Process> Spawn(std::vector<std::string> args, std::optional<std::string> token = kToken,
                                 std::map<std::string, std::string> env = {});
  // Runs `noveltygrid ARGS...` (Spawn) to its end: the exit code (-1 when it did not start), stdout and
  // stderr in `output`.
  int Run(const std::vector<std::string>& args, std::string* output);
  // `noveltygrid coordinator` on `listen`, once it says where it listens: that line in `listening`.
  std::unique_ptr<Process> SpawnCoordinator(const std::string& config, const std::string& out,
                                            std::vector<std::string> extra, const std::string& listen,
                                            std::string* listening);
  // `noveltygrid coordinator` on `listen`; sets `address` from its "listening on" line.
  std::unique_ptr<Process> StartCoordinator(const std::string& config, const std::string& out,
                                            std::vector<std::string> extra, std::string* address,
                                            const std::string& listen = "127.0.0.1:0");
  std::unique_ptr<Process> StartWorker(const std::string& address, const std::string& id, int concurrency,
                                       std::vector<std::string> extra = {}, std::optional<std::string> token = kToken);
  // `noveltygrid serve-sim --listen 127.0.0.1:0 EXTRA...` once it listens; its base URL (without /v1)
  // in `url`. Null on failure (already reported).
  std::unique_ptr<Process> StartServeSim(std::vector<std::string> extra, std::map<std::string, std::string> env,
                                         std::string* url);
  // `noveltygrid run CONFIG --out DIR --seed N`: the single-process results to compare with.
  void RunReference(const std::string& config, const std::string& out);
  // Writes `sweep` as sweep.yaml (its path in `config`), runs it in one process into reference/, and
  // starts a coordinator (with `extra` flags) for it writing cluster/.
  void StartSweepWithReference(const SweepSpec& sweep, std::vector<std::string> extra, std::string* config,
                               std::string* address, std::unique_ptr<Process>* coordinator);
  // What every finished cluster run of `units` units must show: cluster/ holds the results of
  // reference/, and its journal each unit once.
  void ExpectClusterMatchesReference(int64_t units) {
    ExpectSameResults(Path("reference"), Path("cluster"));
    ExpectJournalHasEachUnitOnce(Path("cluster"), units);
  }
  // Runs `config` on a coordinator (into DIR/cluster) and three workers of `concurrency` loops; checks
  // that all exit 0 and that the workers committed `units` between them, each unit once.
  void RunOnThreeWorkers(const std::string& config, int concurrency, int64_t units,
                         std::string* coordinator_stdout = nullptr);

  std::string dir_;
};

inline constexpr char kSeed[] = "42";  // given to run and coordinator alike; the config says 7

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_INTEGRATION_CLUSTER_HARNESS_H_
