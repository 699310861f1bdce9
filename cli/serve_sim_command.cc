#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "sim_server/sim_server.h"

namespace noveltygrid::cli {
namespace {

constexpr char kUsage[] =
    "serve-sim --listen HOST:PORT [--latency-ms N] [--jitter-ms N] [--fault-rate F] [--faults LIST] [--seed N] "
    "[--requests-per-minute N] [--tokens-per-minute N]";
constexpr char kSummary[] =
    "Serves the simulated model family over HTTP, OpenAI-compatible: POST /v1/chat/completions\n"
    "(sim:explorer, sim:steady, sim:collapse, sim:chaotic, sim:judge, ...), /v1/embeddings (lexical,\n"
    "lexical-D), /predict (simulated pair classifier), /v1/reward (simulated reward model); Anthropic's\n"
    "POST /v1/messages on the same models; GET /stats and /health. Same request, same response. When\n"
    "NOVELTYGRID_SIM_API_KEY is set, model endpoints require 'Authorization: Bearer <key>' (or, on\n"
    "/v1/messages, 'x-api-key: <key>'). Prints 'noveltygrid serve-sim: listening on HOST:PORT', serves\n"
    "until SIGTERM/SIGINT.";

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "noveltygrid serve-sim: %s\n", message.c_str());
  return code;
}

}  // namespace

int RunServeSimCommand(const std::vector<std::string>& raw) {
  const std::vector<FlagSpec> flags = {
      {"listen", "HOST:PORT", "address to serve on (port 0 picks a free port)"},
      {"latency-ms", "N", "delay every model response by N ms (default 0)"},
      {"jitter-ms", "N", "plus a uniform extra delay in [0, N] ms (default 0)"},
      {"fault-rate", "F", "probability in [0, 1] that a model request gets a fault (default 0)"},
      {"faults", "LIST",
       "faults to draw from: 429,500,529,timeout,malformed,truncated (default all: every one but 529)"},
      {"seed", "N", "seed of the fault and jitter draws (default 0)"},
      {"threads", "N",
       "event-loop threads, capped at the CPUs available (default 1); requests in flight are not limited by it"},
      {"timeout-hold-ms", "N", "how long a 'timeout' fault holds the request before dropping it (default 30000)"},
      {"requests-per-minute", "N",
       "simulated rate limit on chat, embeddings and messages requests, a token bucket (default 0: none)"},
      {"tokens-per-minute", "N",
       "simulated rate limit on their tokens: prompt plus max_tokens, charged on arrival (default 0: none)"},
  };
  int exit = 0;
  const std::optional<ParsedArgs> args = ParseOrHelp(
      raw, flags, kUsage, kSummary, [](const std::string& message) { return Fail(message, 2); }, &exit);
  if (!args) return exit;
  if (!args->Has("listen")) {
    std::fprintf(stderr, "noveltygrid serve-sim: --listen is required\n\n%s",
                 HelpText(kUsage, kSummary, flags).c_str());
    return 2;
  }
  if (!args->positional.empty()) return Fail(absl::StrCat("unexpected argument '", args->positional[0], "'"), 2);

  SimServerOptions options;
  const std::string listen = args->Get("listen");
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return Fail(absl::StrCat("--listen expects HOST:PORT, got '", listen, "'"), 2);
  }
  options.host = listen.substr(0, colon);
  if (options.host.size() >= 2 && options.host.front() == '[' && options.host.back() == ']') {
    options.host = options.host.substr(1, options.host.size() - 2);  // [::1]:8080
  }
  options.port = port;
  absl::StatusOr<long long> latency = args->GetInt("latency-ms", 0);
  absl::StatusOr<long long> jitter = args->GetInt("jitter-ms", 0);
  absl::StatusOr<long long> seed = args->GetInt("seed", 0);
  absl::StatusOr<long long> threads = args->GetInt("threads", 1);
  absl::StatusOr<long long> hold = args->GetInt("timeout-hold-ms", 30'000);
  absl::StatusOr<long long> rpm = args->GetInt("requests-per-minute", 0);
  absl::StatusOr<long long> tpm = args->GetInt("tokens-per-minute", 0);
  for (const auto* v : {&latency, &jitter, &seed, &threads, &hold, &rpm, &tpm}) {
    if (!v->ok()) return Fail(std::string(v->status().message()), 2);
  }
  if (*rpm < 0 || *tpm < 0) return Fail("--requests-per-minute and --tokens-per-minute must be >= 0 (0: no limit)", 2);
  options.rate_limits.requests_per_minute = *rpm;
  options.rate_limits.tokens_per_minute = *tpm;
  if (*latency < 0 || *jitter < 0 || *seed < 0 || *threads < 1 || *latency > 3'600'000 || *jitter > 3'600'000 ||
      *threads > 4096 || *hold < 0 || *hold > 3'600'000) {
    return Fail(
        "--latency-ms, --jitter-ms and --timeout-hold-ms must be in 0..3600000, --seed >= 0, --threads in 1..4096", 2);
  }
  options.timeout_hold = absl::Milliseconds(*hold);
  options.latency_ms = static_cast<int>(*latency);
  options.jitter_ms = static_cast<int>(*jitter);
  options.seed = static_cast<uint64_t>(*seed);
  options.threads = static_cast<int>(*threads);
  if (args->Has("fault-rate")) {
    const std::string rate = args->Get("fault-rate");
    if (!absl::SimpleAtod(rate, &options.fault_rate) || !(options.fault_rate >= 0.0 && options.fault_rate <= 1.0)) {
      return Fail(absl::StrCat("--fault-rate expects a number in [0, 1], got '", rate, "'"), 2);
    }
  }
  if (args->Has("faults")) {
    absl::StatusOr<std::vector<SimFault>> faults = ParseSimFaults(args->Get("faults"));
    if (!faults.ok()) return Fail(absl::StrCat("--faults: ", faults.status().message()), 2);
    options.faults = *std::move(faults);
  }
  options.api_key = SimApiKeyFromEnvironment();

  SimServer server;
  absl::StatusOr<int> bound = server.Start(options);
  if (!bound.ok()) return Fail(std::string(bound.status().message()), 1);
  const bool v6 = options.host.find(':') != std::string::npos;
  std::printf("noveltygrid serve-sim: listening on %s%s%s:%d\n", v6 ? "[" : "", options.host.c_str(), v6 ? "]" : "",
              *bound);
  std::fflush(stdout);
  if (!options.api_key.empty()) {
    std::fprintf(stderr, "noveltygrid serve-sim: requiring the API key from NOVELTYGRID_SIM_API_KEY\n");
  }
  absl::Notification stop;
  {
    SignalWatcher signals([&stop](int) {
      if (!stop.HasBeenNotified()) stop.Notify();
    });
    stop.WaitForNotification();
  }
  std::fprintf(stderr, "noveltygrid serve-sim: stopping\n");
  server.Stop();
  std::fputs((SimStatsJson(server.stats()) + "\n").c_str(), stderr);
  return 0;
}

}  // namespace noveltygrid::cli
