"""The report page: store → views → one self-contained HTML string (jinja2, autoescaped)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

import proactive_bench.reporting.html.figures as figures
from proactive_bench.reporting.burden import burden_rows, proc_vs_burden
from proactive_bench.reporting.html.categories import category_table
from proactive_bench.reporting.html.compare import difference, pair_sessions
from proactive_bench.reporting.html.sources import (
    EpisodeCatalog,
    resolve_run,
    resolve_runs,
)
from proactive_bench.reporting.html.trajectory import session_views
from proactive_bench.reporting.summary import load_run, summarize
from proactive_bench.reporting.summary_tables import (
    failure_counts,
    marked,
    mean_std,
    pct,
)
from proactive_bench.review import disagreement
from proactive_bench.store import Store


def _delta(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}"


_ENV = Environment(
    loader=PackageLoader("proactive_bench.reporting.html", "templates"),
    autoescape=True,  # trajectories hold model output: every value is escaped
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters.update(pct=pct, mean_std=mean_std, delta=_delta, marked=marked, failure_counts=failure_counts)


def render_report(store: Store, ident: str) -> str:
    """The report of a sweep or a run: tables, figures, the run index and every session's trajectory."""
    title, runs = resolve_runs(store, ident)
    summary = summarize(store, runs)
    catalog = EpisodeCatalog()
    sessions = {run.id: session_views(store, run, catalog) for run in runs}
    run_ids: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for row in summary.runs:
        run_ids[(row["model"], row["persona"], row["ablation"])].append(row["run_id"])
    return _ENV.get_template("report.html.j2").render(
        **_common(store, title),
        summary=summary,
        pass_keys=summary.pass_keys,
        run_ids=run_ids,
        runs=[(load_run(store, run), sessions[run.id]) for run in runs],
        categories=category_table(summary),
        audits=disagreement(store, runs),
        figures={
            "proc_comp": figures.proc_vs_comp(summary),
            "turns_proc": figures.turns_vs_proc(summary),
            "ablation": figures.ablation_bars(summary),
            "proc_burden": proc_vs_burden(burden_rows(store, runs)),
        },
    )


def render_comparison(store: Store, run_a: str, run_b: str) -> str:
    """Two runs side by side: scores, per-session changes, and both trajectories of each session."""
    a, b = resolve_run(store, run_a), resolve_run(store, run_b)
    catalog = EpisodeCatalog()
    return _ENV.get_template("compare.html.j2").render(
        **_common(store, f"run {a.id} vs run {b.id}"),
        a=load_run(store, a),
        b=load_run(store, b),
        difference=difference,
        pairs=pair_sessions(session_views(store, a, catalog), session_views(store, b, catalog)),
    )


def _common(store: Store, title: str) -> dict[str, Any]:
    return {"title": title, "db": str(store.path), "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}
