"""The rubric judge: one structured model call per rubric item, on the evidence the item names.

Each item is graded pass/fail on the dialogue (unless its ``evidence`` leaves
it out: items about file content) plus the files, tool records and memory its
``evidence`` block asks for. Documents appear as their extracted text; visual
files (images, HTML, SVG) are also shown as pictures (HTML/SVG rendered by
headless Chromium) when the judge model reads images (the server probe's
``vision``); otherwise the verdict is made on their text and its rationale
says so (``text fallback``). Items are graded concurrently
(bounded). An item whose verdict cannot be obtained gets an error, never a
guessed score. Under the π-Bench protocol (``any_turn``) an item is judged on
the trajectory up to each agent turn in order (dialogue and tool records up to
that turn; files and memory as the session left them) and credited at the
first turn that meets it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from proactive_bench.data_model import (
    Evidence,
    clipped_note,
    collecting_clips,
    files_matching,
    render_dialogue,
    render_files,
    render_tool_records,
)
from proactive_bench.dataset import ChecklistItem, Session
from proactive_bench.env import Picture, file_picture, is_visual
from proactive_bench.llm import (
    METHODS,
    Recorder,
    RetryPolicy,
    StructuredCaller,
    StructuredOutputError,
    load_prompt,
)
from proactive_bench.registry import Registry
from proactive_bench.scoring.protocols import DEFAULT_JUDGE
from proactive_bench.user import request_text

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

RUBRIC_PROMPT = load_prompt("scoring/judge_prompts", "rubric.v1")
DEFAULT_CONCURRENCY = 4
NO_DIALOGUE = "(not part of this item's evidence: the item is about the files themselves, not what the assistant says about them)"
TEXT_FALLBACK = "text fallback"


class RubricAnswer(BaseModel):
    """What the judge model returns for one item."""

    rationale: str = Field(description="One to three sentences pointing at the evidence.")
    verdict: Literal["YES", "NO"] = Field(description="YES when the evidence shows the item is met, else NO.")


@dataclass(frozen=True)
class RubricVerdict:
    score: int | None
    rationale: str
    error: str | None = None


def item_parts(item: ChecklistItem, session: Session) -> dict[str, str]:
    """The parts of an item's prompt that are never clipped."""
    return {"request": request_text(session), "item": item.text}


def item_evidence(item: ChecklistItem, evidence: Evidence) -> dict[str, str]:
    """The evidence the item asks for, rendered (clipped to the judge's context window when needed)."""
    records = [r for r in evidence.tool_records if any(fnmatchcase(r.tool_name, p) for p in item.evidence.tools)]
    return {
        "dialogue": render_dialogue(evidence.transcript) if item.evidence.dialogue else NO_DIALOGUE,
        "tool_calls": render_tool_records(records) if item.evidence.tools else "(not part of this item's evidence)",
        "files": render_files(evidence.workspace, item.evidence.files),
        "memory": evidence.memory.render() if item.evidence.memory else "(not part of this item's evidence)",
    }


def item_pictures(item: ChecklistItem, evidence: Evidence) -> tuple[list[Picture], list[str]]:
    """The item's visual evidence files as pictures, and one line for each that has none (why)."""
    pictures: list[Picture] = []
    missing: list[str] = []
    for path in files_matching(evidence.workspace, item.evidence.files):
        if is_visual(path):
            found = file_picture(evidence.workspace, path)
            if isinstance(found, Picture):
                pictures.append(found)
            else:
                missing.append(found)
    return pictures, missing


@dataclass(frozen=True)
class JudgeSettings:
    """How a rubric judge grades and calls its model.

    ``any_turn``: the π-Bench protocol (an item is credited at the first agent
    turn that meets it); ``methods``: the structured-output methods to start
    with (default: all); ``context_tokens``/``max_tokens``: the model's window
    and answer cap, to clip long evidence.
    """

    any_turn: bool = False
    policy: RetryPolicy | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    methods: Sequence[str] | None = None
    context_tokens: int | None = None
    max_tokens: int | None = None


@runtime_checkable
class Judge(Protocol):
    """What the runner asks of a judge (``--judge NAME``, a factory in ``JUDGES``): a verdict for each rubric item of a session.

    A judge that calls a structured-output model may also have a ``structured`` attribute (a ``StructuredCaller``),
    which the runner tells what the probe finds out about the server.
    """

    model_name: str

    async def grade(self, items: list[ChecklistItem], evidence: Evidence, session: Session) -> dict[str, RubricVerdict]:
        """A verdict for every item, keyed by item id (score 1, 0, or None with ``error`` when the model could not answer)."""
        ...


