"""Whether a run meets a marker's thresholds, and the failure text: what fell short, which intents the user had to
provide, which checklist items failed, and how to look at the run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from proactive_bench.pytest_plugin.gate import Gate

if TYPE_CHECKING:
    from proactive_bench.scoring import EpisodeResult

FIGURES = {"min_proc": ("Proc", "proc"), "min_comp": ("Comp", "comp")}


def shortfalls(gate: Gate, result: EpisodeResult) -> list[str]:
    """One line per threshold the run misses (an undefined figure misses its threshold), and one for a partial run."""
    missed = []
    for threshold, required in gate.thresholds.items():
        label, attribute = FIGURES[threshold]
        value = getattr(result, attribute)
        if value is None:
            missed.append(f"{label} is undefined (no {'intents' if attribute == 'proc' else 'graded items'}) < {threshold} {required:g}")
        elif value < required:
            missed.append(f"{label} {value:.3f} < {threshold} {required:g}")
    if gate.thresholds and result.partial:
        missed.append(f"the run is {result.run_status}: {result.failures.not_run} of {len(result.planned)} sessions did not run")
    return missed


def failure_text(gate: Gate, result: EpisodeResult, missed: list[str], db: str) -> str:
    """The test's failure message: the shortfalls, then the evidence, then the commands that show the run."""
    lines = [f"pbench: {gate.describe()}: " + "; ".join(missed)]
    provided = [(s.session_id, ", ".join(s.provided_intents)) for s in result.sessions if s.provided_intents]
    if provided:
        lines.append("intents the user had to provide (not completed or inferred):")
        lines += [f"  {sid}: {intents}" for sid, intents in provided]
    failed = [
        (s.session_id, ", ".join(f"{g.item_id}{'' if g.status == 'fail' else f' ({g.status})'}" for g in s.grades if g.status != "pass"))
        for s in result.sessions
    ]
    failed = [(sid, items) for sid, items in failed if items]
    if failed:
        lines.append("checklist items not passed:")
        lines += [f"  {sid}: {items}" for sid, items in failed]
    broken = [f"  {s.session_id}: {s.status}{f' ({s.error})' if s.error else ''}" for s in result.sessions if s.status != "completed"]
    if broken:
        lines.append("sessions that did not complete:")
        lines += broken
    lines.append(f"run {result.run_id}: pbench results {result.run_id} --db {db} (or pbench view {result.run_id} --db {db})")
    return "\n".join(lines)
