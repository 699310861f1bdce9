// HttpProviderTest: the cluster fixture with a real `noveltygrid serve-sim` process, sweep configs that
// reach it, and its /stats -- shared by the tests of HTTP providers (http_test.cc, provider_api_test.cc,
// tests/peers/anthropic_kind_test.cc).
#ifndef NOVELTYGRID_TESTS_INTEGRATION_HTTP_PROVIDER_FIXTURE_H_
#define NOVELTYGRID_TESTS_INTEGRATION_HTTP_PROVIDER_FIXTURE_H_

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {

inline constexpr char kServerKey[] = "sim-server-key-7c1e";
inline constexpr char kWrongKey[] = "wrong-key-SECRET-4f2a9d";

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class HttpProviderTest : public ClusterTest {
 protected:
  // A serve-sim process on a free port; `url_` is its base URL (without /v1).
  void StartServer(std::vector<std::string> extra = {}, std::map<std::string, std::string> env = {}) {
    server_ = StartServeSim(std::move(extra), std::move(env), &url_);
    ASSERT_NE(server_, nullptr);
  }

  // GET /stats of the server: a plain HTTP/1.0 request written by bash over /dev/tcp (no HTTP client
  // package needed on the test machine).
  Json Stats() {
    const std::string hostport = url_.substr(std::string("http://").size());
    const std::string host = hostport.substr(0, hostport.rfind(':'));
    const std::string port = hostport.substr(hostport.rfind(':') + 1);
    ProcessOptions options;
    options.args = {"/bin/bash", "-c",
                    absl::StrCat("exec 3<>/dev/tcp/", host, "/", port,
                                 "; printf 'GET /stats HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n' >&3; cat <&3")};
    absl::StatusOr<std::unique_ptr<Process>> get = Process::Start(std::move(options));
    EXPECT_TRUE(get.ok()) << get.status();
    if (!get.ok()) return Json();
    EXPECT_EQ((*get)->Wait(), 0) << (*get)->Output();
    const std::string out = (*get)->Stdout();
    const size_t body = out.find("\r\n\r\n");
    EXPECT_NE(body, std::string::npos) << out;
    return Json::parse(out.substr(body + 4), nullptr, false);
  }

  // AidanBench: 2 models x 2 temperatures x the first `count` paper questions; NoveltyBench: 2 models x
  // 2 modes x 4 curated prompts (k = 5), with `providers` appended verbatim.
  std::string WriteHttpConfig(const std::string& name, const std::string& providers, int concurrency = 16,
                              int count = 12, const std::string& models = "[sim:explorer, sim:steady]",
                              const std::string& temperatures = "[0.7, 1.0]") {
    const std::string questions = WritePaperQuestions(count);
    const std::string path = Path(name + ".yaml");
    std::ofstream out(path);
    out << "name: http\nseed: 7\nmodels: " << models << "\ntemperatures: " << temperatures << "\n"
        << "judge: sim:judge\nembedder: lexical\nconcurrency: " << concurrency << "\n"
        << "aidanbench:\n  questions: " << questions << "\n"
        << "noveltybench:\n  prompts: " << testing_files::SharedData("noveltybench/curated.jsonl") << "\n"
        << "  limit: 4\n  k: 5\n  modes: [standard, in-context]\n  temperatures: [1.0]\n"
        << providers;
    EXPECT_TRUE(out.good());
    return path;
  }

  std::string SimProvider(const std::string& extra = "") {
    return absl::StrCat("providers:\n  sim:\n    base_url: ", url_, "/v1\n", extra);
  }

  int64_t RunSweep(const std::string& config, const std::string& out, std::map<std::string, std::string> env = {},
                   std::string* output = nullptr) {
    std::unique_ptr<Process> run = Spawn({"run", config, "--out", out, "--seed", kSeed, "--quiet"}, kToken, env);
    if (run == nullptr) return -1;
    const int code = run->Wait();
    if (output != nullptr) *output = run->Output();
    EXPECT_FALSE(run->timed_out()) << run->Output();
    return code;
  }

  // A serve-sim that wants kServerKey, the single-process reference results (DIR/reference) and a
  // coordinator (into DIR/cluster) whose sweep reaches serve-sim with the key in $SIM_TEST_KEY.
  std::unique_ptr<Process> StartKeyedCluster(std::string* address) {
    StartServer({}, {{"NOVELTYGRID_SIM_API_KEY", kServerKey}});
    const std::string plain = WriteHttpConfig("plain", "");
    const std::string http = WriteHttpConfig("cluster", SimProvider("    api_key_env: SIM_TEST_KEY\n"));
    RunReference(plain, Path("reference"));
    return StartCoordinator(http, Path("cluster"), {}, address);
  }

  // A worker of 8 loops whose $SIM_TEST_KEY is `key`.
  std::unique_ptr<Process> StartKeyedWorker(const std::string& address, const std::string& id, const char* key) {
    return Spawn({"worker", "--coordinator", address, "--id", id, "--concurrency", "8"}, kToken,
                 {{"SIM_TEST_KEY", key}});
  }

  // Polls the server until a model request has arrived (false after 30 s).
  bool WaitForCallsInFlight() {
    for (const absl::Time deadline = absl::Now() + absl::Seconds(30); absl::Now() < deadline;) {
      if (Stats()["in_flight_peak"].get<int64_t>() > 0) return true;
      absl::SleepFor(absl::Milliseconds(20));  // between polls of the condition
    }
    return false;
  }

  std::unique_ptr<Process> server_;
  std::string url_;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_INTEGRATION_HTTP_PROVIDER_FIXTURE_H_