class RubricJudge:
    """Grades rubric checklist items with a chat model (the default :class:`Judge`, ``rubric``)."""

    def __init__(
        self, model: BaseChatModel, model_name: str, recorder: Recorder | None = None, settings: JudgeSettings = JudgeSettings()
    ) -> None:
        self.model_name = model_name
        self.any_turn = settings.any_turn
        methods: Any = (
            settings.methods or METHODS
        )  # names as the settings or a probe give them (str): StructuredCaller takes them as its Method names
        self.structured = StructuredCaller(
            model, model_name, "judge", recorder, settings.policy, methods, settings.context_tokens, settings.max_tokens
        )
        self._limit = asyncio.Semaphore(settings.concurrency)

    async def grade(self, items: list[ChecklistItem], evidence: Evidence, session: Session) -> dict[str, RubricVerdict]:
        """A verdict for every item, keyed by item id."""
        verdicts = await asyncio.gather(*(self._grade_one(item, evidence, session) for item in items))
        return {item.id: verdict for item, verdict in zip(items, verdicts, strict=True)}

    async def _grade_one(self, item: ChecklistItem, evidence: Evidence, session: Session) -> RubricVerdict:
        if not self.any_turn:
            return await self._judge(item, evidence, session, f"rubric:{item.id}")
        verdict = RubricVerdict(0, "no agent turn")
        for turn in sorted({m.turn for m in evidence.transcript if m.role == "agent"}):
            upto = replace(
                evidence,
                transcript=[m for m in evidence.transcript if m.turn <= turn],
                tool_records=[r for r in evidence.tool_records if r.turn <= turn],
                memo={},
            )
            verdict = await self._judge(item, upto, session, f"rubric:{item.id}@{turn}")
            if verdict.score == 1 or verdict.error is not None:
                return RubricVerdict(verdict.score, f"turn {turn}: {verdict.rationale}", verdict.error)
        return verdict

    async def _judge(self, item: ChecklistItem, evidence: Evidence, session: Session, label: str) -> RubricVerdict:
        await self.structured.ready()
        with collecting_clips(self.structured.context_tokens) as dropped:
            fixed, clippable = item_parts(item, session), item_evidence(item, evidence)
        pictures, unpictured = await asyncio.to_thread(item_pictures, item, evidence) if item.evidence.files else ([], [])
        images = [(p.mime, p.data) for p in pictures] if self.structured.vision else []
        note = self._visual_note(pictures, unpictured)
        async with self._limit:
            try:
                result = await self.structured.call_prompt(RubricAnswer, RUBRIC_PROMPT, label, fixed, clippable, images=images)
            except StructuredOutputError as exc:
                return RubricVerdict(None, (clipped_note(dropped) + note).strip(), error=str(exc))
        answer = result.value
        return RubricVerdict(int(answer.verdict == "YES"), answer.rationale + clipped_note(dropped) + note)

    def _visual_note(self, pictures: list[Picture], unpictured: list[str]) -> str:
        """What the rationale records about visual evidence: shown as pictures, or judged on text and why."""
        if pictures and self.structured.vision:
            shown = ", ".join(f"{p.path} ({p.how})" for p in pictures)
            return f" [seen as pictures: {shown}]" + (f" [{TEXT_FALLBACK}: {'; '.join(unpictured)}]" if unpictured else "")
        reasons = list(unpictured)
        if pictures:
            why = "the judge model does not read images" if self.structured.vision is False else "the judge model's vision was not probed"
            reasons.append(f"{', '.join(p.path for p in pictures)}: {why}")
        return f" [{TEXT_FALLBACK}: {'; '.join(reasons)}]" if reasons else ""


JudgeFactory = Callable[["BaseChatModel", str, Recorder | None, JudgeSettings], Judge]
"""Builds a judge from its chat model, the model's name, the call recorder and the settings (RubricJudge's own signature)."""

JUDGES: Registry[JudgeFactory] = Registry("judges")
"""Judges of rubric items by name (``--judge``): ``rubric`` is the default; plugins in ``pbench.judges`` are :class:`Judge` factories."""
JUDGES.add(DEFAULT_JUDGE, RubricJudge)
