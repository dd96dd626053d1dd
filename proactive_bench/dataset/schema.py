"""Pydantic models of the dataset format: persona, episode, session, intent, checklist.

These models are the single source of truth for the YAML files under
``personas/`` and ``episodes/``; ``pbench schema`` prints their JSON Schema.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from proactive_bench.dataset.predicates import Predicate, RegexList, RelativePath

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Persona(_Model):
    """A simulated user: who they are and how they write."""

    id: str = Field(pattern=ID_PATTERN)
    name: str
    role: str = Field(description="Occupation and situation, in a paragraph.")
    workplace: str = ""
    routines: list[str] = Field(default_factory=list)
    tools_used: list[str] = Field(default_factory=list)
    preferences: list[str] = Field(default_factory=list)
    working_style: str = ""
    long_term_goals: list[str] = Field(default_factory=list)
    voice: str = Field(default="", description="How this person writes messages.")
    language: str = "en"


class Scope(StrEnum):
    SESSION = "session"
    PERSISTENT = "persistent"


class HiddenIntent(_Model):
    """A requirement the user keeps to themselves until the agent meets, asks or needs it."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(description="The requirement, stated precisely enough to label.")
    scope: Scope = Scope.SESSION
    reveal: str | None = Field(default=None, description="The user's own sentence when answering or volunteering this intent.")
    ask: RegexList = Field(
        default_factory=list,
        description="Regexes; a question in the agent's reply that matches one of them targets this intent.",
    )
    question: str | None = Field(default=None, description="An example targeted question; the ask cues must match it.")
    evidence: Predicate | None = Field(default=None, description="When the intent counts as completed.")
    source_session: str | None = Field(
        default=None, description="For persistent intents: the earlier session whose output holds the evidence."
    )
    convention: str | None = Field(
        default=None,
        pattern=ID_PATTERN,
        description="A key shared by the intents of an episode that restate one requirement (a naming, filing or layout "
        "convention): once it is known from an earlier session, a question about it earns no inferred credit (docs/metrics.md).",
    )

    askable: bool = Field(
        default=True,
        description="False: no question earns it (the user only points to where it can be found, e.g. an AgentIF latent "
        "rule in the attachments); asked about, it is answered and labelled provided.",
    )

    @property
    def has_rules(self) -> bool:
        """Whether the rules user backend can track this intent."""
        asking = (bool(self.ask) and self.question is not None) or not self.askable
        return self.reveal is not None and self.evidence is not None and asking


class RubricEvidence(_Model):
    """What the rubric judge sees besides the rendered dialogue."""

    files: list[RelativePath] = Field(default_factory=list, description="Workspace paths or globs to include.")
    tools: list[str] = Field(default_factory=list, description="Tool names or globs (gmail__*) whose records to include.")
    memory: bool = False
    dialogue: bool = Field(
        default=True,
        description="Whether the judge sees the conversation; false for items about file content, so a claim in a reply cannot count.",
    )


class ChecklistItem(_Model):
    """A verifiable completion criterion, graded 0/1."""

    id: str = Field(pattern=ID_PATTERN)
    text: str
    grader: Literal["rule", "rubric"]
    check: Predicate | None = Field(default=None, description="For rule items: the predicate to evaluate.")
    evidence: RubricEvidence = Field(default_factory=RubricEvidence, description="For rubric items.")
    weight: float = Field(default=1.0, gt=0)
    intent: str | None = Field(default=None, description="The hidden intent this item depends on, if any.")

    @model_validator(mode="after")
    def _rule_has_check(self) -> ChecklistItem:
        check_grader_fields(self.grader, self.check)
        return self


def check_grader_fields(grader: str, check: object | None) -> None:
    """A rule item has a ``check`` predicate, a rubric item none (it takes ``evidence``); ValueError otherwise."""
    if grader == "rule" and check is None:
        raise ValueError("a rule item needs a 'check' predicate")
    if grader == "rubric" and check is not None:
        raise ValueError("a rubric item takes 'evidence', not 'check'")


class TriggerRow(_Model):
    """The app row an event session starts with: it lives in ``apps/<session id>/*.yaml``."""

    table: str = Field(description="App table, e.g. gmail_email.")
    id: int | str = Field(description="The row's primary key value.")


class Trigger(_Model):
    """How a session starts: a user request, or an event from the environment."""

    type: Literal["user", "event"] = "user"
    source: str | None = Field(default=None, description="For events: where it comes from (gmail, scheduler...).")
    message: str = Field(
        default="",
        description="The initial request, or the event payload. With 'row': a template whose {column} fields are "
        "filled from the row (empty: every column as 'column: value').",
    )
    row: TriggerRow | None = Field(
        default=None, description="For events: the timed app row that is the event; the message is rendered from it."
    )

    @model_validator(mode="after")
    def _has_text(self) -> Trigger:
        if self.row is None and not self.message.strip():
            raise ValueError("a trigger needs a 'message' (or, for an event, the app 'row' it renders)")
        if self.row is not None and self.type != "event":
            raise ValueError("'row' goes with type: event")
        return self


