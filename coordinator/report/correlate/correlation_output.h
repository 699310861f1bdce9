// A Correlation (leaderboard_correlation.h) as `noveltygrid correlate` prints it: a text block for people
// or JSON for scripts (and the HTML report). Pure functions.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_CORRELATION_OUTPUT_H_
#define NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_CORRELATION_OUTPUT_H_

#include <string>

#include "common/json_util.h"
#include "coordinator/report/correlate/leaderboard_correlation.h"

namespace noveltygrid {

// Leaderboard models not in the sweep that the text names; the rest are counted (JSON lists them all).
inline constexpr size_t kMaxUnmatchedNamesInText = 30;

//   aidanbench valid_answers vs leaderboard.csv column 'elo' (models from column 'model')
//
//   models on both (n)  4
//   Spearman rho        0.8000
//   Kendall tau-b       0.6667
//   Pearson r           0.9123
//   R^2                 0.8323
//   p-values: not computed (see README)
//
//   model                  valid_answers  rank   elo  rank
//   ------------------------------------------------------
//   sim:explorer = gpt-x            2644     1  1300     1
//   ...
//
// (with text_table.h's SIMULATED MODELS line under the first line when the sweep's numbers measure the
// simulator), then the unmatched names on each side, the skipped rows and the other benchmarks, when there are any.
// Ranks are among the matched models (1 = highest, ties share the mean rank); "a = b" marks a sweep model
// matched to another leaderboard name through the map.
std::string CorrelationText(const Correlation& correlation);

// {"benchmark","metric","leaderboard","model_column","score_column","map" (null without one),"n",
//  "spearman_rho","kendall_tau_b","pearson_r","r_squared",
//  "matched": [{"model","leaderboard_model","score","leaderboard_score","rank","leaderboard_rank"}],
//  "unmatched_sweep_models": [...], "unmatched_leaderboard_models": [...],
//  "skipped_rows": [{"line","model","value"}], "other_benchmarks": [...], "simulated": bool}
Json CorrelationJson(const Correlation& correlation);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_CORRELATION_OUTPUT_H_
