#include "tests/integration/cluster_harness.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "coordinator/state/journal.h"
#include "grpcpp/create_channel.h"
#include "nlohmann/json.hpp"

namespace noveltygrid::testing {
namespace {

constexpr char kListening[] = "noveltygrid coordinator: listening on ";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  Authorize(*context, token);
  return context;
}

// Where two texts first differ, for a failure message that does not print megabytes.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::vector<std::string> a = absl::StrSplit(expected, '\n');
  std::vector<std::string> b = absl::StrSplit(actual, '\n');
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) {
      return absl::StrCat("line ", i + 1, "\n  expected: ", a[i].substr(0, 400), "\n  actual:   ", b[i].substr(0, 400));
    }
  }
  return absl::StrCat("expected ", a.size(), " lines, got ", b.size());
}

}  // namespace

std::string WriteSweepYaml(const std::string& path, const std::string& name, int64_t seed,
                           const std::vector<std::string>& models, const std::vector<std::string>& temperatures,
                           const std::string& questions, const std::string& extra_yaml) {
  std::ofstream out(path);
  out << "name: " << name << "\n"
      << "seed: " << seed << "\n"
      << "models: [" << absl::StrJoin(models, ", ") << "]\n"
      << "temperatures: [" << absl::StrJoin(temperatures, ", ") << "]\n"
      << "judge: sim:judge\n"
      << "embedder: lexical\n"
      << "concurrency: 8\n"
      << "aidanbench:\n"
      << "  questions: " << questions << "\n"
      << extra_yaml;
  EXPECT_TRUE(out.good()) << "cannot write " << path;
  return path;
}

std::string NoveltygridBinary() {
  if (const char* bin = std::getenv("NOVELTYGRID_BIN"); bin != nullptr && *bin != '\0') return bin;
  return NOVELTYGRID_SOURCE_DIR "/build/noveltygrid";
}

std::optional<std::string> FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path == nullptr ? "/usr/bin:/bin" : path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::optional<WorkerTally> ParseWorkerTally(const std::string& stderr_text) {
  static const std::regex kDone(R"(done: (\d+) unit\(s\) committed, (\d+) handed back)");
  std::smatch m;
  if (!std::regex_search(stderr_text, m, kDone)) return std::nullopt;
  return WorkerTally{std::stoll(m[1]), std::stoll(m[2])};
}

// ---- CoordinatorClient ----

CoordinatorClient::CoordinatorClient(const std::string& address, std::string token, const TlsFiles& tls)
    : token_(std::move(token)) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = MakeChannelCredentials(tls);
  EXPECT_TRUE(credentials.ok()) << credentials.status();
  auto channel = grpc::CreateChannel(address, credentials.ok() ? *credentials : grpc::InsecureChannelCredentials());
  stub_ = v1::Coordinator::NewStub(channel);
  health_ = grpc::health::v1::Health::NewStub(channel);
}

