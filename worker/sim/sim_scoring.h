// The simulated NoveltyBench scorers (in process: worker/sim/sim_scorers.h; over HTTP: serve-sim):
// a pair classifier standing in for yimingzhang/deberta-v3-large-generation-similarity and a reward
// model standing in for Skywork-Reward-Gemma-2-27B-v0.2. Both are SIMULATED: they read surface features of the text
// (shared words, the sim judge's coherence heuristics), not meaning, and exist so the NoveltyBench pipeline runs end to
// end without weights or network. Never read their numbers as if they came from the real models.
//
// Pure functions of their inputs, identical on every machine; thread-safe.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_SCORING_H_
#define NOVELTYGRID_WORKER_SIM_SIM_SCORING_H_

#include <string_view>

namespace noveltygrid {

// The classifier's softmax[1] ("LABEL_1", the two texts express the same idea), in (0, 1).
// Each text is cut to its first 128 words (the reference truncates to 128 tokens), embedded with the
// lexical embedder (1024 buckets) and the cosine c of the two vectors is mapped through a logistic,
// 1 / (1 + exp(-12 (c - 0.5))): identical texts give ~0.998, texts with no word in common ~0.0025, and
// the reference decision threshold 0.102 sits at c ~= 0.32. Two texts with no words at all count as
// identical (c = 1) when both are empty, as unrelated otherwise.
double SimSameIdeaProbability(std::string_view a, std::string_view b);

// A raw reward on roughly the Skywork scale: -10 + 0.12 * (coherence + u), capped at 2.0, where
// coherence is SimJudgeModel::ScoreCoherence(prompt, response) (0..100) and u in [0, 1) is a
// deterministic hash of the pair that breaks ties. Coherent sim answers (coherence 60-95) land around
// -2.8..+1.4 (NoveltyBench quality 8-10), word salad (0-15) around -10..-8 (quality 1).
double SimReward(std::string_view prompt, std::string_view response);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SIM_SIM_SCORING_H_
