// The live progress page: while the sweep runs, fetch its progress every data-every milliseconds and redraw the
// counts and the run table from it (text only, never markup); stop once the sweep is no longer running.
// Without this script the page shows the progress as it was when loaded.
addEventListener("DOMContentLoaded", () => {
  const section = document.getElementById("progress");
  const pct = (value) => (value === null ? "—" : (100 * value).toFixed(1));
  const cell = (text, numeric) => {
    const td = document.createElement("td");
    if (numeric) td.className = "num";
    td.textContent = text;
    return td;
  };
  const row = (run) => {
    const tr = document.createElement("tr");
    const link = document.createElement("a");
    link.href = `/runs/${encodeURIComponent(run.id)}`;
    const code = document.createElement("code");
    code.textContent = run.id;
    link.append(code);
    const first = document.createElement("td");
    first.append(link);
    tr.append(first, cell(run.model), cell(run.persona), cell(run.ablation), cell(run.status),
      cell(`${run.sessions_done}/${run.sessions_planned}`, true), cell(pct(run.proc), true), cell(pct(run.comp), true));
    return tr;
  };
  const show = (progress) => {
    document.getElementById("done").textContent = progress.sessions_done;
    document.getElementById("planned").textContent = progress.sessions_planned;
    document.getElementById("status").textContent = progress.status;
    const bar = document.getElementById("bar");
    bar.max = progress.sessions_planned || 1;
    bar.value = progress.sessions_done;
    document.getElementById("runs").replaceChildren(...progress.runs.map(row));
    document.getElementById("updated").textContent = `as of ${new Date().toLocaleTimeString()}`;
    section.dataset.live = progress.live ? "yes" : "no";
    if (!progress.live) document.getElementById("how").textContent = "The sweep is not running: this is where it ended.";
  };
  const poll = async () => {
    try {
      const answer = await fetch(section.dataset.url, { cache: "no-store" });
      if (answer.ok) show(await answer.json());
    } catch (error) {
      document.getElementById("updated").textContent = `the viewer did not answer (${error.message}); trying again`;
    }
    section.dataset.polls = Number(section.dataset.polls || 0) + 1;
    if (section.dataset.live === "yes") setTimeout(poll, Number(section.dataset.every));
  };
  if (section.dataset.live === "yes") setTimeout(poll, Number(section.dataset.every));
});
