#include "coordinator/report/correlate/csv_table.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json_util.h"

namespace noveltygrid {
namespace {

constexpr absl::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Reads records one at a time off the text, counting lines for the messages.
class CsvScanner {
 public:
  explicit CsvScanner(absl::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ >= text_.size(); }
  int line() const { return line_; }

  // The next record's fields (the line break after it consumed).
  absl::StatusOr<std::vector<std::string>> NextRecord() {
    std::vector<std::string> fields;
    while (true) {
      std::string field;
      if (Peek() == '"') {
        if (absl::Status status = QuotedField(field); !status.ok()) return status;
      } else if (absl::Status status = PlainField(field); !status.ok()) {
        return status;
      }
      fields.push_back(std::move(field));
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (absl::Status status = EndOfRecord(); !status.ok()) return status;
      return fields;
    }
  }

 private:
  // The next character, '\0' at the end (a NUL byte in the text is an error where it matters).
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("line ", line_, ": ", what));
  }

  absl::Status PlainField(std::string& field) {
    const size_t start = pos_;
    while (!AtEnd() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
      if (text_[pos_] == '"')
        return Error("a quote inside an unquoted field (quote the whole field and double the quote)");
      ++pos_;
    }
    field = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status QuotedField(std::string& field) {
    const int opened = line_;
    ++pos_;  // the opening quote
    while (true) {
      if (AtEnd()) return absl::InvalidArgumentError(absl::StrCat("line ", opened, ": a quoted field is never closed"));
      const char c = text_[pos_++];
      if (c == '"') {
        if (Peek() != '"') break;
        ++pos_;  // "" stands for one quote
      } else if (c == '\n') {
        ++line_;
      }
      field.push_back(c);
    }
    if (!AtEnd() && Peek() != ',' && Peek() != '\n' && Peek() != '\r') return Error("text after a closing quote");
    return absl::OkStatus();
  }

  // At a record's end: LF, CRLF or the end of the text.
  absl::Status EndOfRecord() {
    if (Peek() == '\r') {
      ++pos_;
      if (Peek() != '\n') return Error("a carriage return that does not end a line");
    }
    if (Peek() == '\n') {
      ++pos_;
      ++line_;
    }
    return absl::OkStatus();
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

bool IsBlank(const std::vector<std::string>& fields) { return fields.size() == 1 && fields[0].empty(); }

}  // namespace

int CsvTable::ColumnIndex(absl::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<CsvTable> ParseCsv(absl::string_view text) {
  absl::ConsumePrefix(&text, kByteOrderMark);
  CsvScanner scanner(text);
  CsvTable table;
  bool have_header = false;
  while (!scanner.AtEnd()) {
    const int line = scanner.line();
    absl::StatusOr<std::vector<std::string>> fields = scanner.NextRecord();
    if (!fields.ok()) return fields.status();
    if (IsBlank(*fields)) continue;
    if (!have_header) {
      table.header = *std::move(fields);
      have_header = true;
      continue;
    }
    if (fields->size() != table.header.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line, ": ", fields->size(), " fields where the header has ", table.header.size()));
    }
    table.rows.push_back(CsvRow{line, *std::move(fields)});
  }
  if (!have_header) return absl::InvalidArgumentError("no header row (the file is empty)");
  return table;
}

absl::Status InFile(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::StatusOr<CsvTable> ReadCsvFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<CsvTable> table = ParseCsv(*text);
  if (!table.ok()) return InFile(path, table.status());
  return table;
}

}  // namespace noveltygrid
