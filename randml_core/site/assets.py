"""The site's stylesheet and table-sorting script (written to ``assets/``; no CDN, no framework).

The sorter is a few lines of vanilla JavaScript: a click (or Enter) on a header sorts the table's
body rows by that column; a cell that starts with a number sorts numerically ("0.866 ± 0.026",
"+0.54", "98.69"), other cells as text with embedded numbers compared as numbers ("level 7" before
"level 14"), empty cells last; a second click reverses the order.
"""

SORT_JS = r"""// randml site: click a table header to sort by that column (again to reverse).
(function () {
  "use strict";
  var NUM = /^[\u2212+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?/i;
  function key(row, col) {
    var cell = row.cells[col];
    var text = cell ? cell.textContent.trim() : "";
    var m = text.match(NUM);
    return m ? parseFloat(m[0].replace("\u2212", "-")) : text;
  }
  function compare(x, y) {
    if (x === "" || y === "") { return x === y ? 0 : (x === "" ? 1 : -1); }
    if (typeof x === "number" && typeof y === "number") { return x - y; }
    if (typeof x === "number") { return -1; }
    if (typeof y === "number") { return 1; }
    return x.localeCompare(y, undefined, {numeric: true, sensitivity: "base"});
  }
  function sortBy(table, th, col) {
    var heads = table.tHead.rows[0].cells;
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, col), y = key(b, col);
      if (x === "" || y === "") { return compare(x, y); }  // empty cells stay last either way
      return dir * compare(x, y);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function init() {
    var tables = document.querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      if (!table.tHead || !table.tBodies.length) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        th.tabIndex = 0;
        th.title = "sort by this column";
        th.addEventListener("click", function () { sortBy(table, th, col); });
        th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(table, th, col); } });
      });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
"""

SITE_CSS = """/* randml site */
:root { --fg: #1d2430; --muted: #5b6575; --line: #d8dee8; --bg-alt: #f5f7fa; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); }
header.site { background: #16324f; color: #fff; padding: 0.6rem 1.5rem; display: flex; gap: 1.5rem; align-items: baseline; flex-wrap: wrap; }
header.site a { color: #fff; text-decoration: none; }
header.site a.home { font-weight: 700; font-size: 1.1rem; }
header.site nav a { margin-right: 1rem; opacity: 0.85; }
header.site nav a[aria-current] { opacity: 1; text-decoration: underline; }
main { max-width: 1320px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.7rem; margin: 0.8rem 0 0.3rem; }
h2 { font-size: 1.35rem; border-bottom: 2px solid var(--line); padding-bottom: 0.2rem; margin-top: 2.2rem; }
h3 { font-size: 1.12rem; margin-top: 1.6rem; }
h4, h5, h6 { font-size: 1rem; margin-top: 1.2rem; }
p.lead { color: var(--muted); margin-top: 0; }
nav.toc { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem 0.8rem; margin: 0.8rem 0; }
nav.toc a { margin-right: 1rem; }
a { color: var(--accent); }
code { font-size: 0.88em; background: var(--bg-alt); padding: 0 0.2em; border-radius: 3px; }
/* a table wider than the page scrolls inside its box; a shadow at an edge says there is more that way */
.scroll { overflow-x: auto; max-width: 100%; margin: 0.6rem 0;
  background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 2rem 100% no-repeat local,
              linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 2rem 100% no-repeat local,
              radial-gradient(farthest-side at 0 50%, rgba(0,0,0,0.2), rgba(0,0,0,0)) left / 0.8rem 100% no-repeat scroll,
              radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,0.2), rgba(0,0,0,0)) right / 0.8rem 100% no-repeat scroll; }
img { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.86rem; }
th, td { border: 1px solid var(--line); padding: 0.25rem 0.4rem; vertical-align: top; text-align: left; }
thead th { background: rgba(40, 70, 120, 0.07); position: sticky; top: 0; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th::after { content: "\\00a0\\2195"; color: #9aa5b5; font-size: 0.8em; }
table.sortable thead th[aria-sort=ascending]::after { content: "\\00a0\\25B2"; color: var(--fg); }
table.sortable thead th[aria-sort=descending]::after { content: "\\00a0\\25BC"; color: var(--fg); }
tbody tr:nth-child(even) { background: rgba(40, 70, 120, 0.025); }
abbr.mark { text-decoration: none; font-style: italic; font-weight: 600; color: var(--muted); cursor: help;
  border: 1px solid var(--line); border-radius: 0.7em; padding: 0 0.4em; font-size: 0.85em; }
ul.legend { list-style: none; padding: 0; margin: -0.2rem 0 0.8rem; font-size: 0.82rem; color: var(--muted); }
ul.legend li { margin: 0.1rem 0; }
.pair { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; margin: 1rem 0; }
.pair figure { flex: 2 1 560px; margin: 0; }
.pair figure:first-child { flex: 1 1 360px; }
tr.substitute td { background: #fff6e5; }
.artefact { border: 1px solid var(--line); border-radius: 6px; padding: 0.2rem 1rem 0.6rem; margin: 1rem 0; }
.files { font-size: 0.85rem; color: var(--muted); }
.files a { margin-right: 0.6rem; }
figure { margin: 1rem 0; border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem; }
figure img { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.85rem; color: var(--muted); margin-top: 0.4rem; }
details { margin: 0.6rem 0; }
summary { cursor: pointer; }
.badge { display: inline-block; padding: 0 0.45em; border-radius: 0.8em; font-size: 0.8em; font-weight: 700; letter-spacing: 0.02em; white-space: nowrap; border: 1px solid transparent; }
.v-held { background: #dff3e4; color: #17612e; border-color: #9fd5ae; }
.v-not-held { background: #fbe3e1; color: #9b1c13; border-color: #efa49d; }
.v-inconclusive { background: #fdf3d7; color: #7a5a00; border-color: #e8cf86; }
.v-undecidable { background: #eeeef2; color: #4a4a5a; border-color: #c8c8d4; }
.v-not-tested { background: #fdf1d6; color: #7a5300; border-color: #ecc97a; }
.v-reference { background: #e6ecf5; color: #304a6e; border-color: #b6c4da; }
.v-substitute { background: #fff; color: #a55200; border-color: #e0a060; }
.v-download { background: #fff; color: #5b6575; border-color: #b9c0cc; }
.placeholder { color: var(--muted); font-style: italic; }
footer { color: var(--muted); font-size: 0.8rem; border-top: 1px solid var(--line); margin-top: 3rem; padding: 0.6rem 0 1.5rem; }
footer .wrap { max-width: 1320px; margin: 0 auto; padding: 0 1.5rem; }
"""
