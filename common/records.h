// The data that flows from planner to engine to reducer: a unit of work and what running it produced.
//
// These are plain values. Everything here except CallCounters is a function of the config and the
// seed, so the in-process run, the cluster and a resumed unit produce the same records.
#ifndef NOVELTYGRID_COMMON_RECORDS_H_
#define NOVELTYGRID_COMMON_RECORDS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace noveltygrid {

inline constexpr char kAidanBench[] = "aidanbench";
inline constexpr char kNoveltyBench[] = "noveltybench";

// NoveltyBench sampling modes (../shared/REFERENCE.md): how the k generations of a prompt are asked.
inline constexpr char kModeStandard[] = "standard";           // the prompt alone, k samples
inline constexpr char kModeInContext[] = "in-context";        // one conversation: each answer, then "another one"
inline constexpr char kModeParaphrase[] = "paraphrase";       // generation i answers the prompt's paraphrase i
inline constexpr char kModeSystemPrompt[] = "system-prompt";  // a system message asking for an original answer

// NoveltyBench partitioners and quality scorers, as configs, settings and results name them.
inline constexpr char kPartitionerClassifier[] = "classifier";  // pair classifier, P(same) > threshold
inline constexpr char kPartitionerUnigram[] = "unigram";        // ROUGE-1 F > threshold, offline
inline constexpr char kPartitionerEmbedding[] = "embedding";    // cosine of embeddings > threshold
inline constexpr char kPartitionerLlm[] = "llm";                // an LLM judge's similarity / 100 > threshold
inline constexpr char kPartitionerLlmGroups[] = "llm-groups";   // an LLM judge classes all k generations in one call
inline constexpr char kQualityReward[] = "reward";              // reward model, the reference's buckets
inline constexpr char kQualityLlm[] = "llm";                    // an LLM judge's 1..10

// One (benchmark, model, temperature, question or prompt[, sampling mode]). `id` is a hash of
// everything that defines the unit (see coordinator/plan); `index` is its position in plan order,
// which fixes output order.
struct UnitSpec {
  std::string id;
  int index = 0;
  std::string benchmark;
  std::string model;
  double temperature = 0;
  std::string item_id;    // question id or prompt id
  std::string item_text;  // the question or prompt itself
  // NoveltyBench only (empty for AidanBench):
  std::string mode;                      // one of kMode*
  std::string dataset;                   // the prompt set's name, e.g. "curated" or "wildchat"
  std::vector<std::string> paraphrases;  // the prompt's paraphrases (used by kModeParaphrase)
  int repeat = 0;                        // which of the sweep's `repeats` (0-based); seeds derive from it
  // The item's metadata from its question or prompt file ("" when it has none): AidanBench questions'
  // `domain` / `subdomain`, NoveltyBench prompts' `category`. Reporting only: not part of the unit id
  // and never sent to workers (the coordinator re-attaches its plan's spec to committed results).
  std::string domain;
  std::string subdomain;
  std::string category;
};

// One step of a unit, as checkpointed, reported and committed: an AidanBench iteration (the answer and
// its scores; a line of answers.jsonl) or a NoveltyBench generation (answer_num and answer only).
struct StepRecord {
  int answer_num = 0;    // 1-based, loop order
  std::string answer;    // extracted answer text (valid UTF-8)
  double coherence = 0;  // judge score on the preset's scale
  double novelty = 0;    // 1 - max cosine to earlier answers; 1.0 for the first
  std::optional<double> llm_novelty;
  bool valid = false;  // counted by the scorer (see AidanPreset)
  std::string error;   // set when this step failed (e.g. judge unparseable after retries)
  // Tokens the model spent reasoning on this answer, as the provider reported them (0: none reported).
  // A reply of n samples reports one total: each sample gets an even share, the first the remainder.
  int64_t reasoning_tokens = 0;
};

// Why a loop ended.
inline constexpr char kStopIncoherent[] = "incoherent";
inline constexpr char kStopRepetitive[] = "repetitive";
inline constexpr char kStopIterationCap[] = "iteration_cap";
inline constexpr char kStopTimeCap[] = "time_cap";  // AidanBench: max_unit_seconds reached
inline constexpr char kStopError[] = "error";
inline constexpr char kStopCancelled[] = "cancelled";  // abandoned by the worker; never committed
inline constexpr char kStopComplete[] = "complete";    // NoveltyBench: all k generations partitioned and scored

// What NoveltyBench scored for one unit. The k generations themselves are the unit's `answers`
// (answer_num 1..k, text in `answer`); the numbers derived from these (distinct, utility) are the
// reducer's business (common/noveltybench/scoring.h).
struct NoveltyOutcome {
  std::vector<int> partition;                 // canonical: class of each generation, 0, 1, ... in order
  std::vector<std::optional<int>> quality;    // 1..10 where scored (class openers), nullopt elsewhere
  std::vector<std::optional<double>> reward;  // the raw reward behind `quality`, when a reward model scored
};

// A finished unit. `answers` are the AidanBench iterations in loop order, or the NoveltyBench
// generations in generation order (a step of either is checkpointed and reported the same way).
struct UnitResult {
  UnitSpec unit;
  std::vector<StepRecord> answers;
  std::optional<NoveltyOutcome> novelty;  // NoveltyBench units that completed (stop_reason kStopComplete)
  std::string stop_reason;                // one of kStop*
  std::string error;                      // non-empty iff stop_reason == kStopError
  int max_iterations = 0;                 // the cap in force (0 = none), recorded with the results
};

// Per "ROLE:MODEL" call statistics (ROLE: generate, judge, embed, classify, reward). Run-dependent.
struct CallCounters {
  int64_t requests = 0;
  int64_t cache_hits = 0;
  int64_t retries = 0;
  int64_t errors = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t reasoning_tokens = 0;    // of completion_tokens, as providers report them (priced as completion)
  int64_t cache_read_tokens = 0;   // of prompt_tokens, read from the provider's prompt cache
  int64_t cache_write_tokens = 0;  // of prompt_tokens, written to it
  // Duplicates sent by hedging (provider `hedge_after_ms`); not in requests or retries. Their tokens are
  // in the token counts above (a duplicate is costed as its call's reply: the same request).
  int64_t hedges = 0;

  CallCounters& operator+=(const CallCounters& other);
  CallCounters& operator-=(const CallCounters& other);
  bool IsZero() const;
  bool operator==(const CallCounters& other) const = default;
};
using CallStats = std::map<std::string, CallCounters>;
void MergeCallStats(const CallStats& from, CallStats& into);
// What `now` counts beyond `seen` (an earlier reading of the same cumulative counters), per key; keys
// with nothing new are left out. `seen` then holds `now`'s counts (keys only in `seen` are kept).
CallStats AdvanceCallStats(const CallStats& now, CallStats& seen);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_RECORDS_H_
