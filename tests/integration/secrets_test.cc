// Secret canaries (issue 14 item 7): the provider API key, the cluster token and the Redis password
// are absent from every log line, results file, Redis key and value, and gRPC message of a real
// cluster.
//
// The processes: a redis-server with a password; a serve-sim that wants an API key; two coordinators
// of one sweep, one keeping its state in Redis and one in its results folder (journal.bin,
// leases.log), each with a worker whose API key is wrong (refused, it hands its units back) and then
// good workers, all with the shared token and -- for Redis -- the URL with the password inside in
// $NOVELTYGRID_REDIS_URL, as a user gives it; `status` with the right and a wrong token; `report`,
// `plan` and a single-process `run`; and `plan` and a coordinator given a wrong Redis password (they
// fail, saying so). Every secret, right and wrong, is a random canary looked for verbatim, by its
// random part, in its "Bearer" form and in base64 (secret_scan.h).
//
// What is scanned:
//  - stdout and stderr of every process started, serve-sim's included;
//  - every file under the test's folder, recursively, as bytes (answers.jsonl, samples.jsonl,
//    summary.json, leaderboard.txt, .noveltygrid/journal.bin, leases.log, ...): in the middle of the
//    sweeps (while the stale workers' leases are on record; a finished sweep clears them) and at the end;
//  - every key of every Redis database, then and at the end: its name and its DUMP (the serialized
//    value, whatever its type), with RDB compression off so that strings are verbatim;
//  - the gRPC traffic: workers and `status` reach each coordinator through a recording TCP proxy
//    (capture_proxy.h), so every call is captured as sent on the wire, and its HTTP/2 frames are split
//    into header blocks and message bodies. The token belongs in the `authorization` header (HPACK),
//    so it is held to "in no message body, nor in any other frame"; the API keys and Redis passwords
//    to "nowhere in the captured bytes". A wire capture, rather than recording CoordinatorClient calls
//    in-process, covers every message of the real binaries, Status and the refusals included, and
//    whatever gRPC itself adds.
// Each scan is shown able to fail first: a canary planted in a scratch file and in a scratch Redis
// key is found by the same code, and the captured headers must hold the token.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/common/storage/redis_server.h"
#include "tests/common/test_files.h"
#include "tests/integration/capture_proxy.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/secret_scan.h"

namespace noveltygrid::testing {
namespace {

using Env = std::map<std::string, std::string>;

constexpr char kRedisUrlEnv[] = "NOVELTYGRID_REDIS_URL";
constexpr char kKeyEnv[] = "SIM_TEST_KEY";

TEST(SecretScanTest, FindsEveryFormOfACanary) {
  const Canary canary = MakeCanary("API key", "canary-apikey");
  const std::string hex = canary.value.substr(canary.value.rfind('-') + 1);
  const std::vector<std::pair<std::string, std::string>> hidden = {
      {"verbatim", std::string("\x00\x01", 2) + canary.value + "\xff"},
      {"its random part", "key=sk-" + hex},
      {"Bearer form", "Authorization: Bearer " + canary.value},
      {"base64 (offset 0)", absl::Base64Escape(canary.value + "\n")},
      {"base64 (offset 1)", absl::Base64Escape(":" + canary.value)},
      {"base64 (offset 2)", absl::Base64Escape("u:" + canary.value + "@host")},
  };
  for (const auto& [form, text] : hidden) {
    bool found = false;
    for (const Leak& leak : FindLeaks("text", text, {canary})) found = found || leak.form == form;
    EXPECT_TRUE(found) << form << " not found in " << absl::CHexEscape(text);
  }
  EXPECT_TRUE(FindLeaks("text", "canary-apikey-0123 Bearer x", {canary}).empty());
  EXPECT_NE(MakeCanary("API key", "canary-apikey").value, canary.value) << "canaries are random";
}

std::vector<std::string> WorkerArgs(const std::string& address, const std::string& id) {
  return {"worker", "--coordinator", address, "--id", id, "--concurrency", "8"};
}

bool Found(const std::vector<Leak>& leaks, const std::string& what, const std::string& where_part) {
  for (const Leak& leak : leaks) {
    if (leak.what == what && absl::StrContains(leak.where, where_part)) return true;
  }
  return false;
}

// The size of a file, -1 when it is missing.
int64_t FileSize(const std::string& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  return error ? -1 : static_cast<int64_t>(size);
}

void Append(std::vector<Leak> more, std::vector<Leak>* leaks) {
  for (Leak& leak : more) leaks->push_back(std::move(leak));
}

// A coordinator and the recording proxy its clients reach it through.
struct Cluster {
  Process* coordinator = nullptr;
  std::unique_ptr<CaptureProxy> proxy;
};

class SecretsTest : public ClusterTest {
 protected:
  // Every secret of the test, right and wrong.
  const Canary api_key_ = MakeCanary("API key", "canary-apikey");
  const Canary wrong_key_ = MakeCanary("wrong API key", "canary-wrongkey");
  const Canary token_ = MakeCanary("token", "canary-token");
  const Canary wrong_token_ = MakeCanary("wrong token", "canary-wrongtoken");
  const Canary password_ = MakeCanary("Redis password", "canary-redispw");
  const Canary wrong_password_ = MakeCanary("wrong Redis password", "canary-wrongredispw");

