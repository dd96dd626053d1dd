"""The agent a run evaluated, apart from the chat model it ran on.

Revision ``0007`` (column ``run.agent``, :class:`~proactive_bench.store.tables.Run`);
runs stored before it keep NULL: their ``model`` column named the agent the 0.1 way
(``scripted:reference``, or a chat model for the react agent), which ``RunSpec`` reads from their config.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "agent" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("run")}:  # already there (the tables of this pbench)
        return
    op.add_column("run", sa.Column("agent", sa.String(), nullable=True))


def downgrade() -> None:
    op.drop_column("run", "agent")
