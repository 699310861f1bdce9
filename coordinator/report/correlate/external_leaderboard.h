// An external leaderboard as `noveltygrid correlate` reads it: a CSV (csv_table.h) with a column of
// model names and a column of scores, and the optional map from a sweep's model names to the
// leaderboard's.
//
//   model,elo,votes              <- header; the model column is the first named model or name (any case)
//   gpt-4o-2024-11-20,1250,9000  <- the score column: --column, else the first numeric one
//   my-model,N/A,10              <- a score that is not a number: the row is skipped (and listed)
//
// Pure functions of their arguments (the Read* ones read one file); safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_EXTERNAL_LEADERBOARD_H_
#define NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_EXTERNAL_LEADERBOARD_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/report/correlate/csv_table.h"

namespace noveltygrid {

struct LeaderboardScore {
  std::string model;
  double score = 0;
  int line = 0;  // in the CSV file
};

// A row left out: its score is not a finite number (empty, "N/A", "1,234", "inf"), or it names no model.
struct SkippedLeaderboardRow {
  std::string model;  // may be empty
  std::string value;  // the score field as written
  int line = 0;
};

struct ExternalLeaderboard {
  std::string model_column;  // the header names of the columns used
  std::string score_column;
  std::vector<LeaderboardScore> scores;        // file order; model names unique
  std::vector<SkippedLeaderboardRow> skipped;  // file order
};

// Which columns to read; an empty name picks the default. The default model column is the first named
// "model" or "name" (ASCII case ignored). The default score column is the first other one that is
// numeric -- more than half of its rows hold a number -- and whose name does not start with "rank"
// (a published table's "Rank" column correlates with the sign turned over).
struct LeaderboardColumns {
  std::string model;
  std::string score;
};

// The scores of `table`. InvalidArgument when a column named in `columns` is not in the header (the
// message lists the header), when no column fits a default, or when a model is listed twice with a score.
absl::StatusOr<ExternalLeaderboard> LeaderboardFromCsv(const CsvTable& table, const LeaderboardColumns& columns);

// ReadCsvFile + LeaderboardFromCsv; errors name the path.
absl::StatusOr<ExternalLeaderboard> ReadExternalLeaderboard(const std::string& path, const LeaderboardColumns& columns);

// A sweep model's name -> its name on the leaderboard. As a file (--map), a two-column CSV whose first
// row is a header (its names are not read) and each following row `sweep_model,leaderboard_model`:
//
//   sweep_model,leaderboard_model
//   openai/gpt-4o-2024-11-20,gpt-4o-2024-11-20
//
// Sweep models not in the map keep their own name.
using ModelNameMap = std::map<std::string, std::string>;

// InvalidArgument naming the line for a table without exactly two columns, an empty name, a sweep model
// mapped twice, or two sweep models mapped to one leaderboard name.
absl::StatusOr<ModelNameMap> ModelNameMapFromCsv(const CsvTable& table);

// ReadCsvFile + ModelNameMapFromCsv; errors name the path.
absl::StatusOr<ModelNameMap> ReadModelNameMap(const std::string& path);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_EXTERNAL_LEADERBOARD_H_