  std::vector<Canary> All() const { return {api_key_, wrong_key_, token_, wrong_token_, password_, wrong_password_}; }
  // What may not even travel in a gRPC header.
  std::vector<Canary> NotOnTheWire() const { return {api_key_, wrong_key_, password_, wrong_password_}; }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(ClusterTest::SetUp());
    testing_redis::RedisServer::Options options;
    options.password = password_.value;
    absl::StatusOr<std::unique_ptr<testing_redis::RedisServer>> redis = testing_redis::RedisServer::Start(options);
    ASSERT_TRUE(redis.ok()) << redis.status();
    redis_ = *std::move(redis);
    // The Redis URL, password inside, as a user gives it: in the environment.
    with_redis_ = {{kRedisUrlEnv, redis_->url()}};
    with_wrong_redis_ = {
        {kRedisUrlEnv, absl::StrCat("redis://:", wrong_password_.value, "@", redis_->host_port(), "/0")}};
  }

  // Starts `noveltygrid ARGS...` and keeps it for the output scan. Null on failure (already reported).
  Process* Start(const std::string& name, std::vector<std::string> args, const Canary& token, Env env = {}) {
    std::unique_ptr<Process> process = Spawn(std::move(args), token.value, std::move(env));
    if (process == nullptr) return nullptr;
    processes_.emplace_back(name, std::move(process));
    return processes_.back().second.get();
  }
  // Starts it and waits for its exit code (-1 when it could not start).
  int RunToEnd(const std::string& name, std::vector<std::string> args, const Canary& token, Env env = {}) {
    Process* process = Start(name, std::move(args), token, std::move(env));
    return process == nullptr ? -1 : process->Wait();
  }
  std::string Output(const std::string& name) const {
    for (const auto& [n, p] : processes_) {
      if (n == name) return p->Output();
    }
    return "";
  }

  // AidanBench on 2 questions and NoveltyBench on 2 curated prompts, for two simulated models
  // reached through serve-sim at `url` with the key in $SIM_TEST_KEY.
  std::string WriteSecretsConfig(const std::string& url) {
    const std::string questions = Path("questions.jsonl");
    std::ofstream(questions) << R"({"id": "q1", "question": "What could a paperclip be used for?"})"
                             << "\n"
                             << R"({"id": "q2", "question": "Name a use for an empty jar."})"
                             << "\n";
    const std::string path = Path("secrets.yaml");
    std::ofstream out(path);
    out << "name: secrets\nseed: 7\nmodels: [sim:explorer, sim:steady]\ntemperatures: [0.7]\n"
        << "judge: sim:judge\nembedder: lexical\nconcurrency: 8\n"
        << "aidanbench:\n  questions: " << questions << "\n"
        << "noveltybench:\n  prompts: " << testing_files::SharedData("noveltybench/curated.jsonl") << "\n"
        << "  limit: 2\n  k: 3\n  modes: [standard]\n  temperatures: [1.0]\n"
        << "providers:\n  sim:\n    base_url: " << url << "/v1\n    api_key_env: " << kKeyEnv << "\n";
    EXPECT_TRUE(out.good());
    return path;
  }

