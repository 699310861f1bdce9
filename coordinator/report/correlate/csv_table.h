// A small strict CSV reader (RFC 4180) for the tables users bring: external leaderboards and model-name
// maps. The first record is the header. Fields are separated by commas; a field in double quotes may
// hold commas, line breaks and doubled quotes (""); records end in LF or CRLF; a UTF-8 byte-order mark
// at the start is dropped; blank lines are skipped. Anything else -- a quote inside an unquoted field,
// text after a closing quote, a bare CR, an unterminated quote, a record whose field count differs
// from the header's -- is an error naming the line, rather than a guess.
//
// Pure functions (ReadCsvFile reads one file); safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_CSV_TABLE_H_
#define NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_CSV_TABLE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace noveltygrid {

struct CsvRow {
  int line = 0;  // where the record starts in the file, from 1 (a quoted line break spans lines)
  std::vector<std::string> fields;
};

struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvRow> rows;  // each with header.size() fields, file order

  // The index of the first header field equal to `name`, -1 when none is.
  int ColumnIndex(absl::string_view name) const;
};

// InvalidArgument ("line 4: ...") when `text` is not CSV as above or has no header; the message does
// not say where the text came from: callers add that.
absl::StatusOr<CsvTable> ParseCsv(absl::string_view text);

// ParseCsv of the file at `path`; errors name the path (NotFound when it cannot be read).
absl::StatusOr<CsvTable> ReadCsvFile(const std::string& path);

// `status` with "PATH: " put before its message.
absl::Status InFile(const std::string& path, const absl::Status& status);

// ReadCsvFile, then `parse(table)` (an absl::StatusOr); every error names `path`.
template <typename Parse>
auto ReadCsvFileWith(const std::string& path, Parse parse) -> decltype(parse(std::declval<const CsvTable&>())) {
  absl::StatusOr<CsvTable> table = ReadCsvFile(path);
  if (!table.ok()) return table.status();
  auto parsed = parse(*table);
  if (!parsed.ok()) return InFile(path, parsed.status());
  return parsed;
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_CSV_TABLE_H_
