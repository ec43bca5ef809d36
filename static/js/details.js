// Collapsed sections (<details>) of long pages (the public record, results):
// a link to something inside one opens it (on load and on hash changes),
// printing opens them all, and [data-details-all] buttons open or close the
// sections inside the element their aria-controls names.
(function () {
  "use strict";
  function openAround(node) {
    for (var n = node; n; n = n.parentElement) {
      if (n.tagName === "DETAILS") n.open = true;
    }
  }
  function openTarget() {
    if (!location.hash) return;
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) {
      openAround(target);
      target.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
  document.querySelectorAll("[data-details-all]").forEach(function (button) {
    var scope = document.getElementById(button.getAttribute("aria-controls")) || document;
    var open = button.getAttribute("data-details-all") === "open";
    button.hidden = false;
    button.addEventListener("click", function () {
      scope.querySelectorAll("details").forEach(function (d) { d.open = open; });
    });
  });
})();
