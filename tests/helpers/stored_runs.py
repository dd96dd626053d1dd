"""Runs written straight into a results database: labels and grades chosen by the test, no agent played.

Each run keeps its episode's shape in its settings (``depends_on``), as a run
does since 0.2, so reports read it without a dataset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count

from proactive_bench.episode.launch import RunSpec
from proactive_bench.store import Grade, IntentEvent, MessageRow, Run, SessionRun, Store, Sweep, pending_row

LABELS = {"C": "completed", "I": "inferred", "P": "provided", "-": None}
"""One letter per hidden intent: completed, inferred, provided, or - (never labelled)."""
START = datetime(2026, 1, 1, tzinfo=UTC)
_minutes = count()


@dataclass(frozen=True)
class Played:
    """One session as a run played it: its intents' labels (``"CP-"``) and its checklist items (``"pf"``: pass, fail)."""

    labels: str
    items: str
    status: str = "completed"


@dataclass
class StoredRuns:
    """A results database being filled with runs."""

    store: Store
    depends_on: dict[str, list[str]] = field(default_factory=dict)
    """Per session id, the sessions it depends on (every persona's episode alike)."""

    def sweep(self, sweep_id: str) -> str:
        self.store.add(Sweep(id=sweep_id, status="finished"))
        return sweep_id

    def run(
        self,
        model: str,
        sessions: dict[str, Played],
        persona: str = "tester",
        sweep_id: str | None = None,
        status: str = "finished",
        ablation: str = "none",
    ) -> Run:
        """A run of ``model`` that played ``sessions`` in order, created a minute after the one before."""
        planned = list(sessions)
        spec = RunSpec(
            persona=persona,
            agent=model,
            data_root="/nonexistent",
            sessions=planned,
            ablation=ablation,  # type: ignore[arg-type]  # a test passes a known ablation name
            depends_on={sid: [d for d in self.depends_on.get(sid, []) if d in planned] for sid in planned},
            categories={sid: "X" for sid in planned},
        )
        run = Run(
            persona=persona,
            model=model,
            agent=model,
            user_backend="rules",
            data_root="/nonexistent",
            workspace="",
            config=spec.model_dump(mode="json"),
            units=[[sid] for sid in planned],
            status=status,
            created=START + timedelta(minutes=next(_minutes)),
            sweep_id=sweep_id,
        )
        self.store.add(run)
        for position, (sid, played) in enumerate(sessions.items(), start=1):
            rows = [pending_row(MessageRow, turn=0, role="user", content="opening")]
            rows += [
                pending_row(
                    IntentEvent,
                    intent_id=f"{sid}.i{k}",
                    status=LABELS[c],
                    stage="s",
                    turn=1,
                    evidence="",
                    decided_by="rules",
                    prompt_hash="",
                )
                for k, c in enumerate(played.labels)
                if LABELS[c] is not None
            ]
            rows += [
                pending_row(Grade, item_id=f"c{k}", grader="rule", weight=1.0, score=1 if g == "p" else 0, rationale="")
                for k, g in enumerate(played.items)
            ]
            session_run = SessionRun(
                run_id=run.id, session_id=sid, position=position, intents=len(played.labels), status=played.status, turns=1
            )
            self.store.save_session(session_run, rows, {})
        return run