class ReferenceStep(_Model):
    """One step of a session's reference solution.

    A step is either a tool call (``tool`` + ``args``) or something the agent
    says (``say``). ``requires`` lists the hidden intents the step acts on; a
    step without them belongs to the stated request. ``from_history`` marks a
    step that needs the user's earlier dialogue history (odyssey tasks).
    """

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    say: str | None = None
    requires: list[str] = Field(default_factory=list)
    from_history: bool = Field(
        default=False,
        description="The step draws on facts of the user's earlier dialogue history (odyssey tasks), not on the request alone.",
    )
    followup: str | None = Field(
        default=None, description="The follow-up instruction this step answers: it is done only after the user gave it (refinement tasks)."
    )
    guess: dict[str, Any] | None = Field(
        default=None,
        description="For a tool step that needs what the agent must first find out (from_history): the arguments an agent that guesses "
        "instead of finding out would use (trainee scenarios: a clue's plausible guess; scripted:guess and scripted:canvass).",
    )

    @model_validator(mode="after")
    def _one_action(self) -> ReferenceStep:
        check_one_action(self.tool, self.say, self.args)
        if self.guess is not None and (self.tool is None or not self.from_history):
            raise ValueError("guess: only a tool step marked from_history has a guess")
        return self


def check_one_action(tool: str | None, say: str | None, args: dict[str, Any]) -> None:
    """A reference step does exactly one thing: a tool call (with its args) or something said; ValueError otherwise."""
    if (tool is None) == (say is None):
        raise ValueError("a reference step has exactly one of 'tool' or 'say'")
    if say is not None and args:
        raise ValueError("'args' goes with 'tool', not with 'say'")


class FollowUp(_Model):
    """An instruction the user gives after a deliverable: released once ``after`` holds on the state after an agent turn."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1, description="The user's message.")
    after: Predicate = Field(description="The release condition, evaluated after each agent turn.")


class Session(_Model):
    """One task: an underspecified opening, hidden intents, a checklist, a reference solution."""

    id: str = Field(pattern=ID_PATTERN)
    title: str
    category: str = Field(description="Task category code from the taxonomy (docs/taxonomy.md).")
    trigger: Trigger
    now: datetime | None = Field(default=None, description="Simulated date and time when the session starts; the apps' clock is set to it.")
    tools: list[str] = Field(default_factory=list, description="Tool names offered; empty means the defaults.")
    files: list[RelativePath] = Field(default_factory=list, description="Workspace files the session uses.")
    intents: list[HiddenIntent] = Field(default_factory=list)
    checklist: list[ChecklistItem] = Field(default_factory=list)
    reference: list[ReferenceStep] = Field(default_factory=list)
    followups: list[FollowUp] = Field(
        default_factory=list, description="Scripted follow-up instructions the user gives in order, each once its condition holds."
    )
    gaps: list[str] = Field(
        default_factory=list,
        description="What of its source benchmark's world the session lacks (an importer's flags, e.g. app records or web pages "
        "that could not be reproduced): every result of the session is shown flagged with them.",
    )

    @model_validator(mode="after")
    def _unique_and_known_ids(self) -> Session:
        _raise_links(self.link_problems())
        return self

    def link_problems(self, cut: Collection[str] = ()) -> list[tuple[str, str]]:
        """(field, reason) of every id the session repeats or names without defining it, all of them.

        ``cut``: ids of parts left out for errors of their own (a file partly loaded): what names them is not reported again.
        """
        out = _duplicates([i.id for i in self.intents], "intents") + _duplicates([f.id for f in self.followups], "followups")
        out += _duplicates([c.id for c in self.checklist], "checklist")
        intent_ids = {i.id for i in self.intents} | set(cut)
        followup_ids = {f.id for f in self.followups} | set(cut)
        for n, step in enumerate(self.reference):
            unknown = set(step.requires) - intent_ids
            if unknown:
                out.append((f"reference[{n}].requires", f"names unknown intents: {sorted(unknown)}"))
            if step.followup is not None and step.followup not in followup_ids:
                out.append((f"reference[{n}].followup", f"names unknown follow-up {step.followup!r}"))
        for n, item in enumerate(self.checklist):
            if item.intent is not None and item.intent not in intent_ids:
                out.append((f"checklist[{n}].intent", f"item {item.id!r} names unknown intent {item.intent!r}"))
        return out

    def intent(self, intent_id: str) -> HiddenIntent:
        return next(i for i in self.intents if i.id == intent_id)


class SessionEntry(_Model):
    """A session's place in the episode."""

    id: str = Field(pattern=ID_PATTERN)
    depends_on: list[str] = Field(default_factory=list)


class Episode(_Model):
    """An ordered list of sessions of one persona, with their dependencies."""

    id: str = Field(pattern=ID_PATTERN)
    persona: str = Field(pattern=ID_PATTERN, description="The persona's id: personas/<persona>.yaml.")
    title: str = ""
    sessions: list[SessionEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _dependencies_point_back(self) -> Episode:
        _raise_links(self.link_problems())
        return self

    def link_problems(self, cut: Collection[str] = ()) -> list[tuple[str, str]]:
        """(field, reason) of every repeated session id and every dependency that does not point back, all of them.

        ``cut``: ids of entries left out for errors of their own: a dependency on one is not reported again.
        """
        out = _duplicates([s.id for s in self.sessions], "sessions")
        seen: set[str] = set()
        for n, entry in enumerate(self.sessions):
            for dep in entry.depends_on:
                if dep not in seen and dep not in cut:
                    known = any(s.id == dep for s in self.sessions)
                    reason = "comes later in the episode" if known else "is not a session of this episode"
                    out.append((f"sessions[{n}].depends_on", f"session {entry.id!r} depends on {dep!r}, which {reason}"))
            seen.add(entry.id)
        return out


def _raise_links(problems: list[tuple[str, str]]) -> None:
    """A model validator's refusal of what ``link_problems`` found: one ValueError naming every problem (field: reason)."""
    if problems:
        raise ValueError("; ".join(f"{field}: {reason}" for field, reason in problems))


def _duplicates(ids: list[str], what: str) -> list[tuple[str, str]]:
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    return [(what, f"duplicate ids: {dupes}")] if dupes else []