  // A coordinator of `config` writing into `out` (with `env`), behind a proxy of its own.
  void StartCluster(const std::string& name, const std::string& config, const std::string& out, const Env& env,
                    Cluster* cluster) {
    cluster->coordinator =
        Start(name, {"coordinator", "--config", config, "--listen", "127.0.0.1:0", "--out", Path(out), "--seed", kSeed},
              token_, env);
    ASSERT_NE(cluster->coordinator, nullptr);
    const std::string listening = "noveltygrid coordinator: listening on 127.0.0.1:";
    absl::StatusOr<std::string> line = cluster->coordinator->WaitForStdoutPrefix(listening);
    ASSERT_TRUE(line.ok()) << line.status() << cluster->coordinator->Output();
    int port = 0;
    const size_t end = line->find(' ', listening.size());
    ASSERT_TRUE(absl::SimpleAtoi(line->substr(listening.size(), end - listening.size()), &port)) << *line;
    absl::StatusOr<std::unique_ptr<CaptureProxy>> proxy = CaptureProxy::Start(port);
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    cluster->proxy = *std::move(proxy);
  }

  // Every file under the test's folder holds no secret -- once a canary planted in a scratch file (in
  // base64, among binary bytes, in a hidden folder) was found by the same scan. `when` is for messages.
  void ExpectNoSecretInFiles(const std::string& when) {
    const std::string scratch = Path(".scratch/deep");
    std::filesystem::create_directories(scratch);
    std::ofstream(scratch + "/blob.bin", std::ios::binary)
        << std::string("\0\xfe", 2) << absl::Base64Escape("k=" + api_key_.value);
    int files = 0;
    EXPECT_TRUE(Found(ScanFolder(dir_, All(), &files), api_key_.what, "blob.bin")) << "the folder scan is blind";
    std::filesystem::remove_all(Path(".scratch"));
    const std::vector<Leak> leaks = ScanFolder(dir_, All(), &files);
    EXPECT_TRUE(leaks.empty()) << "secrets in files " << when << ":\n" << Describe(leaks);
  }

  // No Redis key name or DUMPed value holds a secret -- once a planted key name and a planted (highly
  // compressible) hash value were found by the same scan.
  void ExpectNoSecretInRedis(const std::string& when) {
    const std::string planted = "scratch:" + token_.value;
    const std::string padding(300, 'a');
    ASSERT_TRUE(redis_->Command({"HSET", planted, "field", padding + api_key_.value + padding}).ok());
    absl::StatusOr<RedisScan> scan = ScanRedis(redis_->port(), password_.value, All());
    ASSERT_TRUE(scan.ok()) << scan.status();
    EXPECT_TRUE(Found(scan->leaks, token_.what, "(its name)")) << "the key scan is blind";
    EXPECT_TRUE(Found(scan->leaks, api_key_.what, "(DUMP)")) << "the DUMP scan is blind";
    ASSERT_TRUE(redis_->Command({"DEL", planted}).ok());
    scan = ScanRedis(redis_->port(), password_.value, All());
    ASSERT_TRUE(scan.ok()) << scan.status();
    EXPECT_TRUE(scan->leaks.empty()) << "secrets in Redis " << when << ":\n" << Describe(scan->leaks);
    EXPECT_GT(scan->keys, 0) << "Redis holds nothing: the scan shows nothing";
  }

