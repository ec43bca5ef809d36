// Live completeness meters of the section editor.
// "Filled" is computed here from the inputs of the current section (a parameter
// counts when one of its [data-fill] inputs has a value, or when "Not applicable"
// is ticked with a reason). The other sections come from the completeness API,
// fetched when the page loads (i.e. after every save).
(function () {
  "use strict";
  const form = document.getElementById("section-form");
  if (!form) return;
  const sectionMeter = document.getElementById("section-meter");
  const overallMeter = document.getElementById("overall-meter");
  const current = form.dataset.section;

  function round(x) {
    return Math.round(x * 10) / 10;
  }

  function setMeter(meter, percent) {
    if (!meter) return;
    const value = round(percent).toFixed(1);
    meter.value = Number(value);
    meter.setAttribute("aria-valuenow", value);
    meter.dataset.percent = value;
    const label = meter.parentElement.querySelector("[data-meter-label]");
    if (label) label.textContent = Math.round(percent) + " %";
  }

  function isFilled(block) {
    const na = block.querySelector("[data-na]");
    if (na && na.checked) {
      const reason = block.querySelector("[data-reason]");
      return Boolean(reason && reason.value.trim());
    }
    return Array.from(block.querySelectorAll("[data-fill]")).some(function (input) {
      if (input.type === "checkbox" || input.type === "radio") return input.checked;
      return input.value.trim() !== "";
    });
  }

  function update() {
    const blocks = form.querySelectorAll("[data-parameter]");
    let done = 0;
    blocks.forEach(function (block) {
      const filled = isFilled(block);
      block.dataset.filled = String(filled);
      if (filled) done += 1;
    });
    const total = blocks.length;
    const percent = total ? (100 * done) / total : 100;
    setMeter(sectionMeter, percent);
    setMeter(document.querySelector('#section-nav [data-section="' + CSS.escape(current) + '"]'), percent);
    const elsewhere = Number(overallMeter.dataset.doneElsewhere);
    const overallTotal = Number(overallMeter.dataset.total);
    setMeter(overallMeter, overallTotal ? (100 * (elsewhere + done)) / overallTotal : 100);
  }

  function refresh(data) {
    let doneElsewhere = 0;
    let total = 0;
    data.sections.forEach(function (section) {
      const key = section.group + "|" + (section.task_id === null ? "" : section.task_id);
      total += section.total;
      if (key === current) return;
      doneElsewhere += section.done;
      setMeter(document.querySelector('#section-nav [data-section="' + CSS.escape(key) + '"]'), section.percent);
    });
    overallMeter.dataset.doneElsewhere = String(doneElsewhere);
    overallMeter.dataset.total = String(total);
    update();
  }

  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
  const url = form.dataset.completenessUrl;
  if (url && window.fetch) {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) { if (data) refresh(data); })
      .catch(function () { /* the server-rendered meters stay */ });
  }
})();
