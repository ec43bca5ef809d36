// Show every <time data-local> in the reader's own time zone and locale.
// The server renders UTC text; this only rewrites it when the browser can.
(function () {
  "use strict";
  var options = {
    datetime: { dateStyle: "medium", timeStyle: "short", timeZoneName: "short" },
    date: { dateStyle: "medium" },
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
