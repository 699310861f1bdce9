#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/noveltybench_flags.h"
#include "common/config.h"
#include "common/cpu_budget.h"
#include "common/executor.h"
#include "common/noveltybench/partitioners.h"
#include "common/noveltybench/prompts.h"
#include "common/noveltybench/rows.h"
#include "common/settings_proto.h"
#include "common/storage/store_factory.h"
#include "common/unit_settings.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/model_registry.h"
#include "worker/models/provider_hub.h"
#include "worker/partition/async_partition.h"
#include "worker/partition/equivalence_decider.h"
#include "worker/sim/sim_models.h"

namespace noveltygrid::cli {
namespace {

constexpr char kUsage[] =
    "repartition FILE.jsonl --out DIR [--partitioner NAME] [--config CONFIG.yaml] [--threshold T] [--redis URL] "
    "[--patience P] [--temperature T]";
constexpr char kSummary[] =
    "Re-partitions recorded NoveltyBench generations (a reference scores.jsonl or a samples.jsonl)\n"
    "without generating again, and writes the results folder: samples.jsonl, summary.json,\n"
    "leaderboard.txt, and agreement.json -- precision, recall and F1 over same-class pairs of the new\n"
    "partitions against the recorded ones, micro-averaged over all rows, and both mean distincts.\n"
    "Utility is recomputed from the recorded quality under the new partition; a generation that opens\n"
    "a class only under the new partition was never scored, so it takes its recorded class's quality\n"
    "(listed in \"quality_imputed\").\n"
    "\n"
    "Partitioners: unigram (ROUGE-1 F > threshold, default 0.458; offline, needs no config).\n"
    "classifier, embedding, llm and llm-groups (one judge call per row, classing all its generations)\n"
    "ask a model: give --config, a sweep config whose noveltybench: section sets partitioner, threshold,\n"
    "partition_model and (llm, llm-groups) the judge's prompts file, and whose\n"
    "providers: say how to reach the model (keys from the environment, provider limits as in a sweep;\n"
    "the config's models, temperatures and datasets are not used). --partitioner may then be omitted,\n"
    "or must name the config's. With --redis (default $NOVELTYGRID_REDIS_URL) the partitioner's raw\n"
    "scores go through the equivalence cache sweeps share: a pair asked before is not asked again.\n"
    "Every partitioner decides texts of at most five words by the short-text rule first.";

// Rows partitioned at once by a model-backed partitioner (each has at most one batch in flight).
constexpr int kRowsInFlight = 32;
// Files with at least this many rows report progress every tenth of the rows.
constexpr int kProgressMinRows = 50;

std::vector<FlagSpec> Flags() {
  std::vector<FlagSpec> flags = {
      {"partitioner", "NAME", "unigram, classifier, embedding, llm or llm-groups (all but unigram need --config)"},
      {"config", "CONFIG.yaml", "sweep config whose noveltybench: and providers: give the partitioner and its model"},
      {"out", "DIR", "results folder to write (created if missing)"},
      {"threshold", "T", "equivalent when the score > T, in [0, 1] (default: unigram 0.458, else the config's)"},
      {"redis", "URL",
       "redis://[:password@]host:port[/db]: the shared equivalence cache and provider limits (model\n"
       "                             partitioners; default $NOVELTYGRID_REDIS_URL)"},
  };
  for (FlagSpec& f : NoveltySourceFlags()) flags.push_back(std::move(f));
  return flags;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "noveltygrid repartition: %s\nUsage: noveltygrid %s (see --help)\n", message.c_str(), kUsage);
  return 2;
}

// The partitioner the flags and the config choose: an offline one, built, or a model-backed one's
// settings.
struct Choice {
  std::optional<noveltybench::OfflinePartitioner> offline;
  std::optional<NoveltySettings> settings;  // model-backed: the config's noveltybench settings
};

absl::StatusOr<Choice> Offline(const std::string& partitioner, std::optional<double> threshold) {
  absl::StatusOr<noveltybench::OfflinePartitioner> offline =
      noveltybench::MakeOfflinePartitioner(partitioner, threshold);
  if (!offline.ok()) return offline.status();
  Choice choice;
  choice.offline = *std::move(offline);
  return choice;
}

// InvalidArgument with the message for the user (every problem here is bad usage).
absl::StatusOr<Choice> ChoosePartitioner(const ParsedArgs& args) {
  const std::string partitioner = args.Get("partitioner");
  std::optional<double> threshold;
  if (args.Has("threshold")) {
    double t = 0;
    if (!absl::SimpleAtod(args.Get("threshold"), &t) || !std::isfinite(t)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--threshold expects a number, got '", args.Get("threshold"), "'"));
    }
    threshold = t;
  }
  if (!args.Has("config")) {
    if (partitioner.empty()) {
      return absl::InvalidArgumentError("--partitioner NAME is required (e.g. unigram), or --config CONFIG.yaml");
    }
    if (noveltybench::PartitionerNeedsModel(partitioner)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "partitioner '", partitioner, "' needs a model endpoint: give --config CONFIG.yaml, a sweep config ",
          "whose noveltybench: section names the partitioner and its partition_model"));
    }
    return Offline(partitioner, threshold);
  }
  const std::string path = args.Get("config");
  absl::StatusOr<SweepConfig> config = LoadSweepConfig(path);
  if (!config.ok()) return absl::InvalidArgumentError(config.status().message());
  if (!config->noveltybench.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " has no noveltybench: section; repartition takes the partitioner, its threshold and ",
                     "partition_model from it"));
  }
  NoveltySettings settings = MakeNoveltySettings(*config);
  if (!partitioner.empty() && partitioner != settings.partitioner()) {
    return absl::InvalidArgumentError(absl::StrCat("--partitioner ", partitioner,
                                                   " does not match noveltybench.partitioner '", settings.partitioner(),
                                                   "' in ", path, "; omit --partitioner or change the config"));
  }
  if (!noveltybench::PartitionerNeedsModel(settings.partitioner()))
    return Offline(settings.partitioner(), threshold.value_or(settings.threshold()));
  if (threshold.has_value()) {
    if (settings.partitioner() == kPartitionerLlmGroups) {
      return absl::InvalidArgumentError("--threshold does not apply to llm-groups: the judge names the classes");
    }
    if (*threshold < 0 || *threshold > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("threshold ", *threshold, " for ", settings.partitioner(), " is outside [0, 1]"));
    }
    settings.set_threshold(*threshold);
  }
  Choice choice;
  choice.settings = std::move(settings);
  return choice;
}

