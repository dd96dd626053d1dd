"""Scoring a session: checklist grades, the rubric judge, Proc and Comp, user burden.

``grading`` grades checklist items (rules by predicates, rubrics by
``judge``), ``metrics`` computes Proc and Comp as docs/metrics.md defines
them, ``burden`` what a session cost the user, ``bootstrap`` intervals over runs and paired tasks, ``permutation`` the paired sign-flip test, ``protocols`` the pbench and
π-Bench evaluation rules, ``results`` the session and episode scores.
See README.md here.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "bootstrap": ("PairedDifference", "bootstrap_interval", "paired_difference"),
        "burden": ("SNAPSHOT_KIND", "Burden", "session_burden"),
        "grading": ("GradeResult", "grade_session"),
        "judge": ("JUDGES", "Judge", "JudgeFactory", "JudgeSettings", "RubricJudge", "RubricVerdict"),
        "metrics": (
            "SCORINGS",
            "Scoring",
            "TaskScore",
            "chains",
            "comp",
            "count_statuses",
            "episode_comp",
            "episode_proc",
            "run_stats",
        ),
        "permutation": ("SignFlipTest", "sign_flip_test"),
        "protocols": ("DEFAULT_JUDGE", "PROTOCOLS", "default_user", "protocol", "protocol_problem"),
        "results": ("EpisodeResult", "Failures", "SessionResult", "episode_result"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.scoring.bootstrap import PairedDifference, bootstrap_interval, paired_difference
    from proactive_bench.scoring.burden import SNAPSHOT_KIND, Burden, session_burden
    from proactive_bench.scoring.grading import GradeResult, grade_session
    from proactive_bench.scoring.judge import JUDGES, Judge, JudgeFactory, JudgeSettings, RubricJudge, RubricVerdict
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
    from proactive_bench.scoring.permutation import SignFlipTest, sign_flip_test
    from proactive_bench.scoring.protocols import DEFAULT_JUDGE, PROTOCOLS, default_user, protocol, protocol_problem
    from proactive_bench.scoring.results import EpisodeResult, Failures, SessionResult, episode_result

__all__ = [
    "DEFAULT_JUDGE",
    "JUDGES",
    "Judge",
    "PROTOCOLS",
    "SCORINGS",
    "SNAPSHOT_KIND",
    "Burden",
    "EpisodeResult",
    "Failures",
    "GradeResult",
    "JudgeFactory",
    "JudgeSettings",
    "PairedDifference",
    "RubricJudge",
    "RubricVerdict",
    "Scoring",
    "SessionResult",
    "SignFlipTest",
    "TaskScore",
    "bootstrap_interval",
    "chains",
    "comp",
    "count_statuses",
    "default_user",
    "episode_comp",
    "episode_proc",
    "episode_result",
    "grade_session",
    "paired_difference",
    "protocol",
    "protocol_problem",
    "run_stats",
    "session_burden",
    "sign_flip_test",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
