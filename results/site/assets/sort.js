// randml site: click a table header to sort by that column (again to reverse).
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
