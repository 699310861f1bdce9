// coordinator_load: many fake workers against one real coordinator, to size the coordinator for a
// cluster (issue 18, item 3). See worker_book.h for what each worker does, callback_worker.h and
// fake_worker.h for the two ways its calls are made (--client), and bench/coordinator_load.sh for the
// setup (redis-server, `noveltygrid coordinator` on a large plan) and the table.
//
//   coordinator_load --coordinator HOST:PORT [--workers 50] [--loops 512] [--step-ms 200] [--iterations 15]
//                    [--client callback|sync] [--channels N]
//                    [--one-complete-per-rpc [--complete-senders N]] [--report-interval-ms 20]
//                    [--ramp-ms N] [--warmup-s 15] [--duration-s 60]
//                    [--coordinator-pid PID] [--coordinator-metrics HOST:PORT]
//                    [--redis-pid PID] [--json FILE]
//
// After the warm-up it measures for --duration-s, or until the plan runs dry (a Lease answered with fewer
// units than asked), whichever comes first: units committed per second, RPCs per second, client-side
// latency per call kind (p50 / p99 / max), and the CPU of the coordinator, Redis and this generator; with
// --coordinator-metrics, also the coordinator's own timing of the same calls (server_timing.h).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bench/coordinator_load/callback_worker.h"
#include "bench/coordinator_load/fake_worker.h"
#include "bench/coordinator_load/latency_recorder.h"
#include "bench/coordinator_load/proc_cpu.h"
#include "bench/coordinator_load/scheduler.h"
#include "bench/coordinator_load/server_timing.h"
#include "bench/coordinator_load/wakeup_probe.h"
#include "cli/args.h"
#include "nlohmann/json.hpp"
#include "proto/grpc_coordinator_client.h"

