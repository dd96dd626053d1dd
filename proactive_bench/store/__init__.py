"""The results store: every table and every query of the SQLite results database.

``database`` owns the tables and the typed reads and writes, ``lease``
one writer per run or sweep at a time.
"""

from proactive_bench.store.database import (
    Audit,
    Grade,
    IntentEvent,
    LLMCall,
    MessageRow,
    PendingRow,
    Run,
    SessionRun,
    Snapshot,
    Store,
    StoreSchemaError,
    Sweep,
    ToolCallRow,
    pending_row,
)
from proactive_bench.store.lease import (
    Fence,
    HeldLease,
    LeaseHeld,
    LeaseLost,
    lease_scope,
    writing,
)

__all__ = [
    "Audit",
    "Fence",
    "Grade",
    "HeldLease",
    "IntentEvent",
    "LLMCall",
    "LeaseHeld",
    "LeaseLost",
    "MessageRow",
    "PendingRow",
    "Run",
    "SessionRun",
    "Snapshot",
    "Store",
    "StoreSchemaError",
    "Sweep",
    "ToolCallRow",
    "lease_scope",
    "pending_row",
    "writing",
]
