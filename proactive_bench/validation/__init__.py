"""validation."""

from proactive_bench.validation.admission import (
    VALIDATED_DIR,
    dataset_problems,
    participant_problem,
)
from proactive_bench.validation.lint import (
    episode_stats,
    validate_dataset,
    validate_root,
)
from proactive_bench.validation.oracle import (
    oracle_problems,
    run_oracle,
)

__all__ = [
    "VALIDATED_DIR",
    "dataset_problems",
    "episode_stats",
    "oracle_problems",
    "participant_problem",
    "run_oracle",
    "validate_dataset",
    "validate_root",
]
