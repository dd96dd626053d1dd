"""Agent steps: how many decisions the agent made in a session, for every kind of agent.

Revision ``0005`` (column ``sessionrun.steps``, :class:`~proactive_bench.store.tables.SessionRun`);
sessions saved before it keep 0.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sessionrun", sa.Column("steps", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("sessionrun", "steps")
