"""Person labels: a person's intent labels per turn beside the simulator's (``pbench play --as user``).

Revision ``0008`` (table ``personlabel``, :class:`~proactive_bench.store.tables.PersonLabel`).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("personlabel"):  # a database that already has it (the tables of this pbench)
        return
    op.create_table(
        "personlabel",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_run_id", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("intent_id", sa.String(), nullable=False),
        sa.Column("person", sa.String(), nullable=False),
        sa.Column("simulator", sa.String(), nullable=False),
        sa.Column("simulator_name", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_personlabel_session_run_id", "personlabel", ["session_run_id"])


def downgrade() -> None:
    op.drop_index("ix_personlabel_session_run_id", table_name="personlabel")
    op.drop_table("personlabel")
