// `noveltygrid run`: the cluster path in one process -- the coordinator (serving gRPC on a loopback port,
// for `status --out`) and one worker that calls the coordinator's service directly through the
// in-process twin of the gRPC client: the same calls, checks and token a cluster's workers use.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_args.h"
#include "cli/leaderboard_flags.h"
#include "cli/progress.h"
#include "cli/run_file.h"
#include "cli/signals.h"
#include "cli/status_view.h"
#include "cli/worker_setup.h"
#include "common/config.h"
#include "common/cpu_budget.h"
#include "common/sanitizer_build.h"
#include "common/storage/store_factory.h"
#include "coordinator/service/in_process_client.h"
#include "coordinator/sweep_coordinator.h"
#include "worker/lease_loop.h"
#include "worker/sim/sim_models.h"
#include "worker/worker_runtime.h"

namespace noveltygrid::cli {
namespace {

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = [] {
    auto* all = new std::vector<FlagSpec>{
        {"out", "DIR", "results folder (created; re-running into it resumes)"},
        SeedFlag(),
        ConcurrencyFlag(),
        {"threads", "N",
         "worker threads (default: the CPUs this process may use, by affinity and cgroup quota; with --redis, whose "
         "round trips the threads wait on, the machine's cores, at least 2)"},
        {"redis", "URL",
         "redis://[:password@]host:port[/db]: sweep state, embedding cache, loop checkpoints\n"
         "                             (default $NOVELTYGRID_REDIS_URL; put passwords there, not in flags)"},
        {"quiet", "", "no progress and no leaderboard on the terminal"},
        {"call-log", "FILE", "append one line per model call to FILE (accounting, tests)"},
    };
    for (FlagSpec& f : LeaderboardFlags()) all->push_back(std::move(f));
    return all;
  }();
  return *flags;
}

int Fail(const absl::Status& status, int code = 1) {
  std::fprintf(stderr, "noveltygrid run: %s\n", std::string(status.message()).c_str());
  return code;
}

// A per-run secret for the loopback coordinator: nothing else on the machine can lease its units.
std::string RandomToken() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  unsigned char bytes[16] = {0};
  urandom.read(reinterpret_cast<char*>(bytes), sizeof(bytes));
  std::string token;
  for (unsigned char b : bytes) absl::StrAppend(&token, absl::Hex(b, absl::kZeroPad2));
  return token;
}

// The end of a sweep that ran to completion: every result is durable by now (journal records and
// results files are fsynced, the lease log cleared, the Redis store's writes synchronous, run.json
// removed), so the process ends without the teardown that would only close ~a connection per loop,
// join threads and free memory -- tens of milliseconds, measured in BENCHMARKS.md (issue 18 item 1).
// Also skipped: the gRPC server's graceful shutdown (a `status` call at that moment sees the
// connection reset), the coordinator's last sweep of checkpoints (the sweep is complete, so none is
// read again) and tasks still queued on the worker's pool (cache writes at most). Sanitizer builds
// still tear down, so that their leak and race checks see all of it.
int EndOfSweep(int code) {
#if defined(NOVELTYGRID_ASAN_BUILD) || defined(NOVELTYGRID_TSAN_BUILD)
  return code;
#else
  std::fflush(nullptr);
  std::_Exit(code);
#endif
}

}  // namespace

