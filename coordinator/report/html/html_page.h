// report.html's building blocks: one self-contained page (inline CSS, inline SVG charts and a few
// lines of JavaScript; no network request of any kind, so it opens from disk and prints).
//
// The page is assembled from sections (each benchmark contributes its own: BenchmarkResults::
// AddHtmlSections). Two interactive pieces are shared: sortable tables (click a column header) and
// pickers (a <select> that swaps which pre-rendered view is shown). A picker keeps every view but the
// first in an inert <template>, so a large sweep's page stays quick to open: the browser lays out
// only what is on screen.
//
// Not thread-safe (build a page on one thread); the free functions are stateless.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_HTML_HTML_PAGE_H_
#define NOVELTYGRID_COORDINATOR_REPORT_HTML_HTML_PAGE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noveltygrid {

// Escapes text for HTML content and double-quoted attributes.
std::string HtmlEscape(std::string_view text);

// Cuts `text` to at most `max_bytes` bytes on a UTF-8 character boundary, adding "..." when cut.
std::string Abbreviate(std::string_view text, size_t max_bytes);

struct HtmlCell {
  std::string html;              // the cell's content, already escaped
  std::optional<double> number;  // sort key of a numeric column
  std::string style;             // a class for the cell ("" for none)
};
HtmlCell TextCell(std::string_view text);
HtmlCell NumberCell(double value, int decimals);
// A number the row does not have: "-", sorted after every number whichever way the column sorts.
HtmlCell MissingCell();

struct HtmlTable {
  std::string id;  // "" for none
  std::vector<std::string> header;
  std::vector<std::vector<HtmlCell>> rows;
  bool sortable = false;
};
std::string RenderTable(const HtmlTable& table);

// One view of a picker: the option's value (`key`) and label, and the view's HTML.
struct PickerView {
  std::string key;
  std::string label;
  std::string html;
};
// A <select id=select_id> over the views and <div id=view_id data-NAME=key> showing the first; picking
// another replaces the div's contents with that view's <template data-NAME=key>. Views must not be
// empty. `name` is a lowercase word (data attribute).
std::string RenderPicker(const std::string& select_id, const std::string& view_id, const std::string& name,
                         const std::string& label, const std::vector<PickerView>& views);

struct HtmlSection {
  std::string id;     // the anchor
  std::string title;  // its heading and table-of-contents entry
  std::string html;
};

class HtmlPage {
 public:
  // `notice`: a line shown under the title on a coloured band (the simulation notice); "" for none.
  HtmlPage(std::string title, std::string subtitle, std::string notice);
  // The models of the sweep, listed at the top (<ul id="models">), with those simulated marked.
  void SetModels(const std::vector<std::string>& models, const std::vector<std::string>& simulated);
  void AddSection(HtmlSection section);
  std::string Render() const;

 private:
  std::string title_;
  std::string subtitle_;
  std::string notice_;
  std::string models_html_;
  std::vector<HtmlSection> sections_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_HTML_HTML_PAGE_H_