  // The traffic `proxy` captured: the token in the headers (so the capture sees them) but in no message
  // body; API keys and Redis passwords in no byte. `worker_id` must be in the messages (a request of its).
  void ExpectNoSecretOnTheWire(const std::string& name, const CaptureProxy& proxy, const std::string& worker_id) {
    const Http2Traffic traffic = proxy.Http2Split();
    EXPECT_TRUE(traffic.errors.empty()) << name << ": " << traffic.errors;
    EXPECT_GT(traffic.message_count, 0) << name;
    EXPECT_EQ(traffic.compressed_messages, 0) << name << ": compressed messages would hide a secret from the scan";
    EXPECT_TRUE(absl::StrContains(traffic.messages, worker_id)) << name << ": the worker's requests were not captured";
    EXPECT_TRUE(Found(FindLeaks("headers", traffic.header_blocks, {token_}), token_.what, "headers"))
        << name << ": the token is not in the captured headers: the capture misses them (or gRPC now Huffman-codes "
        << "header values, and this check needs an HPACK decoder)";
    std::vector<Leak> leaks = FindLeaks(name + " gRPC message bodies", traffic.messages, All());
    Append(FindLeaks(name + " other HTTP/2 frames", traffic.other, All()), &leaks);
    Append(FindLeaks(name + " gRPC traffic", proxy.Raw(), NotOnTheWire()), &leaks);
    EXPECT_TRUE(leaks.empty()) << "secrets on the wire:\n" << Describe(leaks);
  }

  // Env plus the provider key `key` in $SIM_TEST_KEY.
  static Env WithKey(Env env, const Canary& key) {
    env[kKeyEnv] = key.value;
    return env;
  }

