"""Checking datasets and runs before they cost anything.

``lint`` is ``pbench validate`` (with ``semantics``, ``reference_replay``
on a ``scratch_world``, and ``gaming`` against cheap credit), ``oracle``
holds the scripted baselines to the quality bar, ``admission`` checks a
run's settings before a run row exists, ``digests`` what validation read as a
digest and the reports of ``pbench validate`` kept by it. See README.md here.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "admission": ("VALIDATED_DIR", "dataset_problems", "participant_problem", "settings_problem"),
        "digests": ("recall_report", "remember_report", "report_key"),
        "lint": ("episode_stats", "validate_all", "validate_dataset", "validate_root", "validate_suites"),
        "oracle": ("oracle_problems", "run_oracle"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.validation.admission import VALIDATED_DIR, dataset_problems, participant_problem, settings_problem
    from proactive_bench.validation.digests import recall_report, remember_report, report_key
    from proactive_bench.validation.lint import episode_stats, validate_all, validate_dataset, validate_root, validate_suites
    from proactive_bench.validation.oracle import oracle_problems, run_oracle

__all__ = [
    "VALIDATED_DIR",
    "dataset_problems",
    "episode_stats",
    "oracle_problems",
    "participant_problem",
    "recall_report",
    "remember_report",
    "report_key",
    "run_oracle",
    "settings_problem",
    "validate_all",
    "validate_dataset",
    "validate_root",
    "validate_suites",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
