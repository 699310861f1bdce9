// What the chaos test reads back after a run: generation calls out of `--call-log` files (lines
// "chat MODEL HASH"; the judge's and embedder's calls are not generations), the unit ids of a results
// file, counts of log lines and serve-sim's fault tally.
#ifndef NOVELTYGRID_TESTS_CHAOS_CALL_ACCOUNTING_H_
#define NOVELTYGRID_TESTS_CHAOS_CALL_ACCOUNTING_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace noveltygrid::testing {

// Bytes [begin, end) of a call log; end -1: to its end.
struct CallLogPart {
  std::string path;
  int64_t begin = 0;
  int64_t end = -1;
};

// Generation calls of `models` in `parts`.
int64_t CountGenerations(const std::vector<CallLogPart>& parts, const std::vector<std::string>& models);
// Generation calls of `models` in `actual` beyond those in `expected`: the same call made more often.
int64_t RepeatedGenerations(const std::vector<CallLogPart>& expected, const std::vector<CallLogPart>& actual,
                            const std::vector<std::string>& models);

std::string ReadText(const std::string& path);
// The distinct "unit_id"s of a JSON-lines results file.
std::set<std::string> UnitIds(const std::string& jsonl_path);
// Occurrences of `needle` in `text`.
int64_t CountMatches(const std::string& text, const std::string& needle);
// "faults_injected" of the stats serve-sim prints on its way out (0 when absent).
int64_t FaultsInjected(const std::string& serve_sim_stderr);

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_CHAOS_CALL_ACCOUNTING_H_
