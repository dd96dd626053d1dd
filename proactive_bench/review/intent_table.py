"""``pbench export --table intents``: one flat row per (run, session, intent), as CSV, Parquet or JSON lines, for notebooks.

Each row carries its run's settings, its session's outcome and the figures the
session enters the run's Proc and Comp with (docs/reports.md shows Table 1
rebuilt from them), and one intent's label. A session has one row per hidden
intent: its labelled intents by id, each intent left unlabelled as a row with
no id and the label ``unresolved`` (the store keeps labels, not the ids of
intents that got none), and a session without intents one row with neither.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from proactive_bench.episode import run_spec
from proactive_bench.review.stored_results import episode_shape, stored_run_result
from proactive_bench.scoring import SessionResult, TaskScore
from proactive_bench.store import ReadQueries, RunLike, StoredIntentEvent

INTENT_COLUMNS = (
    "run_id",
    "sweep_id",
    "created",
    "model",
    "agent",
    "persona",
    "ablation",
    "repeat",
    "user",
    "protocol",
    "run_status",
    "partial",
    "session_id",
    "position",
    "category",
    "session_status",
    "follow_up_turns",
    "intents",
    "intent_id",
    "label",
    "label_stage",
    "label_turn",
    "session_proc",
    "task_proc",
    "proc_weight",
    "comp",
    "comp_weight",
    "checklist_items",
    "checklist_passed",
    "checklist_pass_ratio",
    "passed",
)
"""The table's columns, in order (docs/reports.md describes each)."""
TABLE_FORMATS = ("csv", "parquet", "jsonl")
"""What the table is written as."""


class TableFormatError(Exception):
    """A table format that cannot be written here (pyarrow missing for Parquet)."""


def intent_rows(store: ReadQueries, runs: Sequence[RunLike]) -> Iterator[dict[str, Any]]:
    """The rows of every finished session of each run, in run and session order."""
    for run in runs:
        spec = run_spec(run)
        shape = episode_shape(run)
        result = stored_run_result(store, run, shape.depends_on)
        tasks = {t.session_id: t for t in result.tasks}
        session_runs = {sr.session_id: sr for sr in store.session_runs(run.id)}
        base = {
            "run_id": run.id,
            "sweep_id": run.sweep_id,
            "created": run.created.isoformat(),
            "model": run.model,
            "agent": spec.agent,
            "persona": run.persona,
            "ablation": spec.ablation,
            "repeat": spec.repeat,
            "user": run.user_backend,
            "protocol": result.scoring.name,
            "run_status": run.status,
            "partial": result.partial,
        }
        for session in result.sessions:
            session_run = session_runs[session.session_id]
            assert session_run.id is not None
            row = base | {"position": session_run.position, "category": shape.categories.get(session.session_id)}
            row |= _session_figures(session, tasks[session.session_id])
            events: list[StoredIntentEvent] = store.rows(StoredIntentEvent, session_run.id)
            for event in events:
                yield row | {"intent_id": event.intent_id, "label": event.status, "label_stage": event.stage, "label_turn": event.turn}
            unlabelled = session.counts.total - len(events)
            for _ in range(unlabelled):
                yield row | {"intent_id": None, "label": "unresolved", "label_stage": None, "label_turn": None}
            if session.counts.total == 0:
                yield row | {"intent_id": None, "label": None, "label_stage": None, "label_turn": None}


def _session_figures(session: SessionResult, task: TaskScore) -> dict[str, Any]:
    """What a session enters the run's figures with, repeated on each of its rows."""
    counted = [g for g in session.grades if g.status in ("pass", "fail", "error")]
    passed = sum(g.status == "pass" for g in counted)
    return {
        "session_id": session.session_id,
        "session_status": session.status,
        "follow_up_turns": session.follow_up_turns,
        "intents": session.counts.total,
        "session_proc": session.proc,
        "task_proc": task.proc,
        "proc_weight": task.proc_weight,
        "comp": task.comp,
        "comp_weight": task.comp_weight,
        "checklist_items": len(counted),
        "checklist_passed": passed,
        "checklist_pass_ratio": passed / len(counted) if counted else None,
        "passed": session.passed,
    }


def table_lines(rows: Iterator[dict[str, Any]], fmt: str) -> Iterator[str]:
    """The rows as CSV (a header first) or JSON lines, one string per line."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, INTENT_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()
    else:
        yield from (json.dumps({c: row[c] for c in INTENT_COLUMNS}, ensure_ascii=False) + "\n" for row in rows)


def write_parquet(rows: Iterator[dict[str, Any]], out: Path) -> int:
    """Write the rows to ``out`` as Parquet, typed by column; the number of rows. TableFormatError when pyarrow is missing."""
    try:
        import pyarrow as pa  # an optional extra (tables), loaded for a Parquet export only
        import pyarrow.parquet as pq
    except ImportError:
        raise TableFormatError("--format parquet needs pyarrow: pip install 'pbench[tables]'") from None
    table = pa.Table.from_pylist([{c: row[c] for c in INTENT_COLUMNS} for row in rows], schema=_schema(pa))
    pq.write_table(table, out)
    return int(table.num_rows)


def _schema(pa: Any) -> Any:
    """The Parquet columns' types, fixed so an empty export or a column of nulls still has them."""
    types = {
        "repeat": pa.int64(),
        "partial": pa.bool_(),
        "position": pa.int64(),
        "follow_up_turns": pa.int64(),
        "intents": pa.int64(),
        "label_turn": pa.int64(),
        "session_proc": pa.float64(),
        "task_proc": pa.float64(),
        "proc_weight": pa.int64(),
        "comp": pa.float64(),
        "comp_weight": pa.int64(),
        "checklist_items": pa.int64(),
        "checklist_passed": pa.int64(),
        "checklist_pass_ratio": pa.float64(),
        "passed": pa.bool_(),
    }
    return pa.schema([(c, types.get(c, pa.string())) for c in INTENT_COLUMNS])
