"""The persistence boundary: every table of the results database and every query on it (see README.md).

Nothing outside this package opens a database session, builds an engine or
imports SQLAlchemy; other packages call :class:`Store`'s typed methods.
The simulated apps' own databases are the one exemption (their table
classes and queries are part of the world under test); their engines are
made here too (:mod:`~proactive_bench.store.app_state`).
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "answers": ("ModelCallEntry", "RecordedAnswers"),
        "cleanup": ("Garbage",),
        "app_state": ("app_transaction", "driver_transaction", "open_app_database"),
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
            "holding_in_loop",
            "holds",
            "lease_run",
            "lease_scope",
            "pid_alive",
            "take_lease",
            "writing",
            "writing_in_loop",
        ),
        "lookup": ("LATEST", "IdLookupError", "ListFilter"),
        "db_info": ("StoreOverview", "overview", "upgrade_schema"),
        "pending": ("PendingRow", "pending_row"),
        "reader": ("Reader", "open_reader"),
        "reading": ("ReadQueries",),
        "records": (
            "AuditLike",
            "RunLike",
            "SessionRunLike",
            "SweepLike",
            "StoredAgentError",
            "StoredAudit",
            "StoredGrade",
            "StoredIntentEvent",
            "StoredLLMCall",
            "StoredMessage",
            "StoredPersonLabel",
            "StoredRun",
            "StoredSessionRun",
            "StoredSnapshot",
            "StoredSweep",
            "StoredToolCall",
        ),
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
            "PersonLabel",
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

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.store.answers import ModelCallEntry, RecordedAnswers
    from proactive_bench.store.app_state import app_transaction, driver_transaction, open_app_database
    from proactive_bench.store.cleanup import Garbage
    from proactive_bench.store.database import Store
    from proactive_bench.store.db_info import StoreOverview, overview, upgrade_schema
    from proactive_bench.store.defaults import DEFAULT_DB
    from proactive_bench.store.engine import Location, StoreOpenError, locate
    from proactive_bench.store.lease import (
        Fence,
        Fences,
        HeldLease,
        Lease,
        LeaseHeld,
        LeaseLost,
        holding_in_loop,
        holds,
        lease_run,
        lease_scope,
        pid_alive,
        take_lease,
        writing,
        writing_in_loop,
    )
    from proactive_bench.store.lookup import LATEST, IdLookupError, ListFilter
    from proactive_bench.store.migration import StoreSchemaError
    from proactive_bench.store.pending import PendingRow, pending_row
    from proactive_bench.store.probes import ProbeRow
    from proactive_bench.store.reader import Reader, open_reader
    from proactive_bench.store.reading import ReadQueries
    from proactive_bench.store.records import (
        AuditLike,
        RunLike,
        SessionRunLike,
        StoredAgentError,
        StoredAudit,
        StoredGrade,
        StoredIntentEvent,
        StoredLLMCall,
        StoredMessage,
        StoredPersonLabel,
        StoredRun,
        StoredSessionRun,
        StoredSnapshot,
        StoredSweep,
        StoredToolCall,
        SweepLike,
    )
    from proactive_bench.store.tables import (
        AgentErrorRow,
        Audit,
        Checkpoint,
        Grade,
        IntentEvent,
        LLMCall,
        MessageRow,
        PersonLabel,
        Run,
        SessionRun,
        Snapshot,
        Sweep,
        ToolCallRow,
        WorkspaceArchive,
        new_id,
    )
    from proactive_bench.store.writer import WriteThread

__all__ = [
    "AuditLike",
    "RunLike",
    "SessionRunLike",
    "SweepLike",
    "Reader",
    "ReadQueries",
    "open_reader",
    "StoredAgentError",
    "StoredAudit",
    "StoredGrade",
    "StoredIntentEvent",
    "StoredLLMCall",
    "StoredMessage",
    "StoredPersonLabel",
    "StoredRun",
    "StoredSessionRun",
    "StoredSnapshot",
    "StoredSweep",
    "StoredToolCall",
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
    "PersonLabel",
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
    "driver_transaction",
    "holding_in_loop",
    "holds",
    "lease_run",
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
