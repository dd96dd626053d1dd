"""What a template draws: NPCs, clues, checkpoints, timing, reference steps and hints (see /work/trainee-spec.md).

All models are frozen pydantic models, so the same seed gives an equal
``model_dump()``; validators catch template bugs (duplicate ids, a clue held
by nobody, a step needing an unknown clue) with one-line messages.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Difficulty = Literal["easy", "hard"]
Domain = Literal["analysis", "scheduling", "inquiry", "optimization"]
DOMAINS: dict[str, str] = {
    "analysis": "information synthesis and analysis",
    "scheduling": "time management and scheduling",
    "inquiry": "proactive inquiry and monitoring",
    "optimization": "strategic modeling and optimization",
}
"""The paper's four functional domains of meta-tasks, by the short name a template declares."""
IMAGE_SUFFIXES = (".png",)
"""Files an agent reads by looking at them (``view_image``): a clue in one is drawn, never written."""
APPS = ("chat", "email", "calendar", "files", "spreadsheets", "documents", "web", "images")
"""The simulated applications a template may use."""
HANDLE = r"[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Npc(_Frozen):
    """A colleague reached over chat."""

    handle: str = Field(pattern=HANDLE)
    name: str
    role: str
    department: str
    email: str
    persona: str = Field(description="One sentence: tone and what they do (never what clue they hold).")
    shared: bool = Field(
        default=False,
        description="A colleague of the whole scenario (the HR partner, the engineering manager): every task that needs the role "
        "reaches the same person, who then holds clues of several tasks.",
    )


class Clue(_Frozen):
    """A fact the task needs that the objective withholds."""

    id: str = Field(pattern=r"k[0-9]+")
    holder: str = Field(description="An NPC handle of the task, or file:<workspace path> for a clue hidden in a file.")
    value: str = Field(min_length=1, description="The secret fact; never in the objective or another file.")
    text: str = Field(description="What the NPC says when it releases the clue; contains the value.")
    ask: tuple[str, ...] = Field(
        default=(),
        description="Regexes (case-insensitive): what kind of fact a question about the clue asks for "
        "(a budget, a code); a targeted question matches one.",
    )
    subject: tuple[str, ...] = Field(
        default=(),
        description="Regexes (case-insensitive): what the clue is about, named as the task names it "
        "(its product, supplier, meeting, the claims it rules); a targeted question "
        "matches one too, so a bare keyword that fits every clue of a kind targets none.",
    )
    question: str = Field(default="", description="The targeted question the oracle asks.")
    after: str | None = Field(default=None, description="A clue of the same holder that must be released first.")
    from_minute: int | None = Field(
        default=None,
        ge=0,
        description="Minutes after the day's start before which the holder does not know it yet (said during a meeting: "
        "a task announced there).",
    )

    @property
    def in_file(self) -> bool:
        return self.holder.startswith("file:")

    @property
    def in_image(self) -> bool:
        """A clue drawn in a picture (a heatmap, a floor plan, a map): read by looking at it."""
        return self.in_file and self.holder.lower().endswith(IMAGE_SUFFIXES)

    @model_validator(mode="after")
    def _well_formed(self) -> Clue:
        if self.value.casefold() not in self.text.casefold():
            raise ValueError(f"clue {self.id}: its text does not contain its value")
        if self.in_file and self.from_minute is not None:
            raise ValueError(f"clue {self.id}: a clue in a file is there from the start (from_minute is for colleagues)")
        if not self.in_file:
            if not self.ask or not self.subject or not self.question:
                raise ValueError(f"clue {self.id}: a clue an NPC holds needs ask cues, subject cues and a question")
            for cue in (*self.ask, *self.subject):
                try:
                    re.compile(cue)
                except re.error as exc:
                    raise ValueError(f"clue {self.id}: cue {cue!r} does not compile: {exc}") from None
        return self


