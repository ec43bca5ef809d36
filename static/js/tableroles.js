// Tables that stack into cards on phones (.table-stack, site.css) keep their
// table semantics in the markup, but some browsers (older Safari, VoiceOver)
// drop them once rows and cells are displayed as grid or flex items: then a
// screen reader no longer says which column a value is in. Explicit ARIA
// roles, the same as the elements' own, keep them whatever the display.
(function () {
  "use strict";
  var roles = { THEAD: "rowgroup", TBODY: "rowgroup", TFOOT: "rowgroup", TR: "row", TD: "cell" };
  document.querySelectorAll("table.table-stack").forEach(function (table) {
    table.setAttribute("role", "table");
    table.querySelectorAll("thead, tbody, tfoot, tr, th, td").forEach(function (node) {
      if (node.closest("table") !== table || node.hasAttribute("role")) return;
      var role = roles[node.tagName];
      if (node.tagName === "TH") {
        role = node.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
      }
      node.setAttribute("role", role);
    });
  });
})();
