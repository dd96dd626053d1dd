"""Agent errors: the exception the agent under test raised in a session (type, message, its own frames).

Revision ``0004`` (table ``agenterror``, :class:`~proactive_bench.store.tables.AgentErrorRow`).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agenterror",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_run_id", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("message", sa.String(), nullable=False),
        sa.Column("frames", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_agenterror_session_run_id", "agenterror", ["session_run_id"])


def downgrade() -> None:
    op.drop_index("ix_agenterror_session_run_id", table_name="agenterror")
    op.drop_table("agenterror")
