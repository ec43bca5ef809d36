// Progress of an analysis run: polls GET /api/v1/analyses/{id}/ while the run is
// queued or running, moves the <progress> bar, and when the run is done or failed
// loads the page's result part (server-rendered HTML) without a reload.
(function () {
  "use strict";
  const box = document.getElementById("analysis-progress");
  if (!box) return;
  const bar = document.getElementById("progress-bar");
  const label = document.getElementById("progress-label");
  const statusBox = document.getElementById("run-status");
  const body = document.getElementById("analysis-body");
  const note = document.getElementById("run-note");
  const interval = Number(box.dataset.interval) || 1000;
  const FINISHED = ["done", "failed"];
  const NAMES = { queued: "Queued", running: "Running", done: "Done", failed: "Failed" };
  const BADGES = { done: "text-bg-success", failed: "text-bg-danger" };

  function showProgress(percent) {
    const value = Math.max(0, Math.min(100, Math.round(percent)));
    bar.value = value;
    bar.setAttribute("aria-valuenow", String(value));
    label.textContent = value + " %";
  }

  function showStatus(status) {
    box.dataset.status = status;
    const badge = statusBox.querySelector("[data-run-status]");
    if (!badge) return;
    badge.dataset.runStatus = status;
    badge.textContent = NAMES[status] || status;
    badge.className = "badge " + (BADGES[status] || "text-bg-secondary");
  }

  function loadBody() {
    return fetch(box.dataset.bodyUrl, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        body.innerHTML = html; // Django-rendered and escaped on the server
        body.dataset.loaded = "true";
      });
  }

  function poll() {
    fetch(box.dataset.apiUrl, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (run) {
        showProgress(run.status === "done" ? 100 : run.progress);
        showStatus(run.status);
        if (note) note.textContent = FINISHED.indexOf(run.status) >= 0 ? "" : run.note || "";
        if (FINISHED.indexOf(run.status) >= 0) return loadBody();
        window.setTimeout(poll, interval);
      })
      .catch(function () {
        window.setTimeout(poll, interval * 3); // a hiccup: try again, slower
      });
  }

  if (FINISHED.indexOf(box.dataset.status) < 0) {
    window.setTimeout(poll, interval);
  } else {
    box.dataset.polling = "finished";
  }
})();
