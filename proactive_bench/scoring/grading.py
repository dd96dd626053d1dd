"""Checklist grading: rule items by predicates, rubric items by an LLM judge.

A rule item whose Python grader raises is *errored*; a rubric item without a
judge is *ungraded*. Neither is ever counted as a pass or a fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import proactive_bench.dataset as dataset  # its predicates (and the tools they read) load when a rule is graded

if TYPE_CHECKING:
    from proactive_bench.data_model import Evidence
    from proactive_bench.dataset import ChecklistItem, Session
    from proactive_bench.scoring.judge import RubricJudge

GradeStatus = Literal["pass", "fail", "ungraded", "error"]


@dataclass(frozen=True)
class GradeResult:
    item_id: str
    grader: Literal["rule", "rubric"]
    weight: float
    score: int | None
    rationale: str = ""
    error: str | None = None

    @property
    def status(self) -> GradeStatus:
        if self.error is not None:
            return "error"
        if self.score is None:
            return "ungraded"
        return "pass" if self.score == 1 else "fail"


def grade_rule(item: ChecklistItem, evidence: Evidence) -> GradeResult:
    assert item.check is not None
    try:
        passed = dataset.evaluate(item.check, evidence)
    except Exception as exc:  # grader bugs are recorded, never scored
        return GradeResult(item.id, "rule", item.weight, None, error=f"grader failed: {exc!r}")
    return GradeResult(item.id, "rule", item.weight, int(passed), "predicate holds" if passed else "predicate fails")


async def grade_session(session: Session, evidence: Evidence, judge: RubricJudge | None) -> list[GradeResult]:
    """Grade every checklist item of a session on its final evidence, in checklist order."""
    rubric_items = [i for i in session.checklist if i.grader == "rubric"]
    verdicts = await judge.grade(rubric_items, evidence, session) if judge and rubric_items else {}
    results = []
    for item in session.checklist:
        if item.grader == "rule":
            results.append(grade_rule(item, evidence))
        elif judge is None:
            results.append(GradeResult(item.id, "rubric", item.weight, None, "no judge model given"))
        else:
            verdict = verdicts.get(item.id)
            if verdict is None:
                results.append(GradeResult(item.id, "rubric", item.weight, None, error="the judge returned no verdict"))
            else:
                results.append(GradeResult(item.id, "rubric", item.weight, verdict.score, verdict.rationale, verdict.error))
    return results
