// AidanBench scoring of one question's answers, shared by the engine, the reducer and the importer.
//
// Valid answers are counted in loop order up to the first answer the preset's scorer rejects
// (reference-2025: novelty < 0.15 or coherence < 15 -- note `<` where the loop stops at `<= 15`, so an
// answer judged exactly 15 ends the loop yet counts as valid; this matches the reference).
#ifndef NOVELTYGRID_COMMON_AIDAN_SCORING_H_
#define NOVELTYGRID_COMMON_AIDAN_SCORING_H_

#include <vector>

#include "common/aidan_preset.h"
#include "common/records.h"

namespace noveltygrid {

// True when the loop must stop after this answer.
bool AidanShouldStop(const AidanPreset& preset, const StepRecord& answer);

// Sets `valid` on every answer: true up to (not including) the first the scorer rejects.
void MarkValidAnswers(const AidanPreset& preset, std::vector<StepRecord>& answers);

// MMR of one answer (paper appendix B, lambda 0.5): lambda * coherence/scale - (1-lambda) * (1-novelty).
double AidanMmr(const AidanPreset& preset, const StepRecord& answer, double lambda = 0.5);

// Scores of one question (or, summed, of many). Averages are over valid answers.
struct AidanTotals {
  long long valid_answers = 0;
  long long stored_answers = 0;
  double novelty_sum = 0;      // paper score: sum of novelty over valid answers
  double coherence_sum = 0;    // sum of coherence/scale over valid answers
  double mmr_sum = 0;          // sum of MMR over valid answers
  double llm_novelty_sum = 0;  // when the LLM similarity judge is on
  long long questions = 0;
  long long errors = 0;  // questions whose loop ended in a recorded error

  AidanTotals& operator+=(const AidanTotals& other);
};

// Totals of one question; `answers` must already carry `valid`.
AidanTotals ScoreAidanQuestion(const AidanPreset& preset, const std::vector<StepRecord>& answers);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_AIDAN_SCORING_H_
