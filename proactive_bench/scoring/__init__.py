"""scoring."""

from proactive_bench.scoring.burden import (
    SNAPSHOT_KIND,
    Burden,
    session_burden,
)
from proactive_bench.scoring.grading import (
    GradeResult,
    grade_session,
)
from proactive_bench.scoring.judge import (
    RubricJudge,
)
from proactive_bench.scoring.metrics import (
    SCORINGS,
    Scoring,
    TaskScore,
    chains,
    comp,
    count_statuses,
    episode_comp,
    episode_proc,
    run_stats,
)
from proactive_bench.scoring.protocols import (
    PROTOCOLS,
    protocol,
    protocol_problem,
)
from proactive_bench.scoring.results import (
    EpisodeResult,
    Failures,
    SessionResult,
    episode_result,
)

__all__ = [
    "PROTOCOLS",
    "SCORINGS",
    "SNAPSHOT_KIND",
    "Burden",
    "EpisodeResult",
    "Failures",
    "GradeResult",
    "RubricJudge",
    "Scoring",
    "SessionResult",
    "TaskScore",
    "chains",
    "comp",
    "count_statuses",
    "episode_comp",
    "episode_proc",
    "episode_result",
    "grade_session",
    "protocol",
    "protocol_problem",
    "run_stats",
    "session_burden",
]
