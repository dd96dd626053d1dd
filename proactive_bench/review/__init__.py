"""Looking back at stored runs: reading results back, grading again, auditing judgments.

``stored_results`` reads a finished run's shape and result from the store,
``rescoring`` grades a run again from what it saved, ``audits`` exports
samples for human auditors and measures their disagreement, ``export`` writes
sessions as chat-format records for other tools, ``cleanup`` deletes runs and
collects what no run refers to. See README.md here.
"""

from proactive_bench.review.audits import (
    POLARITIES,
    AuditFileError,
    audit_rows,
    disagreement,
    import_audit_file,
    model_audit,
    write_audit_file,
)
from proactive_bench.review.cleanup import collect_garbage, delete_runs
from proactive_bench.review.export import session_records, write_jsonl
from proactive_bench.review.rescoring import rescore_run
from proactive_bench.review.stored_results import (
    EpisodeShape,
    episode_shape,
    stored_run_result,
)

__all__ = [
    "POLARITIES",
    "AuditFileError",
    "EpisodeShape",
    "audit_rows",
    "collect_garbage",
    "delete_runs",
    "disagreement",
    "episode_shape",
    "import_audit_file",
    "model_audit",
    "rescore_run",
    "session_records",
    "stored_run_result",
    "write_audit_file",
    "write_jsonl",
]
