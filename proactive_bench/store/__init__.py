"""The persistence boundary: every table of the results database and every query on it (see README.md).

Nothing outside this package opens a database session, builds an engine or
imports SQLAlchemy; other packages call :class:`Store`'s typed methods.
The simulated apps' own databases are the one exemption (their table
classes and queries are part of the world under test); their engines are
made here too (:mod:`~proactive_bench.store.app_state`).
"""

from typing import Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "answers": ("ModelCallEntry", "RecordedAnswers"),
        "cleanup": ("Garbage",),
        "app_state": ("app_transaction", "open_app_database"),
        "database": ("Store",),
        "defaults": ("DEFAULT_DB",),
        "engine": ("Location", "StoreOpenError", "locate"),
        "migration": ("StoreSchemaError",),
        "lease": (
            "Fence",
            "Fences",
            "HeldLease",
            "Lease",
            "LeaseHeld",
            "LeaseLost",
            "holds",
            "lease_scope",
            "pid_alive",
            "take_lease",
            "writing",
            "writing_in_loop",
        ),
        "lookup": ("LATEST", "IdLookupError", "ListFilter"),
        "db_info": ("StoreOverview", "overview", "upgrade_schema"),
        "pending": ("PendingRow", "pending_row"),
        "writer": ("WriteThread",),
        "probes": ("ProbeRow",),
        "tables": (
            "AgentErrorRow",
            "Audit",
            "Checkpoint",
            "Grade",
            "IntentEvent",
            "LLMCall",
            "MessageRow",
            "Run",
            "SessionRun",
            "Snapshot",
            "Sweep",
            "ToolCallRow",
            "WorkspaceArchive",
            "new_id",
        ),
    },
)

__all__ = [
    "DEFAULT_DB",
    "AgentErrorRow",
    "Audit",
    "Checkpoint",
    "Fence",
    "Fences",
    "Garbage",
    "Grade",
    "HeldLease",
    "IdLookupError",
    "IntentEvent",
    "LATEST",
    "LLMCall",
    "Lease",
    "LeaseHeld",
    "LeaseLost",
    "Location",
    "ListFilter",
    "MessageRow",
    "ModelCallEntry",
    "PendingRow",
    "ProbeRow",
    "RecordedAnswers",
    "Run",
    "SessionRun",
    "Snapshot",
    "Store",
    "StoreOpenError",
    "StoreOverview",
    "StoreSchemaError",
    "Sweep",
    "ToolCallRow",
    "WorkspaceArchive",
    "WriteThread",
    "app_transaction",
    "holds",
    "lease_scope",
    "locate",
    "new_id",
    "open_app_database",
    "overview",
    "pending_row",
    "pid_alive",
    "take_lease",
    "upgrade_schema",
    "writing",
    "writing_in_loop",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