absl::StatusOr<v1::StatusResponse> CoordinatorClient::Status() {
  v1::StatusResponse response;
  absl::Status status = FromGrpc(stub_->Status(Context(token_).get(), v1::StatusRequest(), &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> CoordinatorClient::Health() {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service("");
  grpc::health::v1::HealthCheckResponse response;
  absl::Status status = FromGrpc(health_->Check(Context(token_).get(), request, &response));
  if (!status.ok()) return status;
  return response.status();
}

absl::StatusOr<v1::StatusResponse> CoordinatorClient::PollUntil(
    const std::function<bool(const v1::StatusResponse&)>& done, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::StatusOr<v1::StatusResponse> last = absl::DeadlineExceededError("no Status call was made");
  while (absl::Now() < deadline) {
    last = Status();
    if (last.ok() && done(*last)) return last;
    absl::SleepFor(absl::Milliseconds(5));  // between polls of the condition, not as synchronisation
  }
  if (!last.ok()) return last.status();
  return absl::DeadlineExceededError(absl::StrCat("the condition did not hold within ", absl::FormatDuration(timeout),
                                                  "; last status: ", last->ShortDebugString()));
}

int WorkerLeases(const v1::StatusResponse& status, const std::string& worker_id) {
  for (const v1::WorkerStatus& w : status.workers()) {
    if (w.worker_id() == worker_id) return w.leases();
  }
  return 0;
}

// ---- ClusterTest ----

void ClusterTest::SetUp() {
  const std::string binary = NoveltygridBinary();
  ASSERT_EQ(::access(binary.c_str(), X_OK), 0)
      << "the noveltygrid binary is not at " << binary << " (build it, or set NOVELTYGRID_BIN)";
  std::string pattern = (std::filesystem::temp_directory_path() / "noveltygrid-it-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
  dir_ = pattern;
}

void ClusterTest::TearDown() {
  if (dir_.empty()) return;
  if (HasFailure()) {
    std::fprintf(stderr, "integration test files kept in %s\n", dir_.c_str());
    return;
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string ClusterTest::WriteConfig(const std::string& name, const SweepSpec& sweep) {
  return WriteSweepYaml(Path(name + ".yaml"), name, 7, sweep.models, sweep.temperatures,
                        NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl",
                        sweep.noveltybench_yaml);
}

std::string ClusterTest::WritePaperQuestions(int count) {
  const std::string questions = Path(absl::StrCat("questions-", count, ".jsonl"));
  std::ifstream in(NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl");
  std::ofstream out(questions);
  std::string line;
  for (int i = 0; i < count && std::getline(in, line); ++i) out << line << "\n";
  EXPECT_TRUE(out.good()) << questions;
  return questions;
}

std::unique_ptr<Process> ClusterTest::Spawn(std::vector<std::string> args, std::optional<std::string> token,
                                            std::map<std::string, std::string> env) {
  ProcessOptions options;
  options.env = std::move(env);
  options.timeout = process_timeout_;
  options.args.push_back(NoveltygridBinary());
  options.args.insert(options.args.end(), args.begin(), args.end());
  if (token.has_value()) {
    options.env[kTokenEnv] = *token;
  } else {
    options.unset_env.push_back(kTokenEnv);
  }
  absl::StatusOr<std::unique_ptr<Process>> process = Process::Start(std::move(options));
  if (!process.ok()) {
    ADD_FAILURE() << process.status();
    return nullptr;
  }
  return std::move(*process);
}

int ClusterTest::Run(const std::vector<std::string>& args, std::string* output) {
  std::unique_ptr<Process> p = Spawn(args);
  if (p == nullptr) return -1;
  const int code = p->Wait();
  *output = p->Output();
  return code;
}

std::unique_ptr<Process> ClusterTest::SpawnCoordinator(const std::string& config, const std::string& out,
                                                       std::vector<std::string> extra, const std::string& listen,
                                                       std::string* listening) {
  std::vector<std::string> args = {"coordinator", "--config", config,   "--listen", listen,
                                   "--out",       out,        "--seed", kSeed};
  args.insert(args.end(), extra.begin(), extra.end());
  std::unique_ptr<Process> coordinator = Spawn(std::move(args));
  if (coordinator == nullptr) return nullptr;
  absl::StatusOr<std::string> line = coordinator->WaitForStdoutPrefix(kListening);
  if (!line.ok()) {
    ADD_FAILURE() << "the coordinator did not say where it listens: " << line.status() << "\n" << coordinator->Output();
    return nullptr;
  }
  *listening = *line;
  return coordinator;
}

std::unique_ptr<Process> ClusterTest::StartCoordinator(const std::string& config, const std::string& out,
                                                       std::vector<std::string> extra, std::string* address,
                                                       const std::string& listen) {
  std::string line;
  std::unique_ptr<Process> coordinator = SpawnCoordinator(config, out, std::move(extra), listen, &line);
  if (coordinator == nullptr) return nullptr;
  const std::string rest = line.substr(sizeof(kListening) - 1);
  *address = rest.substr(0, rest.find(' '));
  if (!absl::StartsWith(*address, "127.0.0.1:") || absl::EndsWith(*address, ":0")) {
    ADD_FAILURE() << "unexpected listening line: " << line;
    return nullptr;
  }
  return coordinator;
}

std::unique_ptr<Process> ClusterTest::StartWorker(const std::string& address, const std::string& id, int concurrency,
                                                  std::vector<std::string> extra, std::optional<std::string> token) {
  std::vector<std::string> args = {
      "worker", "--coordinator", address, "--id", id, "--concurrency", std::to_string(concurrency)};
  args.insert(args.end(), extra.begin(), extra.end());
  return Spawn(std::move(args), std::move(token));
}

std::unique_ptr<Process> ClusterTest::StartServeSim(std::vector<std::string> extra,
                                                    std::map<std::string, std::string> env, std::string* url) {
  std::vector<std::string> args = {"serve-sim", "--listen", "127.0.0.1:0"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::unique_ptr<Process> server = Spawn(std::move(args), std::nullopt, std::move(env));
  if (server == nullptr) return nullptr;
  const std::string prefix = "noveltygrid serve-sim: listening on ";
  absl::StatusOr<std::string> line = server->WaitForStdoutPrefix(prefix);
  if (!line.ok()) {
    ADD_FAILURE() << line.status() << server->Output();
    return nullptr;
  }
  *url = absl::StrCat("http://", line->substr(prefix.size()));
  return server;
}

void ClusterTest::RunReference(const std::string& config, const std::string& out) {
  std::unique_ptr<Process> run = Spawn({"run", config, "--out", out, "--seed", kSeed, "--quiet"});
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->Wait(), 0) << run->Output();
}

void ClusterTest::StartSweepWithReference(const SweepSpec& sweep, std::vector<std::string> extra, std::string* config,
                                          std::string* address, std::unique_ptr<Process>* coordinator) {
  *config = WriteConfig("sweep", sweep);
  ASSERT_NO_FATAL_FAILURE(RunReference(*config, Path("reference")));
  *coordinator = StartCoordinator(*config, Path("cluster"), std::move(extra), address);
  ASSERT_NE(*coordinator, nullptr);
}

// ---- results checks ----

int64_t Committed(const Process& worker) {
  std::optional<WorkerTally> tally = ParseWorkerTally(worker.Stderr());
  EXPECT_TRUE(tally.has_value()) << "no 'done:' line from the worker\n" << worker.Output();
  return tally.has_value() ? tally->committed : -1;
}

void ClusterTest::RunOnThreeWorkers(const std::string& config, int concurrency, int64_t units,
                                    std::string* coordinator_stdout) {
  std::string address;
  auto coordinator = StartCoordinator(config, Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);
  std::vector<std::unique_ptr<Process>> workers;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(StartWorker(address, absl::StrCat("w", i), concurrency));
    ASSERT_NE(workers.back(), nullptr);
  }
  int64_t committed = 0;
  for (auto& w : workers) {
    EXPECT_EQ(w->Wait(), 0) << w->Output();
    committed += Committed(*w);
  }
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  if (coordinator_stdout != nullptr) *coordinator_stdout = coordinator->Stdout();
  EXPECT_EQ(committed, units) << "every unit is committed by exactly one worker";
}

void ExpectSameResults(const std::string& expected_dir, const std::string& actual_dir) {
  // answers.jsonl (AidanBench) and samples.jsonl (NoveltyBench) where the expected folder has them.
  std::vector<std::string> files = {"leaderboard.txt"};
  for (const char* name : {"answers.jsonl", "samples.jsonl"}) {
    if (std::filesystem::exists(expected_dir + "/" + name)) files.push_back(name);
  }
  EXPECT_GE(files.size(), 2u) << expected_dir << " has neither answers.jsonl nor samples.jsonl";
  for (const std::string& name : files) {
    const std::string expected = ReadAll(expected_dir + "/" + name);
    const std::string actual = ReadAll(actual_dir + "/" + name);
    EXPECT_FALSE(expected.empty()) << expected_dir << "/" << name << " is missing or empty";
    EXPECT_TRUE(expected == actual) << name
                                    << " differs from the single-process run: " << FirstDifference(expected, actual);
  }
  // report.html: the same page but for its calls section (run-dependent, like summary.json's "calls").
  auto page = [](const std::string& dir) {
    std::string html = ReadAll(dir + "/report.html");
    const size_t begin = html.find("<section id=\"calls\">");
    const size_t end = begin == std::string::npos ? begin : html.find("</section>", begin);
    if (end != std::string::npos) html.erase(begin, end - begin);
    return html;
  };
  const std::string expected_page = page(expected_dir);
  EXPECT_NE(expected_page.find("data-noveltygrid-report"), std::string::npos)
      << expected_dir << "/report.html is missing";
  EXPECT_TRUE(expected_page == page(actual_dir))
      << "report.html differs from the single-process run: " << FirstDifference(expected_page, page(actual_dir));
  auto summary = [](const std::string& dir) {
    nlohmann::json j = nlohmann::json::parse(ReadAll(dir + "/summary.json"), nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_object()) << dir << "/summary.json is not a JSON object";
    if (j.is_object()) {
      EXPECT_TRUE(j.contains("aidanbench") || j.contains("noveltybench")) << dir << "/summary.json has no totals";
      j.erase("calls");
      j.erase("run");
    }
    return j;
  };
  const nlohmann::json expected = summary(expected_dir);
  const nlohmann::json actual = summary(actual_dir);
  EXPECT_TRUE(expected == actual) << "summary.json differs (apart from calls and run): "
                                  << nlohmann::json::diff(expected, actual).dump().substr(0, 2000);
}

void ExpectJournalHasEachUnitOnce(const std::string& dir, int64_t units) {
  const absl::StatusOr<std::vector<std::string>> ids = JournalUnitIds(dir);
  ASSERT_TRUE(ids.ok()) << ids.status();
  std::set<std::string> distinct;
  for (const std::string& id : *ids) EXPECT_TRUE(distinct.insert(id).second) << "unit " << id << " is journaled twice";
  EXPECT_EQ(static_cast<int64_t>(ids->size()), units) << "journal records";
  EXPECT_EQ(static_cast<int64_t>(distinct.size()), units) << "distinct units in the journal";
}

}  // namespace noveltygrid::testing