namespace noveltygrid::load {
namespace {

// Issue 18's target for the p99 of Lease, Report and Complete: the per-second figure counts the seconds
// over it.
constexpr int64_t kP99TargetUs = 50'000;

struct Totals {
  WorkerCounters sum;
  absl::Time at;
};

Totals Sum(const std::vector<std::shared_ptr<LoadWorker>>& workers) {
  Totals t;
  for (const auto& w : workers) {
    const WorkerCounters c = w->counters();
    t.sum.units_leased += c.units_leased;
    t.sum.units_committed += c.units_committed;
    t.sum.units_refused += c.units_refused;
    t.sum.steps_made += c.steps_made;
    t.sum.steps_reported += c.steps_reported;
    t.sum.short_leases += c.short_leases;
    t.sum.loops_running += c.loops_running;
    t.sum.completes_waiting += c.completes_waiting;
  }
  t.at = absl::Now();
  return t;
}

// Named processes whose CPU is measured over the window (pid 0: this generator).
struct Watched {
  std::string name;
  int pid = 0;
  absl::Duration start = absl::ZeroDuration();
  absl::Duration end = absl::ZeroDuration();
};

// A delay's summary, as a line and into `out[key]`.
void PrintDelay(const char* what, const char* key, const char* samples, const LatencySummary& s, nlohmann::json* out) {
  std::printf("%s: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %lld %s\n", what, s.p50_us / 1000.0, s.p99_us / 1000.0,
              s.max_us / 1000.0, static_cast<long long>(s.calls), samples);
  (*out)[key] = {
      {samples, s.calls}, {"p50_ms", s.p50_us / 1000.0}, {"p99_ms", s.p99_us / 1000.0}, {"max_ms", s.max_us / 1000.0}};
}

// The coordinator's own timing of the window's calls (the difference of two scrapes), as a table and
// into `out`; a failed scrape is said, not fatal.
void PrintServerTiming(const absl::StatusOr<ServerHistograms>& start, const absl::StatusOr<ServerHistograms>& end,
                       double window_s, nlohmann::json* out) {
  if (!start.ok() || !end.ok()) {
    std::printf("\nthe coordinator's timing: not read (%s)\n",
                std::string((start.ok() ? end : start).status().message()).c_str());
    return;
  }
  const double target_s = static_cast<double>(kP99TargetUs) / 1e6;
  const long long target_ms = kP99TargetUs / 1000;
  std::printf(
      "\nas the coordinator timed the window's calls (noveltygrid_rpc_duration_seconds, read just before and after "
      "the\nwindow; from a call's handler to its answer; p50 and p99 interpolated within buckets, the share within "
      "%lld "
      "ms\nexact):\n",
      static_cast<long long>(kP99TargetUs / 1000));
  std::printf("%-12s %9s %9s %9s %11s %lld ms\n", "rpc", "calls", "p50 ms", "p99 ms", "within", target_ms);
  const ServerHistograms window = Difference(*end, *start);
  for (const auto& [method, h] : window) {
    if (h.count <= 0 || absl::StartsWith(method, kCommitPrefix)) continue;
    const double p50 = Quantile(h, 0.5) * 1000;
    const double p99 = Quantile(h, 0.99) * 1000;
    const std::optional<double> within = ShareWithin(h, target_s);  // nullopt: the target is not a bucket bound
    std::printf("%-12s %9.0f %9.2f %9.2f %s\n", method.c_str(), h.count, p50, p99,
                within ? absl::StrFormat("%16.3f%%", *within * 100).c_str() : "  (not a bucket bound)");
    (*out)["server_rpc"][method] = {
        {"calls", h.count},
        {"p50_ms", p50},
        {"p99_ms", p99},
        {absl::StrCat("share_within_", target_ms, "ms"), within ? nlohmann::json(*within) : nlohmann::json(nullptr)}};
  }
  // The committers (noveltygrid_commit_{group,store}_seconds): how busy they were in the window, as
  // threads busy on average (two committers: up to 2), and how much of that went to writing to the store.
  const auto group = window.find(absl::StrCat(kCommitPrefix, "group"));
  const auto store = window.find(absl::StrCat(kCommitPrefix, "store"));
  if (group != window.end() && store != window.end() && group->second.count > 0 && window_s > 0) {
    const ServerHistogram& g = group->second;
    const ServerHistogram& st = store->second;
    double commit_calls = 0;  // Complete and CompleteMany calls the groups answered
    for (const char* method : {"Complete", "CompleteMany"}) {
      if (const auto it = window.find(method); it != window.end()) commit_calls += it->second.count;
    }
    std::printf(
        "the committers: %.0f groups (%.1f commit calls each), busy %.1f s in the %.1f s window (%.2f threads on "
        "average), %.1f s of it writing to the store; a group's p50 %.2f ms, p99 %.2f ms; the store's p99 %.2f ms\n",
        g.count, commit_calls / g.count, g.sum, window_s, g.sum / window_s, st.sum, Quantile(g, 0.5) * 1000,
        Quantile(g, 0.99) * 1000, Quantile(st, 0.99) * 1000);
    (*out)["server_committer"] = {{"groups", g.count},
                                  {"busy_s", g.sum},
                                  {"store_s", st.sum},
                                  {"group_p50_ms", Quantile(g, 0.5) * 1000},
                                  {"group_p99_ms", Quantile(g, 0.99) * 1000},
                                  {"store_p99_ms", Quantile(st, 0.99) * 1000}};
  }
}

int Main(int argc, char** argv) {
  const std::vector<cli::FlagSpec> flags = {
      {"coordinator", "HOST:PORT", "the coordinator to load (required)"},
      {"token", "TOKEN", "the shared token (default: $NOVELTYGRID_TOKEN)"},
      {"workers", "N", "fake workers (default 50)"},
      {"loops", "N", "loops in flight per worker (default 512)"},
      {"channels", "N", "gRPC clients the workers share, round robin (default: one per worker)"},
      {"client", "callback|sync",
       "how the workers make their calls: gRPC's callback API, no threads of their own (callback, the "
       "default), or blocking calls on three threads per worker, as noveltygrid worker (sync; the generator "
       "before 2026-12-07)"},
      {"step-ms", "MS", "one step per loop every MS (default 200)"},
      {"iterations", "N", "steps per unit, +-2 by unit id (default 15)"},
      {"answer-bytes", "N", "answer text per step (default 400)"},
      {"step-embeddings", "store|report",
       "how a step carries its embedding: left out and flagged, as noveltygrid worker --redis reports a step "
       "its checkpoint store took (store, the default since 2026-12-07), or in the step (report: a worker "
       "without a store, and every worker before)"},
      {"embedding-dim", "N",
       "with --step-embeddings report: floats per step's embedding (default 256, the lexical embedder's)"},
      {"one-complete-per-rpc", "",
       "with --client sync: commit with one Complete per unit (a worker from before CompleteMany)"},
      {"complete-senders", "N",
       "with --one-complete-per-rpc: 0 (default): each worker sends its Completes one at a time after its "
       "Report; N: N threads per worker send them, up to N in flight"},
      {"report-interval-ms", "MS",
       "a worker's rounds (Report, then CompleteMany) at most every MS, as noveltygrid worker's "
       "--report-interval-ms (default 20; 0: every 10 ms, the steps' tick)"},
      {"ramp-ms", "MS",
       "the workers join one after another over MS (default: one unit's length, iterations x step-ms, "
       "at most half the warm-up, so that their units complete spread over time, as in a cluster "
       "running for a while)"},
      {"warmup-s", "S", "seconds before the measured window (default 15)"},
      {"duration-s", "S", "the measured window at most (default 60)"},
      {"coordinator-pid", "PID", "measure this process's CPU as the coordinator's"},
      {"coordinator-metrics", "HOST:PORT",
       "the coordinator's --metrics-listen: also print its own timing of the calls over the window"},
      {"redis-pid", "PID", "measure this process's CPU as Redis's"},
      {"json", "FILE", "also write the figures as JSON"},
  };
  std::vector<std::string> args(argv + 1, argv + argc);
  int exit = 0;
  std::optional<cli::ParsedArgs> parsed = cli::ParseOrHelp(
      args, flags, "coordinator_load --coordinator HOST:PORT [flags]",
      "Fake workers (no model calls) against a real coordinator: units/s, RPCs/s, latency and CPU.",
      [](const std::string& message) {
        std::fprintf(stderr, "coordinator_load: %s\n", message.c_str());
        return 2;
      },
      &exit);
  if (!parsed.has_value()) return exit;
  auto get_int = [&](const char* name, long long fallback) {
    absl::StatusOr<long long> v = parsed->GetInt(name, fallback);
    if (!v.ok()) {
      std::fprintf(stderr, "coordinator_load: %s\n", std::string(v.status().message()).c_str());
      std::exit(2);
    }
    return *v;
  };
  const std::string address = parsed->Get("coordinator");
  if (address.empty()) {
    std::fprintf(stderr, "coordinator_load: --coordinator HOST:PORT is required\n");
    return 2;
  }
  const int n_workers = static_cast<int>(get_int("workers", 50));
  const int loops = static_cast<int>(get_int("loops", 512));
  const int n_channels = std::max(1, static_cast<int>(get_int("channels", n_workers)));
  const long long step_ms = get_int("step-ms", 200);
  if (step_ms <= 0) {
    std::fprintf(stderr, "coordinator_load: --step-ms must be > 0\n");
    return 2;
  }
  const absl::Duration step = absl::Milliseconds(step_ms);
  const int iterations = static_cast<int>(get_int("iterations", 15));
  const int complete_senders = static_cast<int>(get_int("complete-senders", 0));
  const long long round_ms = get_int("report-interval-ms", 20);
  if (round_ms < 0) {
    std::fprintf(stderr, "coordinator_load: --report-interval-ms must be >= 0\n");
    return 2;
  }
  const absl::Duration round_interval = absl::Milliseconds(round_ms);
  const bool complete_many = !parsed->Has("one-complete-per-rpc");
  const std::string client_kind = parsed->Has("client") ? parsed->Get("client") : "callback";
  if (client_kind != "callback" && client_kind != "sync") {
    std::fprintf(stderr, "coordinator_load: --client must be callback or sync, not \"%s\"\n", client_kind.c_str());
    return 2;
  }
  const bool callback = client_kind == "callback";
  if (callback && (!complete_many || complete_senders > 0)) {
    std::fprintf(stderr, "coordinator_load: --one-complete-per-rpc and --complete-senders need --client sync\n");
    return 2;
  }
  const absl::Duration warmup = absl::Seconds(get_int("warmup-s", 15));
  // By default one unit's length, and at most half the warm-up.
  const absl::Duration ramp = parsed->Has("ramp-ms") ? absl::Milliseconds(get_int("ramp-ms", 0))
                                                     : std::min(absl::Milliseconds(iterations * step_ms), warmup / 2);
  if (ramp < absl::ZeroDuration() || ramp >= warmup) {
    std::fprintf(stderr, "coordinator_load: --ramp-ms must be >= 0 and shorter than --warmup-s\n");
    return 2;
  }
  const absl::Duration duration = absl::Seconds(get_int("duration-s", 60));
  std::vector<Watched> watched;
  auto watch = [&watched](const char* name, int pid) {
    Watched& w = watched.emplace_back();
    w.name = name;
    w.pid = pid;
  };
  if (parsed->Has("coordinator-pid")) watch("coordinator", static_cast<int>(get_int("coordinator-pid", 0)));
  if (parsed->Has("redis-pid")) watch("redis", static_cast<int>(get_int("redis-pid", 0)));
  watch("generator", 0);

  // The coordinator's histograms, read once now (a wrong address is said before the run, not after it)
  // and at both ends of the window, just outside it (a scrape takes a few ms).
  const std::string metrics_address = parsed->Get("coordinator-metrics");
  auto scrape = [&metrics_address]() -> absl::StatusOr<ServerHistograms> {
    absl::StatusOr<std::string> page = ScrapeMetrics(metrics_address);
    if (!page.ok()) return page.status();
    return ParseServerHistograms(*page);
  };
  if (!metrics_address.empty()) {
    if (const absl::StatusOr<ServerHistograms> probe = scrape(); !probe.ok()) {
      std::fprintf(stderr, "coordinator_load: --coordinator-metrics: %s\n",
                   std::string(probe.status().message()).c_str());
      return 2;
    }
  }

  // Before the clients: requests reference its bytes (report_wire.h), and a channel may hold a request's
  // slices until it is destroyed.
  const std::string step_embeddings = parsed->Get("step-embeddings", "store");
  if (step_embeddings != "store" && step_embeddings != "report") {
    std::fprintf(stderr, "coordinator_load: --step-embeddings must be store or report, not '%s'\n",
                 step_embeddings.c_str());
    return 2;
  }
  const StepPool pool(256, static_cast<int>(get_int("answer-bytes", 400)),
                      static_cast<int>(get_int("embedding-dim", 256)), /*seed=*/18,
                      /*embedding_in_store=*/step_embeddings == "store");
  GrpcClientOptions client_options;
  client_options.address = address;
  client_options.token = parsed->GetOrEnv("token", "NOVELTYGRID_TOKEN");
  std::vector<std::unique_ptr<GrpcCoordinatorClient>> clients;
  for (int i = 0; i < n_channels; ++i) {
    absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> client = GrpcCoordinatorClient::Create(client_options);
    if (!client.ok()) {
      std::fprintf(stderr, "coordinator_load: %s\n", std::string(client.status().message()).c_str());
      return 1;
    }
    clients.push_back(*std::move(client));
  }
  LatencyRecorder recorder;
  // The callback workers' clock. Declared after what the workers use (the clients, the recorder, the
  // pool), so that its tasks, which hold workers, go before those.
  std::vector<std::shared_ptr<LoadWorker>> workers;
  Scheduler scheduler;
  for (int i = 0; i < n_workers; ++i) {
    FakeWorkerOptions o{.worker_id = absl::StrCat("load-", i),
                        .loops = loops,
                        .step_interval = step,
                        .iterations = iterations,
                        .round_interval = round_interval,
                        .complete_many = complete_many,
                        .complete_senders = complete_senders};
    GrpcCoordinatorClient* client = clients[i % n_channels].get();
    if (callback) {
      workers.push_back(CallbackWorker::Create(o, client, &recorder, &pool, &scheduler));
    } else {
      workers.push_back(std::make_shared<FakeWorker>(o, client, &recorder, &pool));
    }
  }
  // Workers join one after another over the ramp. All at once (or within one step interval, as until
  // 2026-12-06), every loop starts in the same 200 ms and their units complete in waves: tens of
  // thousands of commits in the same second, again every unit's length, until the units' different
  // lengths spread them out, many units later.
  WakeupProbe probe;  // how late the generator's own threads run (wakeup_probe.h)
  probe.Start();
  const absl::Time started = absl::Now();
  for (int i = 0; i < n_workers; ++i) {
    workers[i]->Start();
    absl::SleepFor(ramp / n_workers);
  }
  absl::SleepFor(warmup - (absl::Now() - started));

  auto cpu_now = [](const Watched& w) {
    absl::StatusOr<absl::Duration> cpu = ProcessCpu(w.pid);
    return cpu.ok() ? *cpu : absl::ZeroDuration();
  };
  absl::StatusOr<ServerHistograms> server_start = absl::NotFoundError("no --coordinator-metrics");
  if (!metrics_address.empty()) server_start = scrape();
  for (Watched& w : watched) w.start = cpu_now(w);
  const absl::StatusOr<MachineCpu> machine_start = ReadMachineCpu();
  const Totals first = Sum(workers);
  recorder.SetRecording(true);
  probe.SetRecording(true);
  scheduler.SetRecording(true);
  std::vector<double> coordinator_cpu_per_second;
  absl::Duration last_cpu = watched.front().start;
  const absl::Time window_end = first.at + duration;
  bool ran_dry = false;
  int ticks = 0;
  while (absl::Now() < window_end) {
    absl::SleepFor(std::min(absl::Seconds(1), window_end - absl::Now()));
    const Totals now = Sum(workers);
    if (watched.front().pid != 0) {
      const absl::Duration cpu = cpu_now(watched.front());
      coordinator_cpu_per_second.push_back(absl::ToDoubleSeconds(cpu - last_cpu));
      last_cpu = cpu;
    }
    if (++ticks % 5 == 0)
      std::fprintf(stderr, "  %4.0f s: %lld units committed, %lld loops running, %lld results waiting to be sent\n",
                   absl::ToDoubleSeconds(now.at - first.at),
                   static_cast<long long>(now.sum.units_committed - first.sum.units_committed),
                   static_cast<long long>(now.sum.loops_running), static_cast<long long>(now.sum.completes_waiting));
    if (now.sum.short_leases > first.sum.short_leases) {
      ran_dry = true;  // the plan runs out: the load falls from here on
      break;
    }
  }
  recorder.SetRecording(false);
  probe.SetRecording(false);
  scheduler.SetRecording(false);
  const Totals last = Sum(workers);
  for (Watched& w : watched) w.end = cpu_now(w);
  const absl::StatusOr<MachineCpu> machine_end = ReadMachineCpu();
  absl::StatusOr<ServerHistograms> server_end = absl::NotFoundError("no --coordinator-metrics");
  if (!metrics_address.empty()) server_end = scrape();
  const double seconds = absl::ToDoubleSeconds(last.at - first.at);
  for (auto& w : workers) w->Stop();
  probe.Stop();

  const double units_per_s = static_cast<double>(last.sum.units_committed - first.sum.units_committed) / seconds;
  const double offered = n_workers * loops / (iterations * absl::ToDoubleSeconds(step));
  nlohmann::json out = {
      {"workers", n_workers},
      {"loops_per_worker", loops},
      {"channels", n_channels},
      {"client", client_kind},
      {"step_ms", absl::ToInt64Milliseconds(step)},
      {"iterations", iterations},
      {"window_s", seconds},
      {"ran_dry", ran_dry},
      {"offered_units_per_s", offered},
      {"units_per_s", units_per_s},
      {"steps_reported_per_s", static_cast<double>(last.sum.steps_reported - first.sum.steps_reported) / seconds},
      {"loops_running_end", last.sum.loops_running},
      {"results_waiting_start", first.sum.completes_waiting},
      {"results_waiting_end", last.sum.completes_waiting},
      {"units_refused", last.sum.units_refused - first.sum.units_refused},
      {"coordinator_cpu_per_second", coordinator_cpu_per_second},
      {"step_embeddings", step_embeddings}};
  std::printf(
      "%d workers x %d loops (%d loops), a step every %lld ms, ~%d steps per unit; %d gRPC channel(s), %s calls\n",
      n_workers, loops, n_workers * loops, static_cast<long long>(absl::ToInt64Milliseconds(step)), iterations,
      n_channels, callback ? "callback-API" : "blocking");
  std::printf(
      "steps: %zu bytes each on the wire (answer_num and novelty aside), %s\n", pool.FixedStep(0).size(),
      step_embeddings == "store" ? "the embedding left to the worker's checkpoint store" : "the embedding in the step");
  if (complete_many) {
    std::printf(
        "commits: one CompleteMany per worker round, after its Report, rounds at most every %lld ms (as "
        "noveltygrid worker sends them)\n",
        static_cast<long long>(absl::ToInt64Milliseconds(round_interval)));
  } else if (complete_senders == 0) {
    std::printf("Completes: one at a time per worker, after each Report (a worker from before CompleteMany)\n");
  } else {
    std::printf("Completes: up to %d in flight per worker (--complete-senders)\n", complete_senders);
  }
  std::printf("window %.1f s%s: %.0f units/s committed (offered %.0f: %.2f), %.0f steps/s reported\n", seconds,
              ran_dry ? " (ended early: the plan ran dry)" : "", units_per_s, offered, units_per_s / offered,
              out["steps_reported_per_s"].get<double>());
  std::printf("loops running at the end %lld; results waiting to be sent: %lld at the start, %lld at the end\n",
              static_cast<long long>(last.sum.loops_running), static_cast<long long>(first.sum.completes_waiting),
              static_cast<long long>(last.sum.completes_waiting));
  std::printf("\n%-10s %9s %9s %7s %9s %9s %9s\n", "rpc", "calls", "per s", "errors", "p50 ms", "p99 ms", "max ms");
  int64_t calls = 0;
  for (int k = 0; k < kRpcKinds; ++k) {
    const LatencySummary s = recorder.Summarize(static_cast<Rpc>(k));
    calls += s.calls;
    std::printf("%-10s %9lld %9.0f %7lld %9.2f %9.2f %9.2f\n", RpcName(static_cast<Rpc>(k)),
                static_cast<long long>(s.calls), s.calls / seconds, static_cast<long long>(s.errors), s.p50_us / 1000.0,
                s.p99_us / 1000.0, s.max_us / 1000.0);
    out["rpc"][RpcName(static_cast<Rpc>(k))] = {{"calls", s.calls},
                                                {"per_s", s.calls / seconds},
                                                {"errors", s.errors},
                                                {"p50_ms", s.p50_us / 1000.0},
                                                {"p99_ms", s.p99_us / 1000.0},
                                                {"max_ms", s.max_us / 1000.0}};
  }
  std::printf("%-10s %9lld %9.0f\n\nCPU over the window (cores):", "all", static_cast<long long>(calls),
              calls / seconds);
  out["rpcs_per_s"] = calls / seconds;
  for (const Watched& w : watched) {
    const double cores = absl::ToDoubleSeconds(w.end - w.start) / seconds;
    std::printf(" %s %.2f", w.name.c_str(), cores);
    out["cpu_cores"][w.name] = cores;
  }
  if (machine_start.ok() && machine_end.ok()) {
    // The whole machine: how near its cpus were to full, and whether the hypervisor took cpu time away
    // (steal). /proc/stat counts whole ticks, so busy reads ~0.02 cores below the processes' sum above.
    const double busy = absl::ToDoubleSeconds(machine_end->busy - machine_start->busy) / seconds;
    const double steal = absl::ToDoubleSeconds(machine_end->steal - machine_start->steal) / seconds;
    std::printf("; machine busy %.2f of %ld, steal %.2f", busy, ::sysconf(_SC_NPROCESSORS_ONLN), steal);
    out["machine_cores"] = {{"busy", busy}, {"steal", steal}};
  }
  std::printf("\n");
  // Whole seconds of the window; one in which no call ended (-1) was a stall: the worst kind of second.
  const std::vector<int64_t> p99_by_second = recorder.P99BySecondUs();
  if (!p99_by_second.empty()) {
    std::vector<int64_t> sorted = p99_by_second;
    for (int64_t& us : sorted) us = us < 0 ? std::numeric_limits<int64_t>::max() : us;
    std::sort(sorted.begin(), sorted.end());
    const auto over = std::count_if(sorted.begin(), sorted.end(), [](int64_t us) { return us > kP99TargetUs; });
    auto ms = [](int64_t us) {
      return us == std::numeric_limits<int64_t>::max() ? std::string("none ended")
                                                       : absl::StrFormat("%.1f ms", us / 1000.0);
    };
    std::printf("p99 of all calls per second of the window: median %s, worst %s; over %lld ms in %lld of %zu s\n",
                ms(sorted[sorted.size() / 2]).c_str(), ms(sorted.back()).c_str(),
                static_cast<long long>(kP99TargetUs / 1000), static_cast<long long>(over), sorted.size());
    out["p99_ms_by_second"] = nlohmann::json::array();
    for (int64_t us : p99_by_second) {
      out["p99_ms_by_second"].push_back(us < 0 ? nlohmann::json(nullptr) : nlohmann::json(us / 1000.0));
    }
  }
  // The generator's own wake-ups: what of a client-side latency may be the generator waiting for a core;
  // and, with callback workers, how late their rounds, heartbeats and pauses started.
  PrintDelay("the generator's wake-up delay (a thread of it sleeping 1 ms at a time, by how much each sleep overran)",
             "generator_wakeup_delay", "sleeps", probe.Summarize(), &out);
  if (callback) {
    PrintDelay("the callback workers' scheduler (by how much each round, heartbeat or pause started after its time)",
               "scheduler_lateness", "tasks", scheduler.Lateness(), &out);
  }
  if (!metrics_address.empty()) PrintServerTiming(server_start, server_end, seconds, &out);
  if (parsed->Has("json")) std::ofstream(parsed->Get("json")) << out.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace noveltygrid::load

int main(int argc, char** argv) {
  // As noveltygrid's main (cli/main.cc): Debian's Abseil would keep a global deadlock graph on every
  // lock, and fifty fake workers lock their state thousands of times a second.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return noveltygrid::load::Main(argc, argv);
}
