"""Checking datasets and runs before they cost anything.

``lint`` is ``pbench validate`` (with ``semantics``, ``reference_replay``
on a ``scratch_world``, and ``gaming`` against cheap credit), ``oracle``
holds the scripted baselines to the quality bar, ``admission`` checks a
run's settings before a run row exists. See README.md here.
"""

from proactive_bench.validation.admission import (
    VALIDATED_DIR,
    dataset_problems,
    participant_problem,
    settings_problem,
)
from proactive_bench.validation.lint import (
    episode_stats,
    validate_dataset,
    validate_root,
    validate_suites,
)
from proactive_bench.validation.oracle import oracle_problems, run_oracle

__all__ = [
    "VALIDATED_DIR",
    "dataset_problems",
    "episode_stats",
    "oracle_problems",
    "participant_problem",
    "run_oracle",
    "settings_problem",
    "validate_dataset",
    "validate_root",
    "validate_suites",
]
