#include "coordinator/report/html/html_assets.h"

namespace noveltygrid {

const char kReportCss[] = R"css(
:root { --ink: #1d232a; --muted: #5b6570; --rule: #d8dde3; --band: #fff4d6; --accent: #0072b2; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
header { padding: 20px 32px 12px; border-bottom: 1px solid var(--rule); }
header h1 { margin: 0 0 4px; font-size: 22px; }
header .subtitle { color: var(--muted); }
.notice { background: var(--band); padding: 8px 32px; border-bottom: 1px solid #f0d98c; font-weight: 600; }
nav { padding: 8px 32px; border-bottom: 1px solid var(--rule); display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a { color: var(--accent); text-decoration: none; }
main { padding: 8px 32px 40px; max-width: 1320px; }
section { margin-top: 28px; }
h2 { font-size: 18px; border-bottom: 2px solid var(--ink); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
#models { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 10px; }
#models li { border: 1px solid var(--rule); border-radius: 12px; padding: 1px 10px; }
#models li.sim::after { content: " (simulated)"; color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px; margin: 6px 0; }
.legend svg { margin-right: 4px; vertical-align: middle; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 24px; }
figure.chart { margin: 8px 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 2px; }
figure.chart svg { max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: var(--ink); }
svg text.label { fill: var(--muted); }
svg text.simulated { fill: #a06a00; font-style: italic; }
svg .grid { stroke: #eceff2; }
svg .axis { stroke: #8a939c; }
svg .err { stroke: #333; stroke-width: 1; fill: none; }
svg polyline { stroke-width: 1.8; }
.note { color: var(--muted); font-size: 12px; margin: 2px 0 8px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[data-dir="asc"]::after { content: " \25B2"; }
table.sortable th[data-dir="desc"]::after { content: " \25BC"; }
.scroll { max-height: 480px; overflow: auto; border: 1px solid var(--rule); }
.scroll table { margin: 0; }
.scroll th { position: sticky; top: 0; background: #fff; }
.picker label { font-weight: 600; margin-right: 8px; }
.picker select { font: inherit; padding: 2px 4px; max-width: 100%; }
.samples { list-style: none; padding: 0; margin: 8px 0; }
.samples li { border-left: 6px solid; padding: 4px 10px; margin: 4px 0; background: #fafbfc; }
.samples .meta { color: var(--muted); font-size: 12px; }
.answers li { margin: 4px 0; }
.answers .meta { color: var(--muted); font-size: 12px; }
@media print {
  nav, .picker select { display: none; }
  .scroll { max-height: none; overflow: visible; border: 0; }
  section { break-inside: avoid-page; }
  main, header, .notice { padding-left: 0; padding-right: 0; }
}
)css";

const char kReportJs[] = R"js(
"use strict";
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var dir = th.dataset.dir === "desc" ? "asc" : "desc";
      table.querySelectorAll("th").forEach(function (other) { delete other.dataset.dir; });
      th.dataset.dir = dir;
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var key = function (row) {
        var cell = row.cells[column];
        return cell.dataset.v !== undefined ? parseFloat(cell.dataset.v) : cell.textContent;
      };
      var missing = function (k) { return typeof k === "number" && isNaN(k); };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (missing(x) || missing(y)) return missing(x) - missing(y);  // last, both ways
        var order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return dir === "asc" ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
document.querySelectorAll("select[data-view]").forEach(function (select) {
  var view = document.getElementById(select.dataset.view);
  var name = select.dataset.name;
  select.addEventListener("change", function () {
    var templates = select.closest(".picker").querySelectorAll("template");
    for (var i = 0; i < templates.length; i++) {
      if (templates[i].dataset[name] === select.value) {
        view.replaceChildren(templates[i].content.cloneNode(true));
        view.dataset[name] = select.value;
        return;
      }
    }
  });
});
)js";

}  // namespace noveltygrid
