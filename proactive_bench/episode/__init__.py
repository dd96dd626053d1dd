"""One episode run: sessions in order over one workspace, memory and store.

``session_graph`` is the LangGraph state machine of one session,
``runner`` runs the sessions, ``checkpoints`` saves each session end and
resumes a run, ``launch`` turns settings into a run and its participants.
See README.md here.
"""

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
