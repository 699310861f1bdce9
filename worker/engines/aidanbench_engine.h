// The AidanBench loop for one unit (model, temperature, question), as ../shared/REFERENCE.md runs it.
//
// Each iteration: build the generation prompt from the question and every earlier answer; generate;
// extract the LAST <answer> tag (else the whole reply); then judge coherence and embed the answer
// concurrently (plus, optionally, the LLM similarity judge against each earlier answer); novelty is
// 1 - max cosine to the earlier answers (1.0 for the first). The loop stops at the first answer the
// preset rejects, after storing it, or at the optional iteration cap, or at a recorded error (a judge
// reply that still does not parse after the retries, or a failed model call) -- never silently.
//
// The engine is pure logic over the model interfaces: given the same unit, checkpoint and replies it
// produces the same records. It never blocks: it advances in model callbacks. Run() returns at once;
// `on_answer` fires after each completed iteration (for checkpoints and streaming) and `on_done` once,
// both on the models' executor threads, never concurrently for one unit.
#ifndef NOVELTYGRID_WORKER_ENGINES_AIDANBENCH_ENGINE_H_
#define NOVELTYGRID_WORKER_ENGINES_AIDANBENCH_ENGINE_H_

#include <functional>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/records.h"
#include "worker/models/model.h"
#include "worker/unit_events.h"

namespace noveltygrid {

struct AidanEngineOptions {
  AidanPreset preset;
  const PromptTemplates* templates = nullptr;  // not owned; outlives every loop
  int max_iterations = 0;                      // 0 = no cap
  // No new iteration starts once the loop has run this long in this lease (0 = no cap); then
  // stop_reason is kStopTimeCap. Measured on `clock`.
  double max_unit_seconds = 0;
  const Clock* clock = SystemClockInstance();
  int max_tokens = 4000;
  int judge_retries = 2;
  bool llm_novelty = false;
  uint64_t seed = 0;
};

class EmbeddingCache;

struct AidanModels {
  ChatModel* generator = nullptr;  // not owned
  ChatModel* judge = nullptr;
  Embedder* embedder = nullptr;
  EmbeddingCache* cache = nullptr;  // optional; consulted before the embedder, filled after it
};

// Starts the loop for `unit`; returns at once.
void RunAidanLoop(const AidanEngineOptions& options, const AidanModels& models, UnitSpec unit,
                  UnitCheckpoint checkpoint, StepObserver on_answer, UnitDoneCallback on_done);

// 1 - max cosine(candidate, earlier); 1.0 when `earlier` is empty. A zero vector has cosine 0.
double AidanNovelty(const Embedding& candidate, const std::vector<Embedding>& earlier);
// The same with the earlier embeddings' SquaredNorm known (one per earlier embedding; a loop keeps
// them as it goes): the same result, a third of the arithmetic. `candidate_squared`, when given,
// receives the candidate's SquaredNorm, for the loop to keep.
double AidanNovelty(const Embedding& candidate, const std::vector<Embedding>& earlier,
                    const std::vector<double>& earlier_squared, double* candidate_squared = nullptr);

// The answer inside the LAST <answer> tag, else the whole (stripped) reply; always valid UTF-8.
std::string ExtractAnswer(const std::string& reply);

// The judge's integer score: LAST <coherence_score> tag, Python int() semantics, within [0, scale_max]
// (1-10 judges may also say 0). nullopt when the reply does not parse.
std::optional<int> ParseCoherenceScore(const std::string& reply, int scale_max);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_ENGINES_AIDANBENCH_ENGINE_H_
