#include "common/aidan_scoring.h"

namespace noveltygrid {

bool AidanShouldStop(const AidanPreset& preset, const StepRecord& answer) {
  if (!answer.error.empty()) return true;
  if (answer.coherence <= preset.stop_coherence_at_most) return true;
  if (answer.novelty < preset.stop_novelty_below) return true;
  return answer.llm_novelty.has_value() && *answer.llm_novelty < preset.stop_novelty_below;
}

void MarkValidAnswers(const AidanPreset& preset, std::vector<StepRecord>& answers) {
  bool counting = true;
  for (StepRecord& a : answers) {
    if (counting &&
        (!a.error.empty() || a.novelty < preset.valid_novelty_below || a.coherence < preset.valid_coherence_below ||
         (a.llm_novelty.has_value() && *a.llm_novelty < preset.valid_novelty_below))) {
      counting = false;
    }
    a.valid = counting;
  }
}

double AidanMmr(const AidanPreset& preset, const StepRecord& answer, double lambda) {
  const double quality = answer.coherence / preset.judge_scale_max;
  const double max_similarity = 1.0 - answer.novelty;
  return lambda * quality - (1.0 - lambda) * max_similarity;
}

AidanTotals& AidanTotals::operator+=(const AidanTotals& other) {
  valid_answers += other.valid_answers;
  stored_answers += other.stored_answers;
  novelty_sum += other.novelty_sum;
  coherence_sum += other.coherence_sum;
  mmr_sum += other.mmr_sum;
  llm_novelty_sum += other.llm_novelty_sum;
  questions += other.questions;
  errors += other.errors;
  return *this;
}

AidanTotals ScoreAidanQuestion(const AidanPreset& preset, const std::vector<StepRecord>& answers) {
  AidanTotals totals;
  totals.questions = 1;
  totals.stored_answers = static_cast<long long>(answers.size());
  for (const StepRecord& a : answers) {
    if (!a.error.empty()) totals.errors = 1;
    if (!a.valid) continue;
    ++totals.valid_answers;
    totals.novelty_sum += a.novelty;
    totals.coherence_sum += a.coherence / preset.judge_scale_max;
    totals.mmr_sum += AidanMmr(preset, a);
    if (a.llm_novelty.has_value()) totals.llm_novelty_sum += *a.llm_novelty;
  }
  return totals;
}

}  // namespace noveltygrid
