"""User burden over runs: means per model × persona, as a table (plotted against Proc by ``html.figures``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import mean
from typing import Any

from rich.table import Table

from proactive_bench.reporting.summary import load_run
from proactive_bench.scoring import SNAPSHOT_KIND, Burden
from proactive_bench.store import ReadQueries, RunLike


@dataclass
class BurdenRow:
    """Burden per model and persona over the stored sessions of some runs."""

    model: str
    persona: str
    sessions: int
    questions: float
    question_words: float
    user_turns: float
    untargeted_share: float | None
    reasked: float
    """Questions per session about a convention already known from an earlier session."""
    leaks: int
    proc: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def burden_rows(store: ReadQueries, runs: Sequence[RunLike]) -> list[BurdenRow]:
    """Means per session (questions, words, user turns), pooled untargeted share, leak count and mean Proc, per model × persona."""
    grouped: dict[tuple[str, str], list[Burden]] = defaultdict(list)
    procs: dict[tuple[str, str], list[float]] = defaultdict(list)
    for run in runs:
        run_proc = load_run(store, run).result.proc
        if run_proc is not None:
            procs[(run.model, run.persona)].append(run_proc)
        for session_run in store.session_runs(run.id):
            assert session_run.id is not None
            stored = store.snapshot(session_run.id, SNAPSHOT_KIND)
            if stored is not None:
                stored = {k: v for k, v in stored.items() if k != "untargeted_share"}
                grouped[(run.model, run.persona)].append(Burden(**stored))
    rows = []
    for (model, persona), burdens in grouped.items():
        asked = sum(b.questions for b in burdens)
        rows.append(
            BurdenRow(
                model,
                persona,
                len(burdens),
                mean(b.questions for b in burdens),
                mean(b.question_words for b in burdens),
                mean(b.user_turns for b in burdens),
                sum(b.untargeted for b in burdens) / asked if asked else None,
                mean(b.reasked for b in burdens),
                sum(len(b.leaks) for b in burdens),
                mean(procs[(model, persona)]) if procs[(model, persona)] else None,
            )
        )
    return rows


def burden_table(rows: list[BurdenRow]) -> Table:
    table = Table(title="User burden per session (mean)")
    for column in (
        "model",
        "persona",
        "sessions",
        "questions",
        "question words",
        "user turns",
        "untargeted",
        "re-asked conventions",
        "leaks",
    ):
        table.add_column(column, justify="left" if column in ("model", "persona") else "right", no_wrap=column in ("model", "persona"))
    for r in rows:
        share = "—" if r.untargeted_share is None else f"{100 * r.untargeted_share:.0f}%"
        table.add_row(
            r.model,
            r.persona,
            str(r.sessions),
            f"{r.questions:.1f}",
            f"{r.question_words:.0f}",
            f"{r.user_turns:.1f}",
            share,
            f"{r.reasked:.1f}",
            str(r.leaks),
        )
    return table
