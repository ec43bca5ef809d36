// Repeating rows (schedule, metrics): reveal "Add row" and clone the last row.
// Without JavaScript the editor still shows a few blank rows to fill.
(function () {
  "use strict";
  document.querySelectorAll("[data-add-row]").forEach(function (button) {
    const table = button.previousElementSibling;
    if (!table || !table.matches("[data-rows]")) return;
    button.classList.remove("d-none");
    button.addEventListener("click", function () {
      const body = table.tBodies[0];
      const last = body.querySelector("tr[data-row]:last-of-type");
      const row = last.cloneNode(true);
      const index = body.querySelectorAll("tr[data-row]").length;
      row.querySelectorAll("input").forEach(function (input) {
        if (input.type === "checkbox") {
          input.checked = false;
          if (input.hasAttribute("data-row-index")) input.value = String(index);
        } else {
          input.value = "";
        }
      });
      body.appendChild(row);
      const first = row.querySelector("input");
      if (first) first.focus();
    });
  });
})();
