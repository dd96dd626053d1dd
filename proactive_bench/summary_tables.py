"""A :class:`~proactive_bench.summary.Summary` as rich tables or CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from rich.table import Table

from proactive_bench.summary import Summary


def pct(value: float | None) -> str:
    """A fraction as a percentage with one decimal, or a dash."""
    return "—" if value is None else f"{100 * value:.1f}"


def mean_std(stats: dict[str, Any]) -> str:
    """``mean ± std`` in percent, or a dash."""
    if stats["mean"] is None:
        return "—"
    return f"{100 * stats['mean']:.1f} ± {100 * stats['std']:.1f}"


def summary_tables(summary: Summary) -> list[Table]:
    """The main table, then ablation, statuses, turns and cost where there is something to show."""
    tables = []
    main = Table(title="Proc and Comp (%, mean ± std over runs)")
    pass_keys = summary.pass_keys
    for name in ("model", "persona", "ablation", "runs", "Proc", "Comp", *pass_keys):
        main.add_column(name, justify="left" if name in ("model", "persona", "ablation") else "right")
    for row in summary.main:
        main.add_row(row["model"], row["persona"], row["ablation"], str(row["runs"]), mean_std(row["proc"]), mean_std(row["comp"]), *(pct(row.get(k)) for k in pass_keys))
    tables.append(main)
    if summary.ablation:
        ablation = Table(title="No-dependency-history ablation: final sessions of dependency groups (%)")
        for name in ("model", "persona", "sessions", "Proc with", "Proc without", "Δ Proc", "Comp with", "Comp without", "Δ Comp"):
            ablation.add_column(name)
        for row in summary.ablation:
            ablation.add_row(
                row["model"], row["persona"], ", ".join(row["sessions"]),
                *(pct(row[f"{m}_{w}"]) for m in ("proc",) for w in ("with_history", "without_history", "delta")),
                *(pct(row[f"{m}_{w}"]) for m in ("comp",) for w in ("with_history", "without_history", "delta")),
            )
        tables.append(ablation)
    statuses = Table(title="Terminal statuses: intents (%) and sessions")
    for name in ("model", "completed", "inferred", "provided", "unresolved", "sessions ok/truncated/error"):
        statuses.add_column(name)
    for row in summary.statuses:
        s = row["sessions"]
        statuses.add_row(row["model"], *(pct(row["intents"][k]) for k in ("completed", "inferred", "provided", "unresolved")), f"{s['completed']}/{s['truncated']}/{s['error']}")
    tables.append(statuses)
    turns = Table(title="Turns per session")
    for name in ("model", "mean", "median", "max"):
        turns.add_column(name)
    for row in summary.turns:
        turns.add_row(row["model"], f"{row['mean']:.2f}", f"{row['median']:.1f}", str(row["max"]))
    tables.append(turns)
    if summary.cost:
        cost = Table(title="Model calls and cost")
        for name in ("model", "role", "calls", "cached", "failed", "prompt tok", "completion tok", "USD", "unpriced"):
            cost.add_column(name)
        for row in summary.cost:
            cost.add_row(
                row["model"], row["role"], *(str(row[k]) for k in ("calls", "cached", "failed", "prompt_tokens", "completion_tokens")),
                f"{row['cost_usd']:.4f}", str(row["unpriced_calls"]),
            )
        tables.append(cost)
    return tables


def summary_csv(summary: Summary) -> str:
    """The main table as CSV (fractions, not percentages)."""
    buffer = io.StringIO()
    pass_keys = summary.pass_keys
    writer = csv.writer(buffer)
    writer.writerow(["model", "persona", "ablation", "runs", "proc_mean", "proc_std", "comp_mean", "comp_std", *pass_keys])
    for row in summary.main:
        writer.writerow(
            [row["model"], row["persona"], row["ablation"], row["runs"], row["proc"]["mean"], row["proc"]["std"], row["comp"]["mean"], row["comp"]["std"], *(row.get(k) for k in pass_keys)]
        )
    return buffer.getvalue()
