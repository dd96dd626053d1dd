"""Smaller results: compressed tool calls and recorded answers, snapshots as deltas against a base, archive codecs.

Revision ``0003`` (the columns of ``store/codec.py`` and ``store/snapshots.py``).
New columns: ``snapshot.base`` (the snapshot a delta was made against) and
``workspacearchive.codec``; rows already there keep NULL, read as written.
Compressed columns hold zstd frames: SQLite keeps each value's storage class,
so its declared types stay and older rows stay text; PostgreSQL's become
``bytea``, older rows converted to their UTF-8 text (told apart from a frame
by zstd's magic number, see ``store/codec.py``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

BINARY = {("toolcall", "call"), ("toolcall", "result"), ("snapshot", "content"), ("modelcall_cache", "generations")}
"""The columns that now hold zstd frames."""


def upgrade() -> None:
    op.add_column("workspacearchive", sa.Column("codec", sa.String(), nullable=True))
    if op.get_bind().dialect.name == "sqlite":  # ADD COLUMN ... REFERENCES: SQLite alters no constraint otherwise
        op.execute("ALTER TABLE snapshot ADD COLUMN base INTEGER REFERENCES snapshot (id)")
        return
    op.add_column("snapshot", sa.Column("base", sa.Integer(), sa.ForeignKey("snapshot.id"), nullable=True))
    for table, column in sorted(BINARY):
        op.alter_column(table, column, type_=sa.LargeBinary(), postgresql_using=f"convert_to({column}::text, 'UTF8')")


def downgrade() -> None:
    op.drop_column("snapshot", "base")
    op.drop_column("workspacearchive", "codec")
