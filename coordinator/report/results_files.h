// The names of the files in a results folder (../shared/CONTRACT.md).
#ifndef NOVELTYGRID_COORDINATOR_REPORT_RESULTS_FILES_H_
#define NOVELTYGRID_COORDINATOR_REPORT_RESULTS_FILES_H_

namespace noveltygrid {

inline constexpr char kAnswersFileName[] = "answers.jsonl";  // AidanBench: one line per answer
inline constexpr char kSamplesFileName[] = "samples.jsonl";  // NoveltyBench: one line per unit
inline constexpr char kSummaryFileName[] = "summary.json";
inline constexpr char kLeaderboardFileName[] = "leaderboard.txt";
inline constexpr char kReportFileName[] = "report.html";  // html_report.h

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_RESULTS_FILES_H_
