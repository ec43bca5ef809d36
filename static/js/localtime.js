// Show every <time data-local> in the reader's own time zone and locale.
// The server renders UTC text; this only rewrites it when the browser can.
(function () {
  "use strict";
  var options = {
    // dateStyle cannot be combined with timeZoneName: name the fields.
    datetime: {
      year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short",
    },
    date: { year: "numeric", month: "short", day: "numeric" },
  };
  document.querySelectorAll("time[data-local]").forEach(function (node) {
    var moment = new Date(node.getAttribute("datetime"));
    if (isNaN(moment.getTime())) return;
    var style = options[node.dataset.local] || options.datetime;
    try {
      node.textContent = new Intl.DateTimeFormat(undefined, style).format(moment);
      node.title = moment.toISOString();
    } catch (e) {
      // Older browsers without dateStyle: keep the server's UTC text.
    }
  });
})();
