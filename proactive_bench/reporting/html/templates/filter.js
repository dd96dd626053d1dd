// The filter box: hides the rows (and matrix columns, and session sections) whose data-persona,
// data-model, data-category or data-status differ from a chosen value. The page's query string
// (?model=...&status=...) sets the first choice. Without this script nothing is hidden.
addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("filter");
  const keys = ["persona", "model", "category", "status"];
  const fits = (el, chosen) => keys.every((k) => {
    const value = el.dataset[k];
    return !chosen[k] || value === undefined || (k === "status" ? value.split(" ").includes(chosen[k]) : value === chosen[k]);
  });
  const apply = () => {
    const chosen = Object.fromEntries(keys.map((k) => [k, form.elements[k] ? form.elements[k].value : ""]));
    document.querySelectorAll("[data-f]").forEach((el) => { el.hidden = !fits(el, chosen); });
    document.querySelectorAll("[data-f-any]").forEach((el) => {
      if (!el.hidden) el.hidden = !el.querySelector("[data-f-entry]:not([hidden])");
    });
    const rows = document.querySelectorAll("[data-f-count]");
    const shown = [...rows].filter((el) => !el.hidden).length;
    document.getElementById("filter-count").textContent = `showing ${shown} of ${rows.length}`;
  };
  const query = new URLSearchParams(location.search);
  keys.forEach((k) => { if (form.elements[k] && query.has(k)) form.elements[k].value = query.get(k); });
  form.addEventListener("change", apply);
  form.addEventListener("reset", () => setTimeout(apply));
  form.addEventListener("submit", (event) => { event.preventDefault(); apply(); });
  form.hidden = false;
  apply();
  document.body.dataset.filtered = "yes";
});
