"""review."""

from proactive_bench.review.audits import (
    AuditFileError,
    audit_rows,
    disagreement,
    import_audit_file,
    model_audit,
    write_audit_file,
)
from proactive_bench.review.rescoring import (
    rescore_run,
)
from proactive_bench.review.stored_results import (
    EpisodeShape,
    episode_shape,
    stored_run_result,
)

__all__ = [
    "AuditFileError",
    "EpisodeShape",
    "audit_rows",
    "disagreement",
    "episode_shape",
    "import_audit_file",
    "model_audit",
    "rescore_run",
    "stored_run_result",
    "write_audit_file",
]