// The partitioner's model and what it needs to run, assembled as a worker's WorkerRuntime assembles
// them (provider hub: HTTP endpoints, keys from the environment, provider limits shared through
// Redis; the model registry builds the model), plus the equivalence cache when there is a store.
// Destruction stops delivering replies, drains the pool, then drops the decider and the models
// before the provider channels they point into.
class PartitionerRuntime {
 public:
  // `store` (optional, not owned) must outlive the runtime. Errors: the model cannot be built here
  // (unknown id, a provider key that is not set, ...).
  static absl::StatusOr<std::unique_ptr<PartitionerRuntime>> Create(const NoveltySettings& settings, Store* store,
                                                                    const std::string& redis_url) {
    std::unique_ptr<PartitionerRuntime> r(new PartitionerRuntime());
    if (store != nullptr) r->cache_ = std::make_unique<EquivalenceCache>(store);
    r->pool_ = std::make_unique<ThreadPool>(DefaultPoolThreads(store != nullptr));
    // Provider limits are shared through Redis only (not through the in-memory store).
    const std::string limits_url = absl::StartsWith(redis_url, "redis") ? redis_url : "";
    ProviderHubOptions hub;
    hub.executor = r->pool_.get();
    hub.redis_url = limits_url;
    r->providers_ = std::make_unique<ProviderHub>(std::move(hub));
    r->models_ = std::make_unique<ModelRegistry>(ModelContext{r->pool_.get(), r->providers_.get(), &r->builtins_});

    const std::string& id = settings.partition_model();
    const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(settings.endpoints());
    const ModelEndpoint* endpoint = FindEndpoint(endpoints, id);
    DeciderOptions options;
    options.partitioner = settings.partitioner();
    options.threshold = settings.threshold();
    const noveltybench::NoveltyPrompts defaults = noveltybench::DefaultNoveltyPrompts();
    options.equivalence_judge =
        settings.equivalence_prompt().empty() ? defaults.equivalence_judge : settings.equivalence_prompt();
    options.groups_judge = settings.groups_prompt().empty() ? defaults.groups_judge : settings.groups_prompt();
    options.seed = settings.seed();
    absl::Status built;
    auto take = [&built](auto made, auto*& into) {
      if (made.ok()) {
        into = *made;
      } else {
        built = made.status();
      }
    };
    if (settings.partitioner() == kPartitionerClassifier)
      take(r->models_->Classifier(id, endpoint), options.classifier);
    if (settings.partitioner() == kPartitionerEmbedding) take(r->models_->Embedding(id, endpoint), options.embedder);
    if (noveltybench::PartitionerUsesJudge(settings.partitioner())) take(r->models_->Chat(id, endpoint), options.judge);
    if (!built.ok()) return built;
    absl::StatusOr<std::unique_ptr<EquivalenceDecider>> decider = MakeEquivalenceDecider(options);
    if (!decider.ok()) return decider.status();
    r->decider_ = std::move(*decider);
    return r;
  }

