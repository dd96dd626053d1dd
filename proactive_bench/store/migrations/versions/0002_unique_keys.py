"""Unique keys where a second row would be a duplicate: a run's session, a session's grade of an item, a session's snapshot of a kind.

Revision ``0002``. Unique indexes (created the same way on SQLite and
PostgreSQL, without rebuilding a table), so that no writer — a second
executor, a retried save — can store the same session, grade or snapshot
twice. A database that already holds such duplicates is refused with the
table and how many, rather than half-migrated.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from proactive_bench.store.migration import StoreSchemaError

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UNIQUE = {
    "uq_sessionrun_run_session": ("sessionrun", ["run_id", "session_id"]),
    "uq_grade_session_item": ("grade", ["session_run_id", "item_id"]),
    "uq_snapshot_session_kind": ("snapshot", ["session_run_id", "kind"]),
}


def upgrade() -> None:
    bind = op.get_bind()
    for name, (table, columns) in UNIQUE.items():
        keys = ", ".join(columns)
        duplicated = bind.execute(
            sa.text(f"SELECT COUNT(*) FROM (SELECT 1 FROM {table} GROUP BY {keys} HAVING COUNT(*) > 1) AS d")
        ).scalar()
        if duplicated:
            raise StoreSchemaError(f"table {table} holds {duplicated} duplicated ({keys}); remove them before this pbench can open it")
        op.create_index(name, table, columns, unique=True)


def downgrade() -> None:
    for name, (table, _columns) in UNIQUE.items():
        op.drop_index(name, table_name=table)
