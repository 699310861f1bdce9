// `noveltygrid run`: plan the sweep, execute every unit with a bounded number of loops in flight,
// commit each finished unit to the journal and the reducer, then write the results folder.
#include "cli/run_command.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "cli/args.h"
#include "cli/progress.h"
#include "common/config.h"
#include "common/executor.h"
#include "coordinator/plan/planner.h"
#include "coordinator/reduce/aidan_reducer.h"
#include "coordinator/report/leaderboard.h"
#include "coordinator/report/results_writer.h"
#include "coordinator/state/journal.h"
#include "worker/model_registry.h"
#include "worker/unit_executor.h"

namespace noveltygrid::cli {
namespace {

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"out", "DIR", "results folder (created; re-running into it resumes)"},
      {"seed", "N", "override the config's seed"},
      {"concurrency", "N", "override the config's number of loops in flight"},
      {"threads", "N", "worker threads (default: number of cores)"},
      {"redis", "URL", "Redis for caches and checkpoints (not available yet: issue 4)"},
      {"quiet", "", "no progress and no leaderboard on the terminal"},
  };
  return *flags;
}

// Executes pending units with at most `concurrency` in flight; blocks until all are done.
class LocalSweep {
 public:
  LocalSweep(UnitExecutor* executor, std::shared_ptr<const AidanSettings> settings, AidanReducer* reducer,
             ResultJournal* journal, Progress* progress, int concurrency)
      : executor_(executor),
        settings_(std::move(settings)),
        reducer_(reducer),
        journal_(journal),
        progress_(progress),
        concurrency_(std::max(1, concurrency)) {}

  // Returns the number of units that ended in an error (model failure, unparseable judge) and the first
  // journal write error, if any.
  absl::StatusOr<int> Run(std::vector<UnitSpec> units) {
    {
      absl::MutexLock lock(&mu_);
      pending_.assign(std::make_move_iterator(units.begin()), std::make_move_iterator(units.end()));
      remaining_ = static_cast<int>(pending_.size());
    }
    StartMore();
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int* remaining) { return *remaining == 0; }, &remaining_));
    if (!journal_status_.ok()) return journal_status_;
    return failed_;
  }

 private:
  void StartMore() {
    while (true) {
      UnitSpec unit;
      {
        absl::MutexLock lock(&mu_);
        if (pending_.empty() || in_flight_ >= concurrency_) return;
        unit = std::move(pending_.front());
        pending_.pop_front();
        ++in_flight_;
      }
      executor_->RunAidan(settings_, std::move(unit), {}, nullptr,
                          [this](AidanUnitResult result, CallStats calls) { Done(std::move(result), calls); });
    }
  }

  void Done(AidanUnitResult result, const CallStats& calls) {
    const bool failed = result.stop_reason == kStopError;
    const int64_t answers = static_cast<int64_t>(result.answers.size());
    // A failed unit is reported but not journaled, so re-running the sweep tries it again.
    absl::Status journaled = failed ? absl::OkStatus() : journal_->Append(result, calls);
    reducer_->Add(std::move(result), calls);
    progress_->UnitDone(answers, failed);
    {
      absl::MutexLock lock(&mu_);
      --in_flight_;
      if (failed) ++failed_;
      if (!journaled.ok() && journal_status_.ok()) journal_status_ = journaled;
    }
    StartMore();
    absl::MutexLock lock(&mu_);
    --remaining_;
  }

  UnitExecutor* const executor_;
  const std::shared_ptr<const AidanSettings> settings_;
  AidanReducer* const reducer_;
  ResultJournal* const journal_;
  Progress* const progress_;
  const int concurrency_;

  absl::Mutex mu_;
  std::deque<UnitSpec> pending_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int remaining_ ABSL_GUARDED_BY(mu_) = 0;
  int failed_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status journal_status_ ABSL_GUARDED_BY(mu_);
};

int Fail(const absl::Status& status, int code = 1) {
  std::fprintf(stderr, "noveltygrid run: %s\n", std::string(status.message()).c_str());
  return code;
}

}  // namespace

