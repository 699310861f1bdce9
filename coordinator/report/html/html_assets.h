// The style sheet and script inlined into every report.html (html_page.h).
#ifndef NOVELTYGRID_COORDINATOR_REPORT_HTML_HTML_ASSETS_H_
#define NOVELTYGRID_COORDINATOR_REPORT_HTML_HTML_ASSETS_H_

namespace noveltygrid {

extern const char kReportCss[];
// Sortable tables and pickers; nothing else. It makes no request and reads nothing outside the page.
extern const char kReportJs[];

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_HTML_HTML_ASSETS_H_
