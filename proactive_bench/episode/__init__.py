"""episode."""

from proactive_bench.episode.checkpoints import (
    FINAL_STATUSES,
    ResumeError,
    opened_checkpoint,
    stored_session_result,
)
from proactive_bench.episode.launch import (
    LaunchError,
    RunSpec,
    build_participants,
    endpoint_limiter,
    execute_run,
    load_spec_episode,
    run_spec,
    start_run,
)
from proactive_bench.episode.runner import (
    DEFAULT_MAX_TURNS,
    CallLedger,
    episode_env,
    grade_rows,
)

__all__ = [
    "DEFAULT_MAX_TURNS",
    "FINAL_STATUSES",
    "CallLedger",
    "LaunchError",
    "ResumeError",
    "RunSpec",
    "build_participants",
    "endpoint_limiter",
    "episode_env",
    "execute_run",
    "grade_rows",
    "load_spec_episode",
    "opened_checkpoint",
    "run_spec",
    "start_run",
    "stored_session_result",
]
