"""Store queries over judgments: swapping a session's grades (re-scoring) and replacing audits (reading them: ``reading.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine, delete
from sqlmodel import Session, col

from proactive_bench.store.pending import PendingRow, insert_rows
from proactive_bench.store.tables import Audit, Grade


class JudgmentQueries:
    """The :class:`~proactive_bench.store.database.Store` methods over grades and audits."""

    engine: Engine

    def replace_grades(self, session_run_id: int, grades: Sequence[PendingRow]) -> None:
        """Swap a session's grades for new ones (re-scoring), in one transaction."""
        with self.engine.begin() as db:
            db.execute(delete(Grade).where(col(Grade.session_run_id) == session_run_id))
            insert_rows(db, session_run_id, grades)

    def replace_audits(self, audits: Sequence[Audit], source: str) -> None:
        """Store audits, replacing the same source's earlier verdicts on the same judgments, in one transaction."""
        with Session(self.engine) as db:
            for audit in audits:
                db.exec(
                    delete(Audit).where(
                        col(Audit.session_run_id) == audit.session_run_id,
                        col(Audit.kind) == audit.kind,
                        col(Audit.item_id) == audit.item_id,
                        col(Audit.source) == source,
                    )
                )
            db.add_all(audits)
            db.commit()
