#include "coordinator/report/html/html_page.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/report/html/html_assets.h"

namespace noveltygrid {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Abbreviate(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Back up to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

HtmlCell TextCell(std::string_view text) { return HtmlCell{HtmlEscape(text), std::nullopt, ""}; }

HtmlCell NumberCell(double value, int decimals) {
  return HtmlCell{absl::StrFormat("%.*f", decimals, value), value, "num"};
}

HtmlCell MissingCell() { return HtmlCell{"-", std::numeric_limits<double>::quiet_NaN(), "num"}; }

std::string RenderTable(const HtmlTable& table) {
  std::string out = absl::StrCat("<table", table.id.empty() ? "" : absl::StrCat(" id=\"", HtmlEscape(table.id), "\""),
                                 table.sortable ? " class=\"sortable\"" : "", "><thead><tr>");
  for (const std::string& h : table.header) absl::StrAppend(&out, "<th>", HtmlEscape(h), "</th>");
  absl::StrAppend(&out, "</tr></thead><tbody>");
  for (const std::vector<HtmlCell>& row : table.rows) {
    absl::StrAppend(&out, "<tr>");
    for (const HtmlCell& cell : row) {
      absl::StrAppend(&out, "<td", cell.style.empty() ? "" : absl::StrCat(" class=\"", cell.style, "\""),
                      cell.number ? absl::StrFormat(" data-v=\"%.7g\"", *cell.number) : "", ">", cell.html, "</td>");
    }
    absl::StrAppend(&out, "</tr>");
  }
  absl::StrAppend(&out, "</tbody></table>");
  return out;
}

std::string RenderPicker(const std::string& select_id, const std::string& view_id, const std::string& name,
                         const std::string& label, const std::vector<PickerView>& views) {
  if (views.empty()) return "";
  std::string out =
      absl::StrCat("<div class=\"picker\"><label for=\"", select_id, "\">", HtmlEscape(label), "</label><select id=\"",
                   select_id, "\" data-view=\"", view_id, "\" data-name=\"", name, "\">");
  for (const PickerView& v : views) {
    absl::StrAppend(&out, "<option value=\"", HtmlEscape(v.key), "\">", HtmlEscape(v.label), "</option>");
  }
  absl::StrAppend(&out, "</select><div id=\"", view_id, "\" data-", name, "=\"", HtmlEscape(views.front().key), "\">",
                  views.front().html, "</div>");
  for (const PickerView& v : views) {
    absl::StrAppend(&out, "<template data-", name, "=\"", HtmlEscape(v.key), "\">", v.html, "</template>");
  }
  absl::StrAppend(&out, "</div>");
  return out;
}

HtmlPage::HtmlPage(std::string title, std::string subtitle, std::string notice)
    : title_(std::move(title)), subtitle_(std::move(subtitle)), notice_(std::move(notice)) {}

void HtmlPage::SetModels(const std::vector<std::string>& models, const std::vector<std::string>& simulated) {
  models_html_ = "<ul id=\"models\">";
  for (const std::string& m : models) {
    const bool sim = std::find(simulated.begin(), simulated.end(), m) != simulated.end();
    absl::StrAppend(&models_html_, "<li data-model=\"", HtmlEscape(m), "\"", sim ? " class=\"sim\"" : "", ">",
                    HtmlEscape(m), "</li>");
  }
  absl::StrAppend(&models_html_, "</ul>");
}

void HtmlPage::AddSection(HtmlSection section) { sections_.push_back(std::move(section)); }

std::string HtmlPage::Render() const {
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\" data-noveltygrid-report=\"1\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      // Nothing may be fetched: no images, fonts, scripts or connections from outside the page.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">"
      "<title>",
      HtmlEscape(title_), "</title><style>", kReportCss, "</style></head><body><header><h1>", HtmlEscape(title_),
      "</h1><div class=\"subtitle\">", HtmlEscape(subtitle_), "</div>", models_html_, "</header>");
  if (!notice_.empty()) absl::StrAppend(&out, "<div class=\"notice\">", HtmlEscape(notice_), "</div>");
  absl::StrAppend(&out, "<nav>");
  for (const HtmlSection& s : sections_) {
    absl::StrAppend(&out, "<a href=\"#", HtmlEscape(s.id), "\">", HtmlEscape(s.title), "</a>");
  }
  absl::StrAppend(&out, "</nav><main>");
  for (const HtmlSection& s : sections_) {
    absl::StrAppend(&out, "<section id=\"", HtmlEscape(s.id), "\"><h2>", HtmlEscape(s.title), "</h2>", s.html,
                    "</section>");
  }
  absl::StrAppend(&out, "</main><script>", kReportJs, "</script></body></html>\n");
  return out;
}

}  // namespace noveltygrid