int RunRunCommand(const std::vector<std::string>& raw_args) {
  const std::string usage = "run CONFIG.yaml --out DIR [--seed N] [--concurrency N]";
  const std::string summary =
      "Runs every unit of the sweep in this process and writes answers.jsonl, summary.json and\n"
      "leaderboard.txt to DIR. The same config and seed give byte-identical results files.";
  absl::StatusOr<ParsedArgs> args = ParseArgs(raw_args, Flags());
  if (!args.ok()) return Fail(args.status(), 2);
  if (args->help) {
    std::fputs(HelpText(usage, summary, Flags()).c_str(), stdout);
    return 0;
  }
  if (args->positional.size() != 1 || !args->Has("out")) {
    std::fprintf(stderr, "%s", HelpText(usage, summary, Flags()).c_str());
    return 2;
  }
  if (args->Has("redis")) {
    return Fail(absl::UnimplementedError("--redis is not available yet (Redis caches and checkpoints arrive "
                                         "with issue 4); run without it"),
                2);
  }
  absl::StatusOr<SweepConfig> config = LoadSweepConfig(args->positional[0]);
  if (!config.ok()) return Fail(config.status(), 2);
  absl::StatusOr<long long> seed = args->GetInt("seed", static_cast<long long>(config->seed));
  absl::StatusOr<long long> concurrency = args->GetInt("concurrency", config->concurrency);
  absl::StatusOr<long long> threads =
      args->GetInt("threads", std::max(2u, std::thread::hardware_concurrency()));
  for (const auto* v : {&seed, &concurrency, &threads}) {
    if (!v->ok()) return Fail(v->status(), 2);
  }
  if (*seed < 0 || *concurrency < 1 || *threads < 1) {
    return Fail(absl::InvalidArgumentError("--seed must be >= 0, --concurrency and --threads >= 1"), 2);
  }
  config->seed = static_cast<uint64_t>(*seed);
  const bool quiet = args->Has("quiet");
  const std::string out = args->Get("out");

  const Plan plan = PlanSweep(*config);
  std::vector<JournalEntry> committed;
  absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(out, plan.fingerprint, &committed);
  if (!journal.ok()) return Fail(journal.status());

  AidanReducer reducer(plan.aidan.preset, plan.models, plan.aidan_temperatures);
  for (JournalEntry& entry : committed) reducer.Add(std::move(entry.result), entry.calls);
  std::vector<UnitSpec> todo;
  for (const UnitSpec& unit : plan.units) {
    if (!reducer.Contains(unit.id)) todo.push_back(unit);
  }
  if (!quiet) {
    std::fprintf(stderr, "noveltygrid run: sweep '%s', %zu units (%zu already done), %lld loops in flight\n",
                 config->name.c_str(), plan.units.size(), plan.units.size() - todo.size(), *concurrency);
  }

  const auto started = std::chrono::steady_clock::now();
  Progress progress(config->name, static_cast<int64_t>(plan.units.size()),
                    static_cast<int64_t>(plan.units.size() - todo.size()));
  absl::StatusOr<int> failed = 0;
  {
    // Destroyed in reverse order: the pool joins its threads (so every callback has returned) before
    // the sweep whose state those callbacks touch goes away.
    std::unique_ptr<LocalSweep> sweep;
    ThreadPool pool(static_cast<int>(*threads));
    ModelRegistry models(ModelContext{&pool});
    UnitExecutor executor(&models);
    sweep = std::make_unique<LocalSweep>(&executor, std::make_shared<const AidanSettings>(plan.aidan), &reducer,
                                         journal->get(), &progress, static_cast<int>(*concurrency));
    failed = sweep->Run(std::move(todo));
  }
  if (!quiet) progress.Finish();
  if (!failed.ok()) return Fail(failed.status());
  reducer.SetRunInfo(Json{{"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()},
                          {"units", plan.units.size()},
                          {"units_resumed", committed.size()},
                          {"concurrency", *concurrency}});

  ResultsOptions options;
  options.simulated_models = SimulatedModelIds(plan.models, {plan.aidan.judge, plan.aidan.embedder});
  AidanSnapshot snapshot = reducer.Snapshot();
  absl::Status written = WriteResultsFolder(out, snapshot, options);
  if (!written.ok()) return Fail(written);
  if (!quiet) std::fputs(FormatLeaderboard(snapshot, options).c_str(), stdout);
  if (*failed > 0) {
    std::fprintf(stderr,
                 "noveltygrid run: %d unit(s) ended in an error (see \"error\" in %s/answers.jsonl and the "
                 "questions table of summary.json); re-run the same command to retry them\n",
                 *failed, out.c_str());
    return 1;
  }
  return 0;
}

}  // namespace noveltygrid::cli
