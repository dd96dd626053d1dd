"""Baseline: the results tables as pbench wrote them before versioned migrations (main at 30e009d).

Revision ``0001``. A database without Alembic's version table — new, or
written by a pbench before migrations — is brought here: the tables it lacks
are created, and a table it has must hold every baseline column (else it was
written by another pbench and is refused). The table definitions are frozen
here; later changes are later revisions, never edits of this one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from proactive_bench.store.migration import StoreSchemaError

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BASELINE = sa.MetaData()

sa.Table(
    "lease",
    BASELINE,
    sa.Column("scope", sa.String(), nullable=False),
    sa.Column("owner", sa.String(), nullable=False),
    sa.Column("pid", sa.Integer(), nullable=False),
    sa.Column("host", sa.String(), nullable=False),
    sa.Column("command", sa.String(), nullable=False),
    sa.Column("taken", sa.DateTime(timezone=True), nullable=False),
    sa.Column("heartbeat", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint("scope"),
)
sa.Table(
    "modelcall_cache",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("namespace", sa.String(), nullable=False, index=True),
    sa.Column("key", sa.String(), nullable=False),
    sa.Column("occurrence", sa.Integer(), nullable=False),
    sa.Column("generations", sa.String(), nullable=False),
    sa.PrimaryKeyConstraint("id"),
    sa.UniqueConstraint("namespace", "key", "occurrence"),
)
sa.Table(
    "probe",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("base_url", sa.String(), nullable=False, index=True),
    sa.Column("model", sa.String(), nullable=False),
    sa.Column("report", sa.String(), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "run",
    BASELINE,
    sa.Column("id", sa.String(), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("persona", sa.String(), nullable=False),
    sa.Column("model", sa.String(), nullable=False),
    sa.Column("user_backend", sa.String(), nullable=False),
    sa.Column("judge_model", sa.String(), nullable=True),
    sa.Column("data_root", sa.String(), nullable=False),
    sa.Column("workspace", sa.String(), nullable=False),
    sa.Column("status", sa.String(), nullable=False),
    sa.Column("config", sa.JSON(), nullable=True),
    sa.Column("units", sa.JSON(), nullable=True),
    sa.Column("sweep_id", sa.String(), nullable=True, index=True),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "sweep",
    BASELINE,
    sa.Column("id", sa.String(), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("status", sa.String(), nullable=False),
    sa.Column("config", sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "workspacearchive",
    BASELINE,
    sa.Column("sha256", sa.String(), nullable=False),
    sa.Column("data", sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint("sha256"),
)
sa.Table(
    "checkpoint",
    BASELINE,
    sa.Column("run_id", sa.String(), nullable=False),
    sa.Column("position", sa.Integer(), nullable=False),
    sa.Column("sha256", sa.String(), nullable=False),
    sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
    sa.ForeignKeyConstraint(["sha256"], ["workspacearchive.sha256"]),
    sa.PrimaryKeyConstraint("run_id", "position"),
)
sa.Table(
    "sessionrun",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("run_id", sa.String(), nullable=False, index=True),
    sa.Column("session_id", sa.String(), nullable=False),
    sa.Column("position", sa.Integer(), nullable=False),
    sa.Column("intents", sa.Integer(), nullable=False),
    sa.Column("status", sa.String(), nullable=False),
    sa.Column("turns", sa.Integer(), nullable=False),
    sa.Column("error", sa.String(), nullable=True),
    sa.Column("started", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "audit",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("session_run_id", sa.Integer(), nullable=False, index=True),
    sa.Column("kind", sa.String(), nullable=False),
    sa.Column("item_id", sa.String(), nullable=False),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("judged", sa.String(), nullable=False),
    sa.Column("audited", sa.String(), nullable=False),
    sa.Column("note", sa.String(), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "grade",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("session_run_id", sa.Integer(), nullable=False, index=True),
    sa.Column("item_id", sa.String(), nullable=False),
    sa.Column("grader", sa.String(), nullable=False),
    sa.Column("weight", sa.Float(), nullable=False),
    sa.Column("score", sa.Integer(), nullable=True),
    sa.Column("rationale", sa.String(), nullable=False),
    sa.Column("error", sa.String(), nullable=True),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "intentevent",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("session_run_id", sa.Integer(), nullable=False, index=True),
    sa.Column("intent_id", sa.String(), nullable=False),
    sa.Column("status", sa.String(), nullable=False),
    sa.Column("stage", sa.String(), nullable=False),
    sa.Column("turn", sa.Integer(), nullable=False),
    sa.Column("evidence", sa.String(), nullable=False),
    sa.Column("decided_by", sa.String(), nullable=False),
    sa.Column("prompt_hash", sa.String(), nullable=True),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "llmcall",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("run_id", sa.String(), nullable=False, index=True),
    sa.Column("session_run_id", sa.Integer(), nullable=True),
    sa.Column("role", sa.String(), nullable=False),
    sa.Column("purpose", sa.String(), nullable=False),
    sa.Column("model", sa.String(), nullable=False),
    sa.Column("method", sa.String(), nullable=False),
    sa.Column("ok", sa.Boolean(), nullable=False),
    sa.Column("attempt", sa.Integer(), nullable=False),
    sa.Column("latency_ms", sa.Float(), nullable=False),
    sa.Column("prompt_tokens", sa.Integer(), nullable=True),
    sa.Column("completion_tokens", sa.Integer(), nullable=True),
    sa.Column("error", sa.String(), nullable=True),
    sa.Column("prompt_hash", sa.String(), nullable=True),
    sa.Column("cached", sa.Boolean(), nullable=False),
    sa.Column("cost_usd", sa.Float(), nullable=True),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "message",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("session_run_id", sa.Integer(), nullable=False, index=True),
    sa.Column("turn", sa.Integer(), nullable=False),
    sa.Column("role", sa.String(), nullable=False),
    sa.Column("content", sa.String(), nullable=False),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "snapshot",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("session_run_id", sa.Integer(), nullable=False, index=True),
    sa.Column("kind", sa.String(), nullable=False),
    sa.Column("content", sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "toolcall",
    BASELINE,
    sa.Column("id", sa.Integer(), nullable=False),
    sa.Column("session_run_id", sa.Integer(), nullable=False, index=True),
    sa.Column("turn", sa.Integer(), nullable=False),
    sa.Column("seq", sa.Integer(), nullable=False),
    sa.Column("tool_name", sa.String(), nullable=False),
    sa.Column("call", sa.JSON(), nullable=True),
    sa.Column("result", sa.JSON(), nullable=True),
    sa.Column("ok", sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(["session_run_id"], ["sessionrun.id"]),
    sa.PrimaryKeyConstraint("id"),
)


def upgrade() -> None:
    bind = op.get_bind()
    existing = sa.inspect(bind)
    for table in BASELINE.sorted_tables:
        if existing.has_table(table.name):
            present = {column["name"] for column in existing.get_columns(table.name)}
            missing = [column.name for column in table.columns if column.name not in present]
            if missing:
                raise StoreSchemaError(
                    f"table {table.name} lacks columns {missing}: it was written by another pbench version; "
                    "use a new --db (old results stay readable by the version that wrote them)"
                )
    BASELINE.create_all(bind, checkfirst=True)


def downgrade() -> None:
    BASELINE.drop_all(op.get_bind())
