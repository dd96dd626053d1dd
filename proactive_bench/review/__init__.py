"""Looking back at stored runs: reading results back, grading again, auditing judgments.

``stored_results`` reads a finished run's shape and result from the store,
``rescoring`` grades a run again from what it saved, ``audits`` exports
samples for human auditors and measures their disagreement, ``export`` writes
sessions as chat-format records for other tools, ``intent_table`` one flat row per (run, session, intent), ``cleanup`` deletes runs and
collects what no run refers to. See README.md here.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "audits": (
            "AuditFileError",
            "audit_rows",
            "import_audit_file",
            "intent_rows",
            "model_audit",
            "write_audit_file",
        ),
        "cleanup": ("collect_garbage", "delete_runs"),
        "disagreement_rates": ("POLARITIES", "Disagreement", "disagreement"),
        "export": ("session_records", "write_jsonl"),
        "intent_table": ("INTENT_COLUMNS", "TABLE_FORMATS", "TableFormatError", "intent_rows", "table_lines", "write_parquet"),
        "rescoring": ("rescore_run",),
        "stored_results": ("EpisodeShape", "episode_shape", "stored_run_result"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.review.audits import (
        AuditFileError,
        audit_rows,
        import_audit_file,
        model_audit,
        write_audit_file,
    )
    from proactive_bench.review.cleanup import collect_garbage, delete_runs
    from proactive_bench.review.disagreement_rates import POLARITIES, Disagreement, disagreement
    from proactive_bench.review.export import session_records, write_jsonl
    from proactive_bench.review.intent_table import (
        INTENT_COLUMNS,
        TABLE_FORMATS,
        TableFormatError,
        intent_rows,
        table_lines,
        write_parquet,
    )
    from proactive_bench.review.rescoring import rescore_run
    from proactive_bench.review.stored_results import EpisodeShape, episode_shape, stored_run_result

__all__ = [
    "INTENT_COLUMNS",
    "POLARITIES",
    "TABLE_FORMATS",
    "AuditFileError",
    "Disagreement",
    "EpisodeShape",
    "TableFormatError",
    "audit_rows",
    "collect_garbage",
    "delete_runs",
    "disagreement",
    "episode_shape",
    "import_audit_file",
    "intent_rows",
    "model_audit",
    "rescore_run",
    "session_records",
    "stored_run_result",
    "table_lines",
    "write_audit_file",
    "write_jsonl",
    "write_parquet",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