  std::unique_ptr<testing_redis::RedisServer> redis_;
  Env with_redis_;
  Env with_wrong_redis_;
  std::vector<std::pair<std::string, std::unique_ptr<Process>>> processes_;
};

TEST_F(SecretsTest, NoSecretInLogsResultsRedisOrGrpcMessages) {
  std::string url;
  std::unique_ptr<Process> serve_sim = StartServeSim({}, {{"NOVELTYGRID_SIM_API_KEY", api_key_.value}}, &url);
  ASSERT_NE(serve_sim, nullptr);
  const std::string config = WriteSecretsConfig(url);

  // Two coordinators of the sweep: one keeps its state in Redis, the other in its results folder
  // (journal.bin, leases.log). The second one's workers run without Redis: both sweeps plan the same
  // unit ids, and a unit's checkpoints must not be shared by two clusters.
  Cluster in_redis;
  ASSERT_NO_FATAL_FAILURE(StartCluster("coordinator (Redis)", config, "cluster", with_redis_, &in_redis));
  Cluster in_files;
  ASSERT_NO_FATAL_FAILURE(StartCluster("coordinator (files)", config, "cluster-files", {}, &in_files));

  // On each, a worker with a stale key: refused by the provider, it hands its units back and stops.
  // The second also has a wrong Redis password: it warns and goes on without Redis.
  for (auto [cluster, env, kind] :
       {std::tuple{&in_redis, with_redis_, "Redis"}, std::tuple{&in_files, with_wrong_redis_, "files"}}) {
    const std::string name = absl::StrCat("stale worker (", kind, ")");
    EXPECT_EQ(RunToEnd(name, WorkerArgs(cluster->proxy->address(), "stale"), token_, WithKey(env, wrong_key_)), 1)
        << Output(name);
    EXPECT_TRUE(absl::StrContains(Output(name), "HTTP 401")) << Output(name);
  }
  // status with the token, and with a wrong one.
  const std::string address = in_redis.proxy->address();
  EXPECT_EQ(RunToEnd("status", {"status", "--coordinator", address}, token_), 0) << Output("status");
  EXPECT_EQ(RunToEnd("refused status", {"status", "--coordinator", address}, wrong_token_), 1)
      << Output("refused status");

  // Mid-sweep, while the stale worker's leases are on record.
  EXPECT_GT(FileSize(Path("cluster-files/.noveltygrid/leases.log")), 0);
  absl::StatusOr<std::string> leases = redis_->Command({"HLEN", "ng:sweep:secrets:leases"});
  EXPECT_TRUE(leases.ok() && *leases != "0") << "no lease on record in Redis: " << leases.status();
  ExpectNoSecretInFiles("in the middle of the sweeps");
  ExpectNoSecretInRedis("in the middle of the sweeps");

  // Good workers finish both sweeps.
  std::vector<Process*> workers;
  for (auto [cluster, env, id] :
       {std::tuple{&in_redis, with_redis_, "good-1"}, std::tuple{&in_redis, with_redis_, "good-2"},
        std::tuple{&in_files, Env{}, "good-3"}}) {
    workers.push_back(
        Start(absl::StrCat("worker ", id), WorkerArgs(cluster->proxy->address(), id), token_, WithKey(env, api_key_)));
    ASSERT_NE(workers.back(), nullptr);
  }
  for (Process* worker : workers) EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  for (Cluster* cluster : {&in_redis, &in_files}) {
    ASSERT_EQ(cluster->coordinator->Wait(), 0) << cluster->coordinator->Output();
  }

  // Reading the results back, and the sweep in one process.
  EXPECT_EQ(RunToEnd("report", {"report", Path("cluster")}, token_), 0) << Output("report");
  EXPECT_EQ(RunToEnd("plan (Redis)", {"plan", config, "--seed", kSeed}, token_, with_redis_), 0);
  EXPECT_EQ(RunToEnd("plan (files)", {"plan", config, "--seed", kSeed, "--out", Path("cluster-files")}, token_), 0);
  for (const char* name : {"plan (Redis)", "plan (files)"}) {
    EXPECT_TRUE(absl::StrContains(Output(name), "(8 committed)")) << name << ": " << Output(name);
  }
  EXPECT_EQ(RunToEnd("run", {"run", config, "--out", Path("single"), "--seed", kSeed, "--quiet"}, token_,
                     WithKey({}, api_key_)),
            0)
      << Output("run");

  // A wrong Redis password fails, saying so.
  EXPECT_EQ(RunToEnd("plan, wrong Redis password", {"plan", config}, token_, with_wrong_redis_), 1)
      << Output("plan, wrong Redis password");
  EXPECT_NE(RunToEnd("coordinator, wrong Redis password",
                     {"coordinator", "--config", config, "--listen", "127.0.0.1:0", "--out", Path("refused")}, token_,
                     with_wrong_redis_),
            0)
      << Output("coordinator, wrong Redis password");
  for (const char* name : {"plan, wrong Redis password", "coordinator, wrong Redis password", "stale worker (files)"}) {
    EXPECT_TRUE(absl::StrContains(Output(name), "AUTH at redis://127.0.0.1:")) << name << ": " << Output(name);
  }

  serve_sim->Signal(SIGTERM);
  serve_sim->Wait();
  processes_.emplace_back("serve-sim", std::move(serve_sim));

  // The logs of every process.
  std::vector<Leak> in_outputs;
  for (const auto& [name, process] : processes_) {
    Append(FindLeaks(name + " stdout/stderr", process->Output(), All()), &in_outputs);
  }
  EXPECT_TRUE(in_outputs.empty()) << "secrets in process output:\n" << Describe(in_outputs);

  // The files and Redis once the sweeps are done.
  for (const char* file :
       {"cluster/answers.jsonl", "cluster/samples.jsonl", "cluster/summary.json", "cluster/leaderboard.txt",
        "cluster-files/answers.jsonl", "cluster-files/.noveltygrid/journal.bin", "single/.noveltygrid/journal.bin"}) {
    EXPECT_GT(FileSize(Path(file)), 0) << file << ": the scan would show nothing";
  }
  ExpectNoSecretInFiles("once the sweeps are done");
  ExpectNoSecretInRedis("once the sweeps are done");

  // Every gRPC call of the workers and of status.
  ExpectNoSecretOnTheWire("Redis cluster", *in_redis.proxy, "good-1");
  ExpectNoSecretOnTheWire("file cluster", *in_files.proxy, "good-3");
}

}  // namespace
}  // namespace noveltygrid::testing
