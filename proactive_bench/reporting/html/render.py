"""The report's pages: store → views → HTML (jinja2, autoescaped), and where the pages go.

A report of runs is an index (tables, figures, the run list, the session ×
model matrix) and one page per run (its sessions and their trajectories)
under ``runs/`` beside the index; every link between them is relative, so the
folder opens from disk and can be moved or zipped. A comparison is one page.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, ChoiceLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

import proactive_bench.reporting.html.figures as figures
from proactive_bench.reporting.burden import burden_rows
from proactive_bench.reporting.html.categories import category_name, category_table
from proactive_bench.reporting.html.compare import difference, pair_sessions
from proactive_bench.reporting.html.matrix import session_matrix
from proactive_bench.reporting.html.readable import readable
from proactive_bench.reporting.html.sources import (
    EpisodeCatalog,
    resolve_run,
    resolve_runs,
)
from proactive_bench.reporting.html.trajectory import SessionView, session_views
from proactive_bench.reporting.summary import RunView, load_run, summarize
from proactive_bench.reporting.tables import (
    failure_counts,
    marked,
    mean_std,
    pct,
)
from proactive_bench.review import disagreement
from proactive_bench.store import Store


def _delta(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}"


def _breakable(text: str) -> Markup:
    """``text`` escaped, free to wrap after ``: / _ . -`` (long model names and session ids in narrow columns)."""
    return Markup("<wbr>").join(escape(part) for part in re.split(r"(?<=[:/_.-])", text))


_TEMPLATES = PackageLoader("proactive_bench.reporting.html", "templates")
_ENV = Environment(
    loader=_TEMPLATES,
    autoescape=True,  # trajectories hold model output: every value is escaped
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters.update(
    pct=pct,
    mean_std=mean_std,
    delta=_delta,
    marked=marked,
    failure_counts=failure_counts,
    category_name=category_name,
    readable=readable,
    breakable=_breakable,
)


def environment(first: BaseLoader) -> Environment:
    """The report's templates and filters, with the templates ``first`` finds before them (a served page extends ``base.html.j2``)."""
    return _ENV.overlay(loader=ChoiceLoader([first, _TEMPLATES]))


RUNS_FOLDER = "runs"
"""The run pages' folder, beside the index."""


def run_page(run_id: str) -> str:
    """A run's page, relative to the index's folder."""
    return f"{RUNS_FOLDER}/{re.sub(r'[^A-Za-z0-9_.-]', '_', run_id)}.html"


@dataclass(frozen=True)
class Report:
    """A report of runs, ready to render: the index's context and each run with its sessions."""

    index: dict[str, Any]
    runs: list[tuple[RunView, list[SessionView]]]

    def pages(self, index_name: str = "index.html") -> dict[str, str]:
        """Every page's HTML by its path relative to the index's folder (the index is ``index_name``)."""
        pages = {index_name: self.index_html()}
        for view, sessions in self.runs:
            pages[run_page(view.run.id)] = run_html(view, sessions, self.index, f"../{index_name}")
        return pages

    def index_html(self, link: Callable[[str], str] = run_page, **chrome: str) -> str:
        """The index page; ``link`` gives a run's page from its id, ``chrome`` the header of a served page (see :func:`run_html`)."""
        return _ENV.get_template("report.html.j2").render(**self.index, **chrome, runs=self.runs, run_page=link)


def run_html(view: RunView, sessions: list[SessionView], index: dict[str, Any], index_href: str, **chrome: str) -> str:
    """One run's page: its sessions and their trajectories, linking back to the index at ``index_href``.

    ``chrome`` is what a served page adds to the header (``app``: the heading's name, ``home``: a link to the start page)."""
    return _ENV.get_template("run.html.j2").render(
        **_common_of(index, f"run {view.run.id} · {view.run.model} · {view.run.persona}"),
        **chrome,
        report_title=index["title"],
        index_href=index_href,
        view=view,
        sessions=sessions,
        choices={k: v for k, v in session_matrix(sessions).choices().items() if k in ("category", "status")},
    )


def render_run(store: Store, run_id: str, index_href: str, **chrome: str) -> str:
    """The page of one run (ReportError when the store has none), its index being the report of the run's sweep (or of the run)."""
    run = resolve_run(store, run_id)
    index = _common(store, f"sweep {run.sweep_id}" if run.sweep_id else f"run {run.id}")
    return run_html(load_run(store, run), session_views(store, run, EpisodeCatalog()), index, index_href, **chrome)


def report_paths(out: Path) -> tuple[Path, Path]:
    """The index file and the report's folder: ``--out NAME.html`` is the index with ``runs/`` beside it; any other path is a folder holding ``index.html`` and ``runs/``."""
    if out.suffix.lower() in (".html", ".htm"):
        return out, out.parent
    return out / "index.html", out


def write_report(report: Report | str, out: Path) -> Path:
    """Write a report (a comparison is one page) under ``out`` (see :func:`report_paths`); return the index's path. Raises OSError."""
    index, folder = report_paths(out)
    pages = {index.name: report} if isinstance(report, str) else report.pages(index.name)
    for relative, html in pages.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8", errors="backslashreplace")  # a file name that is not UTF-8 cannot stop a report
    return index


def render_report(store: Store, ident: str) -> Report:
    """The report of a sweep or a run: tables, figures, the run list and the session matrix; every session's trajectory on its run's page."""
    title, runs = resolve_runs(store, ident)
    summary = summarize(store, runs)
    catalog = EpisodeCatalog()
    sessions = {run.id: session_views(store, run, catalog) for run in runs}
    run_ids: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for row in summary.runs:
        run_ids[(row["model"], row["persona"], row["ablation"])].append(row["run_id"])
    matrix = session_matrix([v for run in runs for v in sessions[run.id]])
    return Report(
        index=dict(
            **_common(store, title),
            summary=summary,
            pass_keys=summary.pass_keys,
            run_ids=run_ids,
            matrix=matrix,
            choices=matrix.choices(),
            categories=category_table(summary),
            audits=disagreement(store, runs),
            figures={
                "model_proc_comp": figures.model_proc_vs_comp(summary),
                "category_proc_comp": figures.category_proc_vs_comp(summary),
                "proc_comp": figures.proc_vs_comp(summary),
                "model_turns_proc": figures.model_turns_vs_proc(summary),
                "turns_proc": figures.turns_vs_proc(summary),
                "ablation": figures.ablation_bars(summary),
                "proc_burden": figures.proc_vs_burden(burden_rows(store, runs)),
            },
        ),
        runs=[(load_run(store, run), sessions[run.id]) for run in runs],
    )


def render_comparison(store: Store, run_a: str, run_b: str, **chrome: str) -> str:
    """Two runs side by side: scores, per-session changes, and both trajectories of each session (``chrome``: see :func:`run_html`)."""
    a, b = resolve_run(store, run_a), resolve_run(store, run_b)
    catalog = EpisodeCatalog()
    return _ENV.get_template("compare.html.j2").render(
        **_common(store, f"run {a.id} vs run {b.id}"),
        **chrome,
        a=load_run(store, a),
        b=load_run(store, b),
        difference=difference,
        pairs=pair_sessions(session_views(store, a, catalog), session_views(store, b, catalog)),
    )


def _common(store: Store, title: str) -> dict[str, Any]:
    return {"title": title, "db": str(store.name), "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}


def _common_of(index: dict[str, Any], title: str) -> dict[str, Any]:
    """The page header of a run page: the index's database and time, its own title."""
    return {"title": title, "db": index["db"], "generated": index["generated"]}
