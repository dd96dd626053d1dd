"""The π-Bench release's simulated user (``--protocol pibench``): its reveal, targeting and answer rules.

After each agent turn, as the release's user does (docs/pibench-protocol.md):

1. **Completion.** Each open intent is judged met or not by the latest turn: by the model from the
   latest message and the current text of the task's files (the files its rubric items read, the
   release's ``files_read``), or, offline, by the intent's evidence predicate. When every open
   intent is met the user has nothing left to say and the session ends.
2. **Targeting.** Each intent still open is judged targeted or not by the latest message: by the
   model's judgement alone, or, offline, by its ``ask`` cues on any question of the reply. None of
   pbench's screen applies: no generic, menu, survey or echo rejection, no cap per question or
   per turn, no patience, no known conventions (:mod:`proactive_bench.user.targeting` is the
   default protocol's).
3. **Reply.** The targeted intents are inferred and answered; when none was targeted, the first
   open intent in the session's order is provided. The message is those intents' texts, one a
   line: the release's user sends its intents' content as written.

Both judging calls are structured, at temperature 0 (every pbench user model is), in that order;
the second is not made when the first met every intent.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from proactive_bench.data_model import IntentLabel, Stage, clipped_note, collecting_clips, questions_in, render_changed_files
from proactive_bench.dataset import HiddenIntent, Session, compile_pattern
from proactive_bench.llm import METHODS, Recorder, RetryPolicy, StructuredCaller, StructuredOutputError, load_prompt
from proactive_bench.user.base import StageVerdict, UserDecision, UserView, check_finding_ids, combine_stages, revealed

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

PROMPT_FOLDER = "user/prompts"
PIBENCH_COMPLETION_PROMPT = load_prompt(PROMPT_FOLDER, "pibench_completion.v1")
PIBENCH_TARGETING_PROMPT = load_prompt(PROMPT_FOLDER, "pibench_targeting.v1")
STYLES = ("clarify", "options")
"""How a targeted question asked (the release's judge labels it; recorded in the label's evidence)."""


class MetFinding(BaseModel):
    intent_id: str = Field(description="The requirement's id, exactly as listed.")
    completed: bool = Field(description="Whether the latest message or the task's files already satisfied it.")


class MetJudgment(BaseModel):
    """The completion check: one finding per open requirement."""

    findings: list[MetFinding]


class TargetFinding(BaseModel):
    intent_id: str = Field(description="The requirement's id, exactly as listed.")
    targeted: bool = Field(description="Whether the latest message asks a clear follow-up about it.")
    question: str = Field(default="", description="The question relied on, quoted; empty when not targeted.")
    style: str = Field(default="", description="For a targeted requirement: clarify or options; else empty.")


class TargetJudgment(BaseModel):
    """The targeting check: one finding per requirement still open."""

    findings: list[TargetFinding]


def intent_lines(intents: Sequence[HiddenIntent]) -> str:
    return "\n".join(f"- {i.id}: {i.text}" for i in intents)


def task_files(session: Session) -> list[str]:
    """The files the session's rubric items read (the release's ``files_read``), each once, in order."""
    files: list[str] = []
    for item in session.checklist:
        files += [f for f in item.evidence.files if f not in files]
    return files


def pibench_labels(
    open_ids: list[str],
    completed: list[StageVerdict],
    targeted: list[StageVerdict],
    decided_by: str,
    prompt_hashes: dict[Stage, str | None] | None = None,
    unaskable: Collection[str] = (),
) -> list[IntentLabel]:
    """The turn's labels by the release's rule: met intents completed; targeted ones inferred; else the first open
    intent in the session's order provided. No known conventions (an ``askable: false`` intent, which the release
    never has, stays unearnable)."""
    return combine_stages(open_ids, completed, targeted, open_ids, decided_by, prompt_hashes, known=(), unaskable=unaskable)


def pibench_message(session: Session, labels: list[IntentLabel]) -> str | None:
    """The user's next message: the text of each intent answered or provided, one a line (None: nothing left to say)."""
    return "\n".join(session.intent(i).text for i in revealed(labels)) or None