class Checkpoint(_Frozen):
    """One verifiable predicate of a task."""

    id: str = Field(pattern=r"c[0-9]+")
    text: str
    check: dict[str, Any] = Field(description="A pbench predicate over the workspace and app state (normally {checker: {name, args}}).")
    needs: tuple[str, ...] = Field(default=(), description="Clue ids the checkpoint cannot be met without.")
    feedback: str = Field(description="The mentor's sentence on day 2 when it was missed: what to do, not the answer.")
    attempt: dict[str, Any] | None = Field(
        default=None, description="A predicate: the deliverable exists at all (for the guessing figure)."
    )


class Timing(_Frozen):
    """When a task happens in the day."""

    kind: Literal["flexible", "fixed"] = "flexible"
    at_minute: int | None = Field(default=None, ge=0, description="Fixed tasks: minutes after the day's start (it preempts then).")
    due_minutes: int | None = Field(default=None, gt=0, description="Deadline in minutes after arrival; None: end of the day.")
    work_minutes: int = Field(default=30, gt=0, description="Simulated minutes the oracle needs.")

    @model_validator(mode="after")
    def _fixed_has_time(self) -> Timing:
        if (self.kind == "fixed") != (self.at_minute is not None):
            raise ValueError("a fixed task needs at_minute, a flexible one must not have it")
        return self


class Step(_Frozen):
    """One step of the oracle: a tool call, a question to a clue's holder, a wait, or something said."""

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    ask: str | None = Field(default=None, description="A clue id: send its holder the clue's question.")
    wait_until_minute: int | None = Field(default=None, ge=0)
    say: str | None = None
    needs: tuple[str, ...] = ()
    guess: dict[str, Any] | None = Field(default=None, description="The args an agent that did not ask would plausibly use.")

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        actions = [self.tool is not None, self.ask is not None, self.wait_until_minute is not None, self.say is not None]
        if sum(actions) != 1:
            raise ValueError("a step does exactly one thing: tool, ask, wait_until_minute or say")
        return self


class Hints(_Frozen):
    """The paper's tiered human guidance."""

    data: str = ""
    method: str = ""


class TaskDraft(_Frozen):
    """What a template's ``instantiate`` returns."""

    title: str
    objective: str
    npcs: tuple[Npc, ...]
    clues: tuple[Clue, ...]
    checkpoints: tuple[Checkpoint, ...] = Field(min_length=2, max_length=6)
    files: dict[str, bytes | str] = Field(default_factory=dict)
    pages: dict[str, str] = Field(
        default_factory=dict, description="Web pages of the company's sites (URL -> HTML), reached with web_fetch (website monitoring)."
    )
    rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    timing: Timing = Timing()
    reference: tuple[Step, ...]
    hints: Hints = Hints()

    @model_validator(mode="after")
    def _consistent(self) -> TaskDraft:
        for kind, ids in (
            ("npc handle", [n.handle for n in self.npcs]),
            ("clue", [c.id for c in self.clues]),
            ("checkpoint", [c.id for c in self.checkpoints]),
        ):
            if len(set(ids)) != len(ids):
                raise ValueError(f"duplicate {kind} ids: {ids}")
        handles = {n.handle for n in self.npcs}
        clue_ids = {c.id for c in self.clues}
        for clue in self.clues:
            if not clue.in_file and clue.holder not in handles:
                raise ValueError(f"clue {clue.id}: holder {clue.holder!r} is none of the task's NPCs")
            if clue.in_file and clue.holder.removeprefix("file:") not in self.files:
                raise ValueError(f"clue {clue.id}: file {clue.holder!r} is not among the task's files")
            if clue.after is not None and clue.after not in clue_ids:
                raise ValueError(f"clue {clue.id}: after names unknown clue {clue.after!r}")
        for where, needs in [
            *((f"checkpoint {c.id}", c.needs) for c in self.checkpoints),
            *((f"reference step {n}", s.needs) for n, s in enumerate(self.reference)),
        ]:
            unknown = set(needs) - clue_ids
            if unknown:
                raise ValueError(f"{where}: needs unknown clues {sorted(unknown)}")
        for url in self.pages:
            if not url.startswith("https://"):
                raise ValueError(f"page {url!r}: a page's URL starts with https://")
        for n, step in enumerate(self.reference):
            if step.ask is not None and step.ask not in clue_ids:
                raise ValueError(f"reference step {n}: asks for unknown clue {step.ask!r}")
        return self