  ~PartitionerRuntime() {
    if (providers_) providers_->Close();
    pool_.reset();
    decider_.reset();
    models_.reset();
    providers_.reset();
  }

  EquivalenceDecider* decider() { return decider_.get(); }
  EquivalenceCache* cache() { return cache_.get(); }  // null without a store

 private:
  PartitionerRuntime() = default;

  std::unique_ptr<EquivalenceCache> cache_;
  std::unique_ptr<ProviderHub> providers_;
  const BuiltinModels builtins_ = SimBuiltinModels();  // the simulated family, for "sim:..." ids
  std::unique_ptr<ModelRegistry> models_;
  std::unique_ptr<EquivalenceDecider> decider_;
  std::unique_ptr<ThreadPool> pool_;
};

// The rows in flight and what came back. Shared with the callbacks, so the last of them may still be
// returning when the waiting thread moves on.
struct PartitionRun {
  explicit PartitionRun(size_t rows) : partitions(rows) {}
  bool HasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return in_flight < kRowsInFlight; }
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return in_flight == 0; }

  absl::Mutex mu;
  int in_flight ABSL_GUARDED_BY(mu) = 0;
  int done ABSL_GUARDED_BY(mu) = 0;
  bool failed ABSL_GUARDED_BY(mu) = false;
  std::vector<std::optional<absl::StatusOr<std::vector<int>>>> partitions ABSL_GUARDED_BY(mu);
  CallStats calls ABSL_GUARDED_BY(mu);
};

std::string CallsLine(const CallStats& calls) {
  std::string line;
  for (const auto& [key, c] : calls) {
    absl::StrAppend(&line, line.empty() ? "" : "; ", key, ": ", c.requests, " requests, ", c.cache_hits,
                    " cache hits, ", c.errors, " errors");
  }
  return line.empty() ? "no model calls" : line;
}

// Every row's partition from the runtime's decider, kRowsInFlight rows at a time; blocks until the
// last reply. After the first failure no new row starts; the error names the first failed row in
// file order and what the partitioner said.
absl::StatusOr<std::vector<std::vector<int>>> PartitionWithModel(const std::vector<noveltybench::NoveltyRow>& rows,
                                                                 PartitionerRuntime& runtime) {
  EquivalenceDecider* decider = runtime.decider();
  const int total = static_cast<int>(rows.size());
  const int progress_step = total >= kProgressMinRows ? (total + 9) / 10 : 0;
  const std::string threshold =
      decider->classes_at_once() ? "one call per row" : absl::StrFormat("threshold %g", decider->threshold());
  std::fprintf(stderr, "noveltygrid repartition: partitioning %d rows with %s %s (%s), %d at a time\n", total,
               decider->kind().c_str(), decider->name().c_str(), threshold.c_str(), kRowsInFlight);
  auto run = std::make_shared<PartitionRun>(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    {
      absl::MutexLock lock(&run->mu);
      run->mu.Await(absl::Condition(run.get(), &PartitionRun::HasRoom));
      if (run->failed) break;
      ++run->in_flight;
    }
    PartitionAsync(rows[i].prompt, rows[i].generations, decider, runtime.cache(),
                   [run, i, total, progress_step](PartitionOutcome outcome) {
                     absl::MutexLock lock(&run->mu);
                     if (!outcome.partition.ok()) run->failed = true;
                     run->partitions[i] = std::move(outcome.partition);
                     MergeCallStats(outcome.calls, run->calls);
                     ++run->done;
                     --run->in_flight;
                     if (progress_step > 0 && (run->done % progress_step == 0 || run->done == total)) {
                       std::fprintf(stderr, "noveltygrid repartition: %d/%d rows partitioned\n", run->done, total);
                     }
                   });
  }
  absl::MutexLock lock(&run->mu);
  run->mu.Await(absl::Condition(run.get(), &PartitionRun::Idle));
  std::fprintf(stderr, "noveltygrid repartition: %s\n", CallsLine(run->calls).c_str());
  std::vector<std::vector<int>> partitions;
  partitions.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::optional<absl::StatusOr<std::vector<int>>>& partition = run->partitions[i];
    if (!partition.has_value()) continue;  // not started after a failure: the failure is reported below
    if (!partition->ok()) {
      return absl::Status(partition->status().code(),
                          absl::StrCat(rows[i].where, ": partitioner ", decider->kind(), " (", decider->name(),
                                       ") failed: ", partition->status().message()));
    }
    partitions.push_back(*std::move(*partition));
  }
  return partitions;
}

