"""The format of one AgentIF-OneDay-style task (``<root>/agentif/<task id>/task.yaml``), as pydantic models.

A task is an everyday request with attachments, a rubric of binary items with
points (bonus for key requirements, penalty for critical mistakes), latent
rules (hidden intents whose evidence sits in an attachment), follow-up
instructions for refinement tasks, and a reference solution. The names are
fixed in /work/agentif-spec.md and docs/agentif.md; ``pbench schema`` prints
this model.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from proactive_bench.dataset import ID_PATTERN, Predicate, RegexList, RubricEvidence, check_grader_fields, check_one_action, check_regex
from proactive_bench.exports import moved_names
from proactive_bench.suites.task_files import StrictModel as _Model, TaskUser

POLARITIES = ("bonus", "penalty")
MIN_ITEMS = 3
MAX_POINTS = 5


class RubricItem(_Model):
    """One binary rubric item: a bonus holds when a requirement is met, a penalty holds when the mistake is present."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1, description="Bonus: the requirement met. Penalty: the mistake made.")
    polarity: Literal["bonus", "penalty"]
    points: int = Field(ge=1, le=MAX_POINTS)
    category: Literal["content", "form", "execution"]
    grader: Literal["rule", "rubric"]
    check: Predicate | None = Field(default=None, description="rule items: the predicate that holds when the item holds.")
    evidence: RubricEvidence = Field(default_factory=RubricEvidence, description="rubric items: files and tool records the judge sees.")
    rule: str | None = Field(default=None, description="The latent rule this item depends on.")
    followup: str | None = Field(default=None, description="The follow-up whose request this item checks.")

    @model_validator(mode="after")
    def _grader_fields(self) -> RubricItem:
        check_grader_fields(self.grader, self.check)
        if self.grader == "rubric" and self.category != "execution" and not self.evidence.files:
            raise ValueError(
                f"a {self.category} rubric item needs evidence.files (the deliverable): a claim in the reply is never evidence for file content"
            )
        return self


class LatentRule(_Model):
    """A rule the user does not state, whose evidence is in an attachment: run as a hidden intent no question earns."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1, description="The rule, precisely enough to label.")
    source: str = Field(min_length=1, description="The attachment (workspace path) holding the evidence.")
    cue: str = Field(min_length=1, description="Regex (case-insensitive) matching the source's text and not the request.")
    evidence: Predicate = Field(description="When the rule counts as applied.")
    ask: RegexList = Field(min_length=1, description="Regexes recognising a question about the rule; no question earns a latent rule.")
    question: str = Field(
        min_length=1, description="An example question about the rule (an ask cue must match it); scripted:asker asks it."
    )
    reveal: str = Field(
        min_length=1,
        description="The rule in the user's words, for reviewers: the user never says it, only points to the source.",
    )

    _regex = field_validator("cue")(check_regex)


class TaskFollowUp(_Model):
    """A refinement instruction the user gives once ``after`` holds after an agent turn."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1)
    after: Predicate


class TaskStep(_Model):
    """A reference step: a tool call or something said; the latent rules it applies; the follow-up it answers."""

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    say: str | None = None
    rules: list[str] = Field(default_factory=list)
    followup: str | None = None

    @model_validator(mode="after")
    def _one_action(self) -> TaskStep:
        check_one_action(self.tool, self.say, self.args)
        return self


class CopiedAttachment(_Model):
    """Provenance of an attachment copied from a corpus (``pbench generate agentif``) instead of made by the task's script."""

    path: str = Field(min_length=1, description="The workspace path (one of the task's attachments).")
    source: str = Field(min_length=1, description="Where it was copied from, relative to the corpus folder.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="The copy's SHA-256: validate finds a copy edited afterwards.")


class AgentIFTask(_Model):
    """One AgentIF-OneDay-style task: request, attachments, rubric with points, latent rules, follow-ups, reference."""

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    category: Literal["workflow", "latent", "refinement"]
    domain: Literal["work", "study", "life"]
    user: TaskUser
    now: datetime
    attachments: list[str] = Field(default_factory=list, description="Workspace paths of the files under workspace/.")
    attachments_from: list[CopiedAttachment] = Field(
        default_factory=list,
        description="Attachments copied from a corpus (generated tasks), with their source and hash.",
    )
    request: str = Field(min_length=1, description="The opening message.")
    rules: list[LatentRule] = Field(default_factory=list)
    followups: list[TaskFollowUp] = Field(default_factory=list)
    rubric: list[RubricItem] = Field(min_length=MIN_ITEMS)
    reference: list[TaskStep] = Field(min_length=1)
    tools: list[str] = Field(default_factory=list, description="Extra tool names or groups beyond the defaults.")

    @model_validator(mode="after")
    def _consistent(self) -> AgentIFTask:
        for what, ids in (
            ("attachments", self.attachments),
            ("attachments_from", [c.path for c in self.attachments_from]),
            ("rules", [r.id for r in self.rules]),
            ("followups", [f.id for f in self.followups]),
            ("rubric", [i.id for i in self.rubric]),
        ):
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            if dupes:
                raise ValueError(f"{what}: listed twice: {dupes}")
        if self.category == "latent" and not self.rules:
            raise ValueError("a latent task needs at least one rule (its evidence in an attachment)")
        if self.category == "refinement" and not self.followups:
            raise ValueError("a refinement task needs at least one follow-up")
        if self.category != "refinement" and self.followups:
            raise ValueError(f"followups go with category refinement, not {self.category}")
        if not any(i.polarity == "bonus" for i in self.rubric):
            raise ValueError("rubric: no bonus item (S_max would be 0)")
        rule_ids, followup_ids = {r.id for r in self.rules}, {f.id for f in self.followups}
        for n, copied in enumerate(self.attachments_from):
            if copied.path not in self.attachments:
                raise ValueError(f"attachments_from[{n}].path: {copied.path!r} is not among the attachments")
        for n, rule in enumerate(self.rules):
            if rule.source not in self.attachments:
                raise ValueError(f"rules[{n}].source: {rule.source!r} is not among the attachments")
        for n, item in enumerate(self.rubric):
            _known(f"rubric[{n}].rule", item.rule, rule_ids, "rule")
            _known(f"rubric[{n}].followup", item.followup, followup_ids, "follow-up")
        for n, step in enumerate(self.reference):
            for rule_id in step.rules:
                _known(f"reference[{n}].rules", rule_id, rule_ids, "rule")
            _known(f"reference[{n}].followup", step.followup, followup_ids, "follow-up")
        return self

    @property
    def max_points(self) -> int:
        """S_max: the sum of the bonus points."""
        return sum(i.points for i in self.rubric if i.polarity == "bonus")

    @property
    def penalty_points(self) -> int:
        return sum(i.points for i in self.rubric if i.polarity == "penalty")


def _known(field: str, value: str | None, known: set[str], what: str) -> None:
    if value is not None and value not in known:
        raise ValueError(f"{field}: unknown {what} {value!r}")


__getattr__ = moved_names(__name__, dict.fromkeys(("CATEGORIES", "DOMAINS", "ITEM_CATEGORIES"), "proactive_bench.suites.agentif"))
