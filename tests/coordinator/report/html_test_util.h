// Looking into rendered report.html fragments in tests.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_REPORT_HTML_TEST_UTIL_H_
#define NOVELTYGRID_TESTS_COORDINATOR_REPORT_HTML_TEST_UTIL_H_

#include <string>

namespace noveltygrid::html_test {

// How many times `needle` occurs in `text` (overlaps counted).
inline int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The first <figure> with data-chart=ID, up to its end ("" when there is none).
inline std::string Chart(const std::string& html, const std::string& id) {
  const size_t begin = html.find("data-chart=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</figure>", begin) - begin);
}

}  // namespace noveltygrid::html_test

#endif  // NOVELTYGRID_TESTS_COORDINATOR_REPORT_HTML_TEST_UTIL_H_