int RunRunCommand(const std::vector<std::string>& raw_args) {
  const std::string usage = "run CONFIG.yaml --out DIR [--seed N] [--concurrency N]";
  const std::string summary =
      "Runs every unit of the sweep in this process -- a coordinator and a worker calling it directly, as\n"
      "a cluster's workers do over gRPC -- and writes the results files (answers.jsonl, samples.jsonl, summary.json,\n"
      "leaderboard.txt) and the report.html page to DIR.\n"
      "The same config and seed give byte-identical results files. Re-running into DIR resumes.";
  int exit = 0;
  const std::optional<ParsedArgs> args = ParseConfigCommand("run", raw_args, Flags(), usage, summary, &exit, "out");
  if (!args) return exit;
  absl::StatusOr<SweepConfig> config = LoadConfigArgs(*args);
  if (!config.ok()) return Fail(config.status(), 2);
  const absl::StatusOr<std::optional<CorrelateOptions>> leaderboard = LeaderboardOption(*args);
  if (!leaderboard.ok()) return Fail(leaderboard.status(), 2);
  const std::string redis_url = args->GetOrEnv("redis", "NOVELTYGRID_REDIS_URL");
  absl::StatusOr<long long> threads = args->GetInt("threads", DefaultPoolThreads(!redis_url.empty()));
  if (!threads.ok()) return Fail(threads.status(), 2);
  if (*threads < 1) return Fail(absl::InvalidArgumentError("--threads must be >= 1"), 2);
  const bool quiet = args->Has("quiet");
  const std::string token = RandomToken();
  std::unique_ptr<Store> store;
  if (const std::string& url = redis_url; !url.empty()) {
    absl::StatusOr<std::unique_ptr<Store>> opened = OpenStore(url);
    if (!opened.ok()) return Fail(opened.status(), absl::IsInvalidArgument(opened.status()) ? 2 : 1);
    store = std::move(*opened);
  }

  const BuiltinModels builtins = SimBuiltinModels();
  absl::StatusOr<std::unique_ptr<WorkerRuntime>> runtime =
      CreateWorkerRuntime(*args, *threads, store.get(), redis_url, &builtins);
  if (!runtime.ok()) return Fail(runtime.status(), 2);
  if (absl::Status usable = (*runtime)->CheckSweepModels(*config); !usable.ok()) return Fail(usable, 2);

  std::unique_ptr<Progress> progress;  // samples the coordinator below: Finish() it before any return after that
  CoordinatorOptions coordinator_options;
  coordinator_options.listen = "127.0.0.1:0";
  coordinator_options.out_dir = args->Get("out");
  coordinator_options.token = token;
  coordinator_options.correlate = *leaderboard;
  coordinator_options.linger = absl::Seconds(2);
  coordinator_options.store = store.get();
  coordinator_options.on_commit = [&progress](int64_t, bool) {
    if (progress) progress->Poke();
  };
  absl::StatusOr<std::unique_ptr<SweepCoordinator>> coordinator = SweepCoordinator::Start(*config, coordinator_options);
  if (!coordinator.ok()) return Fail(coordinator.status());
  SweepCoordinator& c = **coordinator;
  // `noveltygrid status --out DIR` finds this run's coordinator (and its token) through these files.
  RunEndpoint endpoint;
  endpoint.address = absl::StrCat("127.0.0.1:", c.port());
  endpoint.token = token;
  endpoint.sweep = config->name;
  absl::StatusOr<std::unique_ptr<RunFile>> run_file = RunFile::Create(coordinator_options.out_dir, endpoint);
  if (!run_file.ok()) return Fail(run_file.status());
  if (!quiet) {
    std::fprintf(stderr, "%s\n", PlanLine(c.plan_estimate()).c_str());
    std::fprintf(stderr, "noveltygrid run: sweep '%s', %lld units (%lld already done), %lld loops in flight\n",
                 config->name.c_str(), static_cast<long long>(c.units_total()),
                 static_cast<long long>(c.units_resumed()), static_cast<long long>(config->concurrency));
    // The worker is in this process: its calls waiting are read directly, not from its last heartbeat.
    progress = std::make_unique<Progress>(config->name, [&c, &runtime] {
      ProgressFigures figures = FiguresOf(c.Status());
      figures.calls = (*runtime)->Waits();
      return figures;
    });
  }

  WorkerOptions worker_options;
  worker_options.coordinator = absl::StrCat("127.0.0.1:", c.port());  // named in the worker's messages
  worker_options.token = token;
  worker_options.worker_id = "in-process";
  worker_options.log = false;
  worker_options.concurrency = config->concurrency;
  // Ctrl-C stops the in-process coordinator at once, so nothing finished later could be journaled:
  // no grace, calls ended, and units stuck behind a provider limit not waited for.
  worker_options.drain_grace = absl::ZeroDuration();
  worker_options.abandon_after = absl::Seconds(2);
  (*runtime)->Wire(worker_options);
  // The worker calls the coordinator directly; the gRPC server is there for `noveltygrid status --out`.
  InProcessCoordinatorClient client(c.core(), token);
  LeaseLoop worker(worker_options, &client, (*runtime)->executor(), (*runtime)->checkpoints());
  absl::Status worker_status;
  std::thread worker_thread([&] {
    worker_status = worker.Run();
    if (!worker_status.ok()) c.Shutdown();  // e.g. a refused key: nothing more can be done here
  });
  absl::StatusOr<int> failed;
  {
    SignalWatcher signals([&](int) {
      std::fprintf(stderr, "\nnoveltygrid run: stopping; finished units are kept in the journal, re-run to resume\n");
      worker.Drain();
      c.Shutdown();
    });
    failed = c.Wait();
  }
  worker.Drain();  // returns at once when the sweep is complete
  worker_thread.join();
  if (progress) progress->Finish();
  (*run_file)->Remove();
  if (worker.abandoned() > 0) {
    // Their callbacks may still run: end here, without destructors (the journal has every commit).
    if (!worker_status.ok()) Fail(worker_status);
    std::fflush(nullptr);
    std::_Exit(1);
  }
  if (!worker_status.ok()) {
    return Fail(absl::Status(
        worker_status.code(),
        absl::StrCat(worker_status.message(), "; units not done stay pending, re-run the same command to resume")));
  }
  if (absl::IsResourceExhausted(failed.status())) return Fail(failed.status(), kExitBudget);
  if (!failed.ok()) return Fail(failed.status());
  if (!quiet) std::fputs(c.LeaderboardText().c_str(), stdout);
  if (*failed > 0) {
    std::fprintf(stderr,
                 "noveltygrid run: %d unit(s) ended in an error (see \"error\" in %s/answers.jsonl or "
                 "samples.jsonl); re-run the same command to retry them. Why:\n",
                 *failed, coordinator_options.out_dir.c_str());
    std::fputs(c.FailureSummary().c_str(), stderr);
    return EndOfSweep(1);
  }
  return EndOfSweep(0);
}

}  // namespace noveltygrid::cli
