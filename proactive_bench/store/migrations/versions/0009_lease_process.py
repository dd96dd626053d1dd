"""Who holds a lease, exactly: the holder's host's boot id and its process's start time.

Revision ``0009`` (columns ``lease.boot_id`` and ``lease.started``, :class:`~proactive_bench.store.lease.Lease`):
a lease taken on this host since its last boot is taken over only once its process is gone (a pid reused after a
restart, or by a later process, does not count as its holder). Leases taken before it keep NULL: the heartbeat decides.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("lease")}
    if "boot_id" not in present:  # else already there (the tables of this pbench)
        op.add_column("lease", sa.Column("boot_id", sa.String(), nullable=True))
    if "started" not in present:
        op.add_column("lease", sa.Column("started", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("lease", "started")
    op.drop_column("lease", "boot_id")
