// The NoveltyBench unit (model, temperature, prompt, sampling mode), as ../shared/REFERENCE.md runs
// it: k generations, then the greedy partition into functional-equivalence classes, then the quality
// of each class's first member.
//
//   generation  standard / system-prompt: one request with n = k when settings.ask_n (else k requests
//               of n = 1, each with its own derived seed); in-context: one conversation, k turns, each
//               answer followed by the follow-up user turn; paraphrase: generation i answers the
//               prompt's paraphrase i (k requests). Every generation is a step: `on_sample` fires for
//               each in order, so it is checkpointed like an AidanBench iteration and a resumed unit
//               asks only for the generations it lacks.
//               Seeds: the request whose first generation is i sends a seed fixed by (settings.seed,
//               i) -- settings.seed itself for i = 0 -- so the k requests of n = 1 differ and a
//               resumed unit re-asks its missing generations exactly as the fresh run asked them. A
//               resumed n = k unit with m generations repeats the fresh n = k request and keeps
//               choices m..k-1, so the result does not depend on where a worker died (it pays for m
//               generations again). Temperature is the unit's, max_tokens settings.max_tokens;
//               empty prompt settings take noveltybench::DefaultNoveltyPrompts().
//   partition   GreedyPartition's rule (common/noveltybench/partition.h) -- short-text rule first, then
//               the partitioner against each class's FIRST member, classes in order -- driven
//               asynchronously; decisions are looked up in, and written to, the EquivalenceCache.
//   quality     class openers only (as the reference): reward model -> QualityFromReward buckets (the
//               raw reward kept), or the LLM judge's LAST <coherence_score> 0..10 (0 counts as 1; an
//               unparseable reply is asked again twice, then the unit fails).
//   calls       CallStats by "ROLE:MODEL": generate, classify, embed, judge (llm partitioner and llm
//               quality), reward; equivalence cache hits count under the partitioner's role.
//
// The engine is pure logic over the model interfaces: the same unit, checkpoint and replies give the
// same records. It never blocks (beyond the cache's store lookups), and the settings are copied:
// nothing needs to outlive the call but the models and the cache. on_sample and on_done run on the
// models' executor threads, never concurrently for one unit; they may also run on the calling thread
// before RunNoveltyUnit returns -- on_done for a unit refused before any call (bad mode, too few
// paraphrases, a missing model), either for a reply that arrives while the requests are still being
// sent.
#ifndef NOVELTYGRID_WORKER_ENGINES_NOVELTYBENCH_ENGINE_H_
#define NOVELTYGRID_WORKER_ENGINES_NOVELTYBENCH_ENGINE_H_

#include <functional>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/types/span.h"
#include "common/records.h"
#include "common/unit_settings.h"
#include "worker/models/model.h"
#include "worker/scorers/scorers.h"
#include "worker/unit_events.h"

namespace noveltygrid {

class EquivalenceCache;

struct NoveltyModels {
  ChatModel* generator = nullptr;  // not owned (none of these are)
  // The partitioner's model: exactly the one settings.partitioner needs (none for "unigram").
  PairClassifier* classifier = nullptr;    // "classifier"
  Embedder* embedder = nullptr;            // "embedding"
  ChatModel* equivalence_judge = nullptr;  // "llm"
  // The quality model: the one settings.quality needs.
  RewardModel* reward = nullptr;       // "reward"
  ChatModel* quality_judge = nullptr;  // "llm"
  EquivalenceCache* cache = nullptr;   // optional
};

// Returns false to abandon the unit (its lease was lost): it then ends with kStopCancelled.
// `samples` are generations 1..n, the last just made; each has answer_num (1-based) and answer set.
using NoveltySampleObserver = std::function<bool(absl::Span<const StepRecord> samples, const CallStats& calls)>;

// Starts the unit; returns at once. `checkpoint`: generations 1..n already made (n <= k). The result
// has stop_reason kStopComplete with `answers` = the k generations and `novelty` set, or kStopError
// with `error` saying which call failed (the generations made so far stay in `answers`).
// `still_leased` is asked before the partition and before the quality calls (the checks between steps
// that `on_sample` cannot make, e.g. for a unit resumed with all k generations).
void RunNoveltyUnit(const NoveltySettings& settings, const NoveltyModels& models, UnitSpec unit,
                    std::vector<StepRecord> checkpoint, NoveltySampleObserver on_sample, UnitDoneCallback on_done,
                    LeaseCheck still_leased = {});

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_ENGINES_NOVELTYBENCH_ENGINE_H_
