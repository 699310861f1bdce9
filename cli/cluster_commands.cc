// The cluster's commands: a coordinator that serves one sweep, workers that lease its units, and a
// status query. Secrets (the shared token) come from NOVELTYGRID_TOKEN or --token-file only.
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/leaderboard_flags.h"
#include "cli/progress.h"
#include "cli/run_file.h"
#include "cli/signals.h"
#include "cli/status_view.h"
#include "cli/worker_setup.h"
#include "common/cpu_budget.h"
#include "common/metrics/metrics_server.h"
#include "common/storage/store_factory.h"
#include "coordinator/sweep_coordinator.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server_builder.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"
#include "proto/health_server.h"
#include "worker/lease_loop.h"
#include "worker/metrics/worker_metrics.h"
#include "worker/sim/sim_models.h"
#include "worker/worker_runtime.h"

namespace noveltygrid::cli {
namespace {

const FlagSpec kTokenFile{"token-file", "FILE", "file holding the shared token (default: $NOVELTYGRID_TOKEN)"};
const FlagSpec kTlsCert{"tls-cert", "FILE", "PEM certificate (server: enables TLS; worker: mutual TLS)"};
const FlagSpec kTlsKey{"tls-key", "FILE", "PEM private key of --tls-cert"};
const FlagSpec kTlsCa{"tls-ca", "FILE", "PEM CA (server: require client certificates; client: verify server)"};

// A command's own flags, then the shared token and TLS files every cluster command takes.
std::vector<FlagSpec> WithSecurityFlags(std::vector<FlagSpec> flags) {
  flags.insert(flags.end(), {kTokenFile, kTlsCert, kTlsKey, kTlsCa});
  return flags;
}

// --metrics-listen of the coordinator and the worker.
FlagSpec MetricsFlag() {
  return {"metrics-listen", "HOST:PORT", "serve Prometheus metrics on http://HOST:PORT/metrics (README \"Metrics\")"};
}

// --metrics-listen's address, checked before anything starts (OK when the flag is not given).
absl::Status CheckMetricsFlag(const ParsedArgs& args) {
  return args.Has("metrics-listen") ? CheckMetricsListen(args.Get("metrics-listen")) : absl::OkStatus();
}

// --redis of the coordinator and the worker: `use` says what they keep there.
FlagSpec RedisFlag(const std::string& use) {
  return {
      "redis", "URL",
      absl::StrCat("redis://[:password@]host:port[/db]: ", use,
                   ";\n"
                   "                             default $NOVELTYGRID_REDIS_URL (put passwords there, not in flags)")};
}

int Fail(const char* command, const absl::Status& status, int code = 1) {
  std::fprintf(stderr, "noveltygrid %s: %s\n", command, std::string(status.message()).c_str());
  return code;
}

TlsFiles TlsFrom(const ParsedArgs& args) {
  return TlsFiles{args.Get("tls-cert"), args.Get("tls-key"), args.Get("tls-ca")};
}

// Parses flags, handles --help and a missing required flag. Returns nullopt-like exit code via `exit`.
absl::StatusOr<ParsedArgs> Parse(const char* command, const std::vector<std::string>& raw, const std::string& usage,
                                 const std::string& summary, const std::vector<FlagSpec>& flags,
                                 const std::vector<std::string>& required, int* exit) {
  std::optional<ParsedArgs> args = ParseOrHelp(
      raw, flags, usage, summary,
      [command](const std::string& message) { return Fail(command, absl::InvalidArgumentError(message), 2); }, exit);
  if (!args) return absl::CancelledError("parse error or help");
  for (const std::string& name : required) {
    if (!args->Has(name)) {
      std::fprintf(stderr, "noveltygrid %s: --%s is required\n\n%s", command, name.c_str(),
                   HelpText(usage, summary, flags).c_str());
      *exit = 2;
      return absl::InvalidArgumentError("missing flag");
    }
  }
  if (!args->positional.empty()) {
    *exit =
        Fail(command, absl::InvalidArgumentError(absl::StrCat("unexpected argument '", args->positional[0], "'")), 2);
    return absl::InvalidArgumentError("positional");
  }
  return *std::move(args);
}

}  // namespace

int RunCoordinatorCommand(const std::vector<std::string>& raw) {
  std::vector<FlagSpec> flags = WithSecurityFlags({
      {"config", "FILE", "sweep config (YAML)"},
      {"listen", "HOST:PORT", "address to serve on (port 0 picks a free port)"},
      {"out", "DIR", "results folder (re-using it resumes the sweep)"},
      {"seed", "N", "override the config's seed"},
      RedisFlag("keep the sweep state there (restart-safe)"),
      {"lease-ttl-ms", "N", "a lease not renewed for this long goes back to pending (default 30000)"},
      {"worker-timeout-ms", "N", "a worker silent for this long is gone; its leases return (default 10000)"},
      {"heartbeat-ms", "N", "heartbeat interval asked of workers (default 2000)"},
      {"per-model-cap", "N", "at most N units of one model in flight across all workers (default 0: no cap)"},
      MetricsFlag(),
      {"metrics-linger-ms", "N",
       "after the results are written, keep serving metrics up to N ms so the last scrape sees them; SIGTERM "
       "ends it (default 0)"},
  });
  for (FlagSpec& f : LeaderboardFlags()) flags.push_back(std::move(f));
  int exit = 0;
  absl::StatusOr<ParsedArgs> args =
      Parse("coordinator", raw, "coordinator --config CONFIG.yaml --listen HOST:PORT --out DIR",
            "Serves one sweep's units to workers over gRPC until every unit is committed, then writes the\n"
            "results folder and exits 0. Prints 'listening on HOST:PORT' once it accepts workers.",
            flags, {"config", "listen", "out"}, &exit);
  if (!args.ok()) return exit;
  absl::StatusOr<SweepConfig> config = LoadSweepConfig(args->Get("config"));
  if (!config.ok()) return Fail("coordinator", config.status(), 2);
  absl::StatusOr<long long> seed = args->GetInt("seed", static_cast<long long>(config->seed));
  absl::StatusOr<long long> ttl = args->GetInt("lease-ttl-ms", 30'000);
  absl::StatusOr<long long> worker_timeout = args->GetInt("worker-timeout-ms", 10'000);
  absl::StatusOr<long long> heartbeat = args->GetInt("heartbeat-ms", 2'000);
  absl::StatusOr<long long> per_model_cap = args->GetInt("per-model-cap", 0);
  absl::StatusOr<long long> metrics_linger = args->GetInt("metrics-linger-ms", 0);
  for (const auto* v : {&seed, &ttl, &worker_timeout, &heartbeat, &per_model_cap, &metrics_linger}) {
    if (!v->ok()) return Fail("coordinator", v->status(), 2);
  }
  if (*seed < 0 || *ttl < 1 || *worker_timeout < 1 || *heartbeat < 1 || *per_model_cap < 0 || *metrics_linger < 0) {
    return Fail("coordinator",
                absl::InvalidArgumentError("--seed, --per-model-cap and --metrics-linger-ms must be >= 0 and every "
                                           "other duration >= 1 ms"),
                2);
  }
  if (args->Has("metrics-linger-ms") && !args->Has("metrics-listen")) {
    return Fail("coordinator", absl::InvalidArgumentError("--metrics-linger-ms needs --metrics-listen"), 2);
  }
  if (absl::Status checked = CheckMetricsFlag(*args); !checked.ok()) return Fail("coordinator", checked, 2);
  config->seed = static_cast<uint64_t>(*seed);
  const absl::StatusOr<std::optional<CorrelateOptions>> leaderboard = LeaderboardOption(*args);
  if (!leaderboard.ok()) return Fail("coordinator", leaderboard.status(), 2);
  const BuiltinModels builtins = SimBuiltinModels();
  if (absl::Status usable = CheckSweepModelsWithoutKeys(*config, &builtins); !usable.ok()) {
    return Fail("coordinator", usable, 2);
  }
  absl::StatusOr<std::string> token = LoadToken(args->Get("token-file"));
  if (!token.ok()) return Fail("coordinator", token.status(), 2);

  std::unique_ptr<Store> store;
  if (const std::string url = args->GetOrEnv("redis", "NOVELTYGRID_REDIS_URL"); !url.empty()) {
    absl::StatusOr<std::unique_ptr<Store>> opened = OpenStore(url);
    if (!opened.ok()) return Fail("coordinator", opened.status(), absl::IsInvalidArgument(opened.status()) ? 2 : 1);
    store = std::move(*opened);
  }
  std::unique_ptr<Progress> progress;
  CoordinatorOptions options;
  options.store = store.get();
  options.listen = args->Get("listen");
  options.out_dir = args->Get("out");
  options.token = *token;
  options.correlate = *leaderboard;
  options.tls = TlsFrom(*args);
  options.scheduler.lease_ttl = absl::Milliseconds(*ttl);
  options.scheduler.worker_timeout = absl::Milliseconds(*worker_timeout);
  options.heartbeat_interval = absl::Milliseconds(*heartbeat);
  options.scheduler.per_model_cap = static_cast<int>(*per_model_cap);
  options.metrics_listen = args->Get("metrics-listen");
  options.on_commit = [&progress](int64_t, bool) {
    if (progress) progress->Poke();
  };
  absl::StatusOr<std::unique_ptr<SweepCoordinator>> coordinator = SweepCoordinator::Start(*config, options);
  if (!coordinator.ok()) return Fail("coordinator", coordinator.status());
  SweepCoordinator& c = **coordinator;
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  progress = std::make_unique<Progress>(config->name, [&c] { return FiguresOf(c.Status()); });
  if (c.units_restored() > 0) {
    std::printf(
        "noveltygrid coordinator: %lld unit(s) still leased to their workers (the previous coordinator's leases)\n",
        static_cast<long long>(c.units_restored()));
  }
  std::printf("noveltygrid coordinator: listening on %s:%d (sweep '%s', %lld units, %lld already done)\n", host.c_str(),
              c.port(), config->name.c_str(), static_cast<long long>(c.units_total()),
              static_cast<long long>(c.units_resumed()));
  if (c.metrics_port() != 0) std::printf("noveltygrid coordinator: metrics on port %d (/metrics)\n", c.metrics_port());
  std::fflush(stdout);
  absl::StatusOr<int> failed;
  {
    absl::Notification stop;
    SignalWatcher signals([&](int) {
      std::fprintf(stderr, "noveltygrid coordinator: stopping (health NOT_SERVING); committed units are kept\n");
      c.Shutdown();
      if (!stop.HasBeenNotified()) stop.Notify();
    });
    failed = c.Wait();
    // Linger only over written results: those of a finished sweep, or of one its budget stopped.
    const bool written = failed.ok() || absl::IsResourceExhausted(failed.status());
    if (*metrics_linger > 0 && written && !stop.HasBeenNotified()) {
      std::printf("noveltygrid coordinator: results written; serving metrics for up to %lld ms more\n",
                  *metrics_linger);
      std::fflush(stdout);
      stop.WaitForNotificationWithTimeout(absl::Milliseconds(*metrics_linger));
    }
  }
  progress->Finish();
  if (absl::IsResourceExhausted(failed.status())) return Fail("coordinator", failed.status(), kExitBudget);
  if (!failed.ok()) return Fail("coordinator", failed.status());
  std::fputs(c.LeaderboardText().c_str(), stdout);
  if (*failed > 0) {
    std::fputs(c.FailureSummary().c_str(), stderr);
    std::fprintf(stderr,
                 "noveltygrid coordinator: %d unit(s) ended in an error; see %s/answers.jsonl or samples.jsonl\n",
                 *failed, options.out_dir.c_str());
    return 1;
  }
  return 0;
}

int RunWorkerCommand(const std::vector<std::string>& raw) {
  const std::vector<FlagSpec> flags = WithSecurityFlags({
      {"coordinator", "HOST:PORT", "the coordinator to lease from"},
      {"concurrency", "N", "loops in flight (default 64)"},
      {"threads", "N",
       "threads for model calls and engines (default: the CPUs this process may use, by affinity and cgroup quota; "
       "with --redis, whose round trips the threads wait on, the machine's cores, at least 2)"},
      {"id", "NAME", "worker id shown in status (default: hostname-pid)"},
      {"drain-grace-ms", "N", "on SIGTERM, time to finish running units before handing them back (default 30000)"},
      {"stall-multiple", "X",
       "report a unit with no step for longer than X times its provider's timeout as stalled (default 3)"},
      {"reconnect-window-ms", "N",
       "keep running units while the coordinator is unreachable for up to N ms, then abandon them (default 300000)"},
      {"report-interval-ms", "N",
       "send new steps and finished units to the coordinator at most every N ms, many per call (default 20; 0: "
       "as soon as any wait)"},
      RedisFlag("shared embedding cache and loop checkpoints"),
      {"keep-running", "", "stay up after the sweep completes (wait for the next coordinator)"},
      {"call-log", "FILE", "append one line per model call to FILE (accounting, tests)"},
      {"health-listen", "HOST:PORT", "serve grpc.health.v1 there (NOT_SERVING while draining), for probes"},
      MetricsFlag(),
  });
  int exit = 0;
  absl::StatusOr<ParsedArgs> args =
      Parse("worker", raw, "worker --coordinator HOST:PORT [--concurrency N]",
            "Leases units from the coordinator and runs them. Stateless: any number may join or leave at\n"
            "any time. SIGTERM drains: no new leases, running units finish or are handed back.",
            flags, {"coordinator"}, &exit);
  if (!args.ok()) return exit;
  absl::StatusOr<long long> concurrency = args->GetInt("concurrency", 64);
  const std::string redis_url = args->GetOrEnv("redis", "NOVELTYGRID_REDIS_URL");
  absl::StatusOr<long long> threads = args->GetInt("threads", DefaultPoolThreads(!redis_url.empty()));
  absl::StatusOr<long long> grace = args->GetInt("drain-grace-ms", 30'000);
  absl::StatusOr<long long> reconnect = args->GetInt("reconnect-window-ms", 300'000);
  absl::StatusOr<long long> round = args->GetInt("report-interval-ms", 20);
  for (const auto* v : {&concurrency, &threads, &grace, &reconnect, &round}) {
    if (!v->ok()) return Fail("worker", v->status(), 2);
  }
  if (*concurrency < 1 || *threads < 1 || *grace < 0 || *reconnect < 0 || *round < 0 || *round > 60'000) {
    return Fail("worker",
                absl::InvalidArgumentError("--concurrency and --threads must be >= 1, --drain-grace-ms and "
                                           "--reconnect-window-ms >= 0, --report-interval-ms in 0..60000"),
                2);
  }
  if (absl::Status checked = CheckMetricsFlag(*args); !checked.ok()) return Fail("worker", checked, 2);
  absl::StatusOr<std::string> token = LoadToken(args->Get("token-file"));
  if (!token.ok()) return Fail("worker", token.status(), 2);

  WorkerOptions options;
  options.coordinator = args->Get("coordinator");
  options.token = *token;
  options.tls = TlsFrom(*args);
  options.worker_id = args->Get("id", DefaultWorkerId());
  options.concurrency = static_cast<int>(*concurrency);
  options.drain_grace = absl::Milliseconds(*grace);
  options.reconnect_window = absl::Milliseconds(*reconnect);
  if (args->Has("stall-multiple")) {
    double multiple = 0;
    if (!absl::SimpleAtod(args->Get("stall-multiple"), &multiple) || !(multiple > 0)) {
      return Fail("worker", absl::InvalidArgumentError("--stall-multiple must be a number > 0"), 2);
    }
    options.stall_multiple = multiple;
  }
  options.exit_when_complete = !args->Has("keep-running");
  options.min_round_interval = absl::Milliseconds(*round);
  // Redis is optional for a worker: without it (or while it is away) work goes on uncached.
  std::unique_ptr<Store> store;
  if (const std::string& url = redis_url; !url.empty()) {
    absl::StatusOr<std::unique_ptr<Store>> opened = OpenStore(url);
    if (opened.ok()) {
      store = std::move(*opened);
    } else if (absl::IsInvalidArgument(opened.status())) {
      return Fail("worker", opened.status(), 2);  // a typo must not silently turn the cache off
    } else {
      std::fprintf(stderr,
                   "noveltygrid worker: warning: %s; continuing without the embedding cache and "
                   "checkpoints, results are unchanged\n",
                   std::string(opened.status().message()).c_str());
    }
  }
  const BuiltinModels builtins = SimBuiltinModels();
  WorkerMetrics metrics;
  absl::StatusOr<std::unique_ptr<WorkerRuntime>> runtime =
      CreateWorkerRuntime(*args, *threads, store.get(), redis_url, &builtins,
                          [&metrics](const std::string& provider, absl::Duration latency, bool ok) {
                            metrics.ObserveRequest(provider, latency, ok);
                          });
  if (!runtime.ok()) return Fail("worker", runtime.status(), 2);
  (*runtime)->Wire(options);
  options.observer = &metrics;
  // Units whose calls wait on past a provider limit must not keep a drained pod alive: after 5 s
  // more the process ends without them (they were handed back; see the _Exit below).
  options.abandon_after = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<CoordinatorClient>> client = ConnectCoordinator(options);
  if (!client.ok()) return Fail("worker", client.status());
  LeaseLoop loop(options, client->get(), (*runtime)->executor(), (*runtime)->checkpoints());
  std::unique_ptr<MetricsServer> metrics_server;
  if (args->Has("metrics-listen")) {
    WorkerRuntime* r = runtime->get();
    metrics.SetSources({.loop = [&loop] { return loop.stats(); },
                        .capacity = options.concurrency,
                        .waits = [r] { return r->Waits(); }});
    absl::StatusOr<std::unique_ptr<MetricsServer>> started =
        MetricsServer::Start(args->Get("metrics-listen"), metrics.Collectables());
    if (!started.ok()) return Fail("worker", started.status(), absl::IsInvalidArgument(started.status()) ? 2 : 1);
    metrics_server = std::move(*started);
    std::fprintf(stderr, "noveltygrid worker: metrics on port %d (/metrics)\n", metrics_server->port());
  }
  HealthService health_service;
  std::unique_ptr<grpc::Server> health;
  if (args->Has("health-listen")) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(args->Get("health-listen"), grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&health_service);
    health = builder.BuildAndStart();
    if (health == nullptr || port == 0) {
      return Fail("worker",
                  absl::UnavailableError(absl::StrCat("cannot serve health on ", args->Get("health-listen"))));
    }
    std::fprintf(stderr, "noveltygrid worker: health on port %d\n", port);
  }
  std::fprintf(stderr, "noveltygrid worker: %s leasing from %s, %d loops in flight\n", options.worker_id.c_str(),
               options.coordinator.c_str(), options.concurrency);
  absl::Status status;
  {
    SignalWatcher signals([&](int) {
      health_service.SetServing(false);
      loop.Drain();
    });
    status = loop.Run();
  }
  if (health != nullptr) health->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  if (loop.abandoned() > 0) {
    // Their callbacks may still run: end here, without destructors (everything is delivered or handed back).
    const int code = status.ok() ? 0 : Fail("worker", status);
    std::fflush(nullptr);
    std::_Exit(code);
  }
  if (!status.ok()) return Fail("worker", status);
  const LeaseLoop::Stats stats = loop.stats();
  std::fprintf(stderr, "noveltygrid worker: done: %lld unit(s) committed, %lld handed back\n",
               static_cast<long long>(stats.units_committed), static_cast<long long>(stats.units_released));
  return 0;
}

int RunStatusCommand(const std::vector<std::string>& raw) {
  const std::vector<FlagSpec> flags = WithSecurityFlags({
      {"coordinator", "HOST:PORT", "the coordinator to ask (a cluster's)"},
      {"out", "DIR", "ask the `noveltygrid run` writing into DIR (found through DIR/.noveltygrid/run.json)"},
      {"json", "", "print the status as JSON"},
  });
  const std::string usage = "status (--coordinator HOST:PORT | --out DIR) [--json]";
  const std::string summary =
      "Shows units done / leased / pending per model, rates, tokens and dollars so far, the model calls\n"
      "waiting on replies, retries or provider limits, and the workers alive.";
  int exit = 0;
  absl::StatusOr<ParsedArgs> args = Parse("status", raw, usage, summary, flags, {}, &exit);
  if (!args.ok()) return exit;
  if (args->Has("coordinator") == args->Has("out")) {
    std::fprintf(stderr, "noveltygrid status: give --coordinator HOST:PORT or --out DIR (one of them)\n\n%s",
                 HelpText(usage, summary, flags).c_str());
    return 2;
  }
  std::string address = args->Get("coordinator");
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  std::string token;
  if (args->Has("out")) {
    // `run`'s own loopback coordinator and per-run token.
    absl::StatusOr<RunEndpoint> run = ReadRunFile(args->Get("out"));
    if (!run.ok()) return Fail("status", run.status());
    address = run->address;
    token = run->token;
  } else {
    absl::StatusOr<std::string> loaded = LoadToken(args->Get("token-file"));
    if (!loaded.ok()) return Fail("status", loaded.status(), 2);
    token = *loaded;
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> tls = MakeChannelCredentials(TlsFrom(*args));
    if (!tls.ok()) return Fail("status", tls.status(), 2);
    credentials = *tls;
  }
  auto stub = v1::Coordinator::NewStub(grpc::CreateChannel(address, credentials));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  Authorize(context, token);
  v1::StatusResponse s;
  grpc::Status rpc = stub->Status(&context, v1::StatusRequest(), &s);
  if (!rpc.ok()) {
    return Fail("status", absl::UnavailableError(
                              absl::StrCat("cannot reach the coordinator at ", address, ": ", rpc.error_message())));
  }
  if (args->Has("json")) {
    std::printf("%s\n", StatusJson(s).dump(2).c_str());
  } else {
    std::fputs(StatusText(s).c_str(), stdout);
  }
  return 0;
}

}  // namespace noveltygrid::cli