// The store behind the equivalence cache (null without a Redis URL) and the partitioner's model.
struct ModelSetup {
  std::unique_ptr<Store> store;
  std::unique_ptr<PartitionerRuntime> runtime;  // declared after the store: destroyed first
};

// 0, or the exit code with the message printed: 2 for a bad URL or a model that cannot be built from
// the config, 1 for Redis unreachable.
int SetUpModel(const NoveltySettings& settings, const std::string& redis_url, ModelSetup& setup) {
  auto fail = [](const absl::Status& status, int code) {
    std::fprintf(stderr, "noveltygrid repartition: %s\n", std::string(status.message()).c_str());
    return code;
  };
  if (!redis_url.empty()) {
    absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(redis_url);
    if (!store.ok()) return fail(store.status(), absl::IsInvalidArgument(store.status()) ? 2 : 1);
    setup.store = std::move(*store);
  }
  absl::StatusOr<std::unique_ptr<PartitionerRuntime>> runtime =
      PartitionerRuntime::Create(settings, setup.store.get(), redis_url);
  if (!runtime.ok()) return fail(runtime.status(), 2);
  setup.runtime = std::move(*runtime);
  return 0;
}

}  // namespace

int RunRepartitionCommand(const std::vector<std::string>& args) {
  int exit = 0;
  const std::optional<ParsedArgs> parsed = ParseOrHelp(args, Flags(), kUsage, kSummary, UsageError, &exit);
  if (!parsed) return exit;
  if (parsed->positional.size() != 1) return UsageError("expected exactly one FILE.jsonl");
  if (parsed->Get("out").empty()) return UsageError("--out DIR is required");
  absl::StatusOr<Choice> choice = ChoosePartitioner(*parsed);
  if (!choice.ok()) return UsageError(std::string(choice.status().message()));
  absl::StatusOr<NoveltySourceOptions> options = NoveltySourceOptionsFromArgs(*parsed);
  if (!options.ok()) return UsageError(std::string(options.status().message()));
  ModelSetup model;
  NoveltyScoring scoring;
  if (choice->offline.has_value()) {
    scoring.partitioner = choice->offline->name;
    scoring.threshold = choice->offline->threshold;
  } else {
    const int code = SetUpModel(*choice->settings, parsed->GetOrEnv("redis", "NOVELTYGRID_REDIS_URL"), model);
    if (code != 0) return code;
    scoring.partitioner = choice->settings->partitioner();
    if (choice->settings->partitioner() != kPartitionerLlmGroups) scoring.threshold = choice->settings->threshold();
    scoring.partition_model = choice->settings->partition_model();
  }

  const std::string& file = parsed->positional[0];
  absl::StatusOr<std::vector<noveltybench::NoveltyRow>> rows = noveltybench::ReadNoveltyRows(file);
  absl::StatusOr<Repartitioned> repartitioned = absl::UnknownError("not partitioned");
  if (!rows.ok()) {
    repartitioned = rows.status();
  } else if (choice->offline.has_value()) {
    repartitioned = RepartitionRows(*std::move(rows), *choice->offline->equivalence, std::move(scoring), *options);
  } else {
    absl::StatusOr<std::vector<std::vector<int>>> partitions = PartitionWithModel(*rows, *model.runtime);
    repartitioned = partitions.ok()
                        ? RepartitionRows(*std::move(rows), *std::move(partitions), std::move(scoring), *options)
                        : absl::StatusOr<Repartitioned>(partitions.status());
  }
  model.runtime.reset();  // before the store its cache writes to
  if (!repartitioned.ok()) {
    std::fprintf(stderr, "noveltygrid repartition: %s\n", std::string(repartitioned.status().message()).c_str());
    return 1;
  }
  repartitioned->results.run = Json{{"command", "repartition"}, {"source", file}};
  if (parsed->Has("config")) repartitioned->results.run["config"] = parsed->Get("config");
  const int code =
      WriteNoveltyFolder("repartition", parsed->Get("out"), repartitioned->results, repartitioned->agreement);
  if (code != 0) return code;
  const Json& a = repartitioned->agreement;
  std::fputs(
      absl::StrFormat("\nagreement with the recorded partitions (same-class pairs): precision %.3f, "
                      "recall %.3f, F1 %.3f; mean distinct %.2f recorded, %.2f new\n",
                      a["pair_precision"].get<double>(), a["pair_recall"].get<double>(), a["pair_f1"].get<double>(),
                      a["mean_distinct_recorded"].get<double>(), a["mean_distinct_new"].get<double>())
          .c_str(),
      stdout);
  return 0;
}

}  // namespace noveltygrid::cli
