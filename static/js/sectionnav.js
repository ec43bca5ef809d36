// Section navigation that follows scrolling: marks the link of the section
// nearest the top of the viewport (the review page's proposal pane).
(function () {
  "use strict";
  var nav = document.getElementById("section-nav");
  if (!nav || !("IntersectionObserver" in window)) return;
  var links = {};
  nav.querySelectorAll('a[href^="#"]').forEach(function (link) {
    links[link.getAttribute("href").slice(1)] = link;
  });
  var visible = new Set();
  function mark() {
    var first = null;
    visible.forEach(function (id) {
      var node = document.getElementById(id);
      if (node && (!first || node.getBoundingClientRect().top < first.getBoundingClientRect().top)) {
        first = node;
      }
    });
    if (!first) return;
    Object.keys(links).forEach(function (id) {
      var active = id === first.id;
      links[id].classList.toggle("active", active);
      if (active) links[id].setAttribute("aria-current", "location");
      else links[id].removeAttribute("aria-current");
    });
  }
  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) visible.add(entry.target.id);
      else visible.delete(entry.target.id);
    });
    mark();
  });
  Object.keys(links).forEach(function (id) {
    var node = document.getElementById(id);
    if (node && id !== "review-form-section") observer.observe(node);
  });
})();