def cue_targets(intents: Sequence[HiddenIntent], reply: str) -> list[StageVerdict]:
    """The intents whose ``ask`` cues match a question of the reply, any question (the offline stand-in for the
    release's targeting judge: no screen, no caps)."""
    questions = questions_in(reply)
    verdicts = []
    for intent in intents:
        cues = [compile_pattern(p) for p in intent.ask]
        hit = next((q for q in questions if any(c.search(q) for c in cues)), None)
        if hit is not None:
            verdicts.append(StageVerdict(intent.id, f"targeted question: {hit}"))
    return verdicts


class PibenchLLMUser:
    """``--user llm`` under ``--protocol pibench``: the release's two checks on a chat model, replies as written."""

    name = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        model_name: str,
        recorder: Recorder | None = None,
        policy: RetryPolicy | None = None,
        methods: Sequence[str] | None = None,
        context_tokens: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.model_name = model_name
        chosen: Any = methods or METHODS  # names as the settings or a probe give them (str)
        self.structured = StructuredCaller(model, model_name, "user", recorder, policy, chosen, context_tokens, max_tokens)

    @property
    def decided_by(self) -> str:
        return f"llm:{self.model_name}"

    async def decide(self, view: UserView) -> UserDecision:
        open_ids = [i.id for i in view.open_intents]
        if not open_ids:
            return UserDecision([], None)
        try:
            await self.structured.ready()
            with collecting_clips(self.structured.context_tokens) as dropped:
                completed = await self._completion(view)
                met = {v.intent_id for v in completed}
                still = [i for i in view.open_intents if i.id not in met]
                targeted = await self._targeting(view, still) if still else []
        except StructuredOutputError as exc:
            return UserDecision([], None, error=str(exc))
        hashes: dict[Stage, str | None] = {
            Stage.COMPLETION: PIBENCH_COMPLETION_PROMPT.hash,
            Stage.QUESTION: PIBENCH_TARGETING_PROMPT.hash,
            Stage.VOLUNTEER: PIBENCH_TARGETING_PROMPT.hash,
        }
        labels = pibench_labels(open_ids, completed, targeted, self.decided_by, hashes, view.unaskable)
        if dropped:
            labels = [replace(label, evidence=label.evidence + clipped_note(dropped)) for label in labels]
        return UserDecision(labels, pibench_message(view.session, labels))

    async def _completion(self, view: UserView) -> list[StageVerdict]:
        open_ids = [i.id for i in view.open_intents]
        files = task_files(view.session)
        rendered = render_changed_files(view.evidence.workspace, files, absent="not created yet") if files else "(the task names no files)"
        result = await self.structured.call_prompt(
            MetJudgment,
            PIBENCH_COMPLETION_PROMPT,
            "completion_stage",
            {"intents": intent_lines(view.open_intents)},
            {"latest": view.evidence.latest_reply or "(empty)", "files": rendered},
            check=lambda j: check_finding_ids([f.intent_id for f in j.findings], open_ids),
        )
        return [StageVerdict(f.intent_id, "met by the latest message or the task's files") for f in result.value.findings if f.completed]

    async def _targeting(self, view: UserView, still: list[HiddenIntent]) -> list[StageVerdict]:
        ids = [i.id for i in still]
        result = await self.structured.call_prompt(
            TargetJudgment,
            PIBENCH_TARGETING_PROMPT,
            "question_stage",
            {"intents": intent_lines(still)},
            {"latest": view.evidence.latest_reply or "(empty)"},
            check=lambda j: check_finding_ids([f.intent_id for f in j.findings], ids),
        )
        verdicts = []
        for f in result.value.findings:
            if f.targeted:
                style = f.style.strip().lower()
                how = f" ({style})" if style in STYLES else ""
                verdicts.append(StageVerdict(f.intent_id, f"targeted question{how}: {f.question or '(not quoted)'}"))
        return verdicts
