"""The model-driven user backend: two judging stages and a reply in the persona's voice.

After each agent turn, stage 1 (did the turn complete an open intent?) and
stage 2 (did a question target one? which is most relevant now?) run
concurrently, one structured call each covering every open intent. The
stages are merged by :func:`combine_stages`; a third call writes the user's
message conveying exactly the intents to reveal. Stage 2 sees only the
questions the shared pre-filter admits (:mod:`proactive_bench.user.targeting`),
and its findings are held to the same caps as the rules backend's. A reply
that conveys an intent not chosen this turn (:mod:`proactive_bench.user.leaks`)
is recorded as a leak and written once more. A stage that cannot be obtained
makes the decision an error. A reply that cannot be written, or leaks again,
falls back to the intents' reveal sentences, and the fallback is recorded.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from proactive_bench.data_model import (
    IntentStatus,
    clipped_note,
    collecting_clips,
    render_changed_files,
    render_dialogue,
    render_tool_records,
)
from proactive_bench.dataset import HiddenIntent, Persona, Session
from proactive_bench.llm import (
    METHODS,
    LLMCallRecord,
    Recorder,
    RetryPolicy,
    StructuredCaller,
    StructuredOutputError,
    listen,
    load_prompt,
    record_retries,
    unlisten,
    usage_fields,
)
from proactive_bench.logs import get_logger
from proactive_bench.user.base import (
    USERS,
    IntentLabel,
    Stage,
    StageVerdict,
    UserBackendError,
    UserDecision,
    UserOptions,
    UserView,
    check_finding_ids,
    combine_stages,
)
from proactive_bench.user.leaks import leaked_intents
from proactive_bench.user.pibench import PibenchLLMUser
from proactive_bench.user.targeting import (
    QuestionScreen,
    Rejection,
    cap_claims,
    match_admissible,
    screen_questions,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = get_logger(__name__)

PROMPT_FOLDER = "user/prompts"
COMPLETION_PROMPT = load_prompt(PROMPT_FOLDER, "completion.v1")
QUESTION_PROMPT = load_prompt(PROMPT_FOLDER, "question.v2")
REPLY_PROMPT = load_prompt(PROMPT_FOLDER, "reply.v1")
REPLY_RETRY_PROMPT = load_prompt(PROMPT_FOLDER, "reply_retry.v1")


class CompletionFinding(BaseModel):
    intent_id: str = Field(description="The requirement's id, exactly as listed.")
    completed: bool = Field(description="Whether the latest turn actually met it.")
    evidence: str = Field(description="The sentence, tool call or file line that meets it; empty when not completed.")


class CompletionJudgment(BaseModel):
    """Stage 1: one finding per open requirement."""

    findings: list[CompletionFinding]


class QuestionFinding(BaseModel):
    intent_id: str = Field(description="The requirement's id, exactly as listed.")
    targeted: bool = Field(description="Whether a question in the latest message targets it.")
    question: str = Field(description="That question, quoted; empty when not targeted.")


class QuestionJudgment(BaseModel):
    """Stage 2: one finding per open requirement and a relevance ranking."""

    findings: list[QuestionFinding]
    relevance_order: list[str] = Field(description="Every open requirement id, most relevant to the current step first.")


def persona_card(persona: Persona) -> str:
    """Who the user is, in a few lines."""
    lines = [f"{persona.name}. {persona.role}"]
    if persona.workplace:
        lines.append(f"Works at: {persona.workplace}")
    if persona.voice:
        lines.append(f"Writing style: {persona.voice}")
    return "\n".join(lines)


def request_text(session: Session) -> str:
    trigger = session.trigger
    if trigger.type == "event":
        return f"(The session began with an event from {trigger.source or 'the environment'}, not a user message.)\n{trigger.message}"
    return trigger.message


def intent_list(intents: list[HiddenIntent]) -> str:
    return "\n".join(f"- {i.id}: {i.text}" for i in intents)


class LLMUser:
    """A user simulator on a LangChain chat model."""

    name = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        model_name: str,
        recorder: Recorder | None = None,
        policy: RetryPolicy | None = None,
        reply_model: BaseChatModel | None = None,
        methods: Sequence[str] | None = None,
        context_tokens: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        """``model`` judges; ``reply_model`` (default: the same) writes the user's messages, e.g. with a shorter answer cap;
        ``methods``: the structured-output methods to start with (default: all, see :mod:`~proactive_bench.llm.structured`);
        ``context_tokens``/``max_tokens``: the judging model's window and answer cap, to clip long prompts."""
        self.model = model
        self.reply_model = reply_model or model
        self.model_name = model_name
        self.recorder = recorder
        chosen: Any = (
            methods or METHODS
        )  # names as the settings or a probe give them (str): StructuredCaller takes them as its Method names
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
            with collecting_clips(self.structured.context_tokens) as dropped:  # the stages' tasks share this list and limits
                completed, (targeted, order) = await asyncio.gather(self._completion_stage(view), self._question_stage(view))
        except StructuredOutputError as exc:
            return UserDecision([], None, error=str(exc))
        hashes: dict[Stage, str | None] = {
            Stage.COMPLETION: COMPLETION_PROMPT.hash,
            Stage.QUESTION: QUESTION_PROMPT.hash,
            Stage.VOLUNTEER: QUESTION_PROMPT.hash,
            Stage.REASKED: QUESTION_PROMPT.hash,
        }
        labels = combine_stages(open_ids, completed, targeted, order, self.decided_by, hashes, known=view.known, unaskable=view.unaskable)
        if dropped:
            labels = [replace(label, evidence=label.evidence + clipped_note(dropped)) for label in labels]
        to_reveal = [label for label in labels if label.status != IntentStatus.COMPLETED]
        if not to_reveal:
            return UserDecision(labels, None)
        labelled = {label.intent_id for label in labels}
        message, leaks = await self._reply(view, to_reveal, [i for i in view.open_intents if i.id not in labelled])
        return UserDecision(labels, message, leaks=leaks)

    async def _completion_stage(self, view: UserView) -> list[StageVerdict]:
        open_ids = [i.id for i in view.open_intents]
        fixed = {"persona": persona_card(view.persona), "request": request_text(view.session), "intents": intent_list(view.open_intents)}
        clippable = {
            "dialogue": render_dialogue(view.evidence.transcript),
            "tool_calls": render_tool_records(view.turn_tool_records),
            "changed_files": render_changed_files(view.evidence.workspace, view.changed_files),
        }
        result = await self.structured.call_prompt(
            CompletionJudgment,
            COMPLETION_PROMPT,
            "completion_stage",
            fixed,
            clippable,
            check=lambda j: check_finding_ids([f.intent_id for f in j.findings], open_ids),
        )
        return [StageVerdict(f.intent_id, f.evidence or "completed in the latest turn") for f in result.value.findings if f.completed]

    async def _question_stage(self, view: UserView) -> tuple[list[StageVerdict], list[str]]:
        open_ids = [i.id for i in view.open_intents]
        screen = screen_questions(view.evidence.latest_reply, view.heard)
        if view.patience_spent:  # earlier questions that earned nothing: this turn's count as a survey too
            screen = QuestionScreen(screen.questions, [], screen.rejected | {q: Rejection.SURVEY for q in screen.admissible})
        fixed = {
            "persona": persona_card(view.persona),
            "request": request_text(view.session),
            "intents": intent_list(view.open_intents),
            "questions": render_screen(screen),
        }
        clippable = {"dialogue": render_dialogue(view.evidence.transcript[:-1]), "latest": view.evidence.latest_reply or "(empty)"}
        result = await self.structured.call_prompt(
            QuestionJudgment,
            QUESTION_PROMPT,
            "question_stage",
            fixed,
            clippable,
            check=lambda j: check_finding_ids([f.intent_id for f in j.findings], open_ids),
        )
        claims = {f.intent_id: match_admissible(f.question, screen) for f in result.value.findings if f.targeted}
        kept = cap_claims({i: q for i, q in claims.items() if q is not None})
        targeted = [StageVerdict(i, f"targeted question: {q}") for i, q in kept.items()]
        order = [i for i in result.value.relevance_order if i in open_ids]
        return targeted, order

    async def _reply(self, view: UserView, labels: list[IntentLabel], unselected: list[HiddenIntent]) -> tuple[str, list[str]]:
        """The next user message and the intents its first draft leaked.

        A draft that leaks is written once more, told what to leave out; when
        that fails or leaks too, the reveal sentences are sent (recorded as a fallback).
        """
        intents = [view.session.intent(label.intent_id) for label in labels]
        fallback = " ".join(intent.reveal or intent.text for intent in intents)
        points = []
        for label, intent in zip(labels, intents, strict=True):
            how = "answer the assistant's question about" if label.status == IntentStatus.INFERRED else "bring up on your own"
            hint = f' (you might say: "{intent.reveal}")' if intent.reveal else ""
            points.append(f"- {how}: {intent.text}{hint}")
        prompt = REPLY_PROMPT.render(
            persona=persona_card(view.persona),
            to_convey="\n".join(points),
            voice=view.persona.voice or "plainly",
            dialogue=render_dialogue(view.evidence.transcript),
        )
        context = [m.content for m in view.evidence.transcript]
        text = await self._write(view, prompt, REPLY_PROMPT.hash)
        if text is None:
            return fallback, []
        leaks = leaked_intents(text, unselected, intents, context)
        if not leaks:
            return text, []
        log.info("user_reply_leak", session=view.session.id, turn=view.turn, intents=leaks)
        leaked = "\n".join(f"- {i.text}" for i in unselected if i.id in leaks)
        retry = await self._write(
            view,
            prompt + REPLY_RETRY_PROMPT.render(leaked=leaked),
            REPLY_RETRY_PROMPT.hash,
            refuse=lambda text: "the rewritten reply leaked again" if leaked_intents(text, unselected, intents, context) else None,
        )
        return (fallback, leaks) if retry is None else (retry, leaks)

    async def _write(self, view: UserView, prompt: str, prompt_hash: str, refuse: Callable[[str], str | None] | None = None) -> str | None:
        """One reply from the model, recorded once; None (its record says the fallback) on any failure or when ``refuse``
        names a reason not to use the text."""
        from langchain_core.messages import HumanMessage  # here: a run whose user calls no model loads no LangChain message

        started = time.perf_counter()
        token = listen(
            record_retries(self.recorder, role="user", purpose="reply", model=self.model_name, method="text", prompt_hash=prompt_hash)
        )
        try:
            answer = await self.reply_model.ainvoke([HumanMessage(prompt)])
            text = str(answer.text).strip()
            if not text:
                raise ValueError("the model returned an empty message")
            reason = refuse(text) if refuse is not None else None
        except Exception as exc:  # any failure: fall back to the annotated sentences
            error = f"{type(exc).__name__}: {exc}"
            log.warning("user_reply_fallback", session=view.session.id, error=error)
            self._record(started, ok=False, error=f"fallback to reveal sentences: {error}", prompt_hash=prompt_hash)
            return None
        finally:
            unlisten(token)
        if reason is not None:
            usage = usage_fields(answer)
            notes = [f"fallback to reveal sentences: {reason}", *([usage.pop("error")] if "error" in usage else [])]
            self._record(started, ok=False, error="; ".join(notes), prompt_hash=prompt_hash, **usage)
            return None
        self._record(started, ok=True, prompt_hash=prompt_hash, **usage_fields(answer))
        return text

    def _record(self, started: float, ok: bool, error: str | None = None, prompt_hash: str | None = None, **usage: Any) -> None:
        if self.recorder is None:
            return
        self.recorder(
            LLMCallRecord(
                role="user",
                purpose="reply",
                model=self.model_name,
                method="text",
                ok=ok,
                latency_ms=(time.perf_counter() - started) * 1000,
                error=error,
                prompt_hash=prompt_hash or REPLY_PROMPT.hash,
                **usage,
            )
        )


def render_screen(screen: QuestionScreen) -> str:
    """The pre-filter's verdict for the question prompt: the admissible questions, then those set aside and why."""
    lines = [f"- {q}" for q in screen.admissible] or ["(none: no question in the latest message can target a requirement)"]
    if screen.rejected:
        lines.append("Set aside by the pre-screen (they target nothing):")
        lines += [f"- ({reason.value}) {q}" for q, reason in screen.rejected.items()]
    return "\n".join(lines)


@USERS.register("llm")
def llm_user(options: UserOptions) -> LLMUser | PibenchLLMUser:
    """``--user llm``: judges with ``--user-model``, writes messages with the same model under the reply cap; under
    ``--protocol pibench`` the release's user (:class:`~proactive_bench.user.pibench.PibenchLLMUser`) on that model."""
    if not options.model:
        raise UserBackendError("--user llm needs --user-model (e.g. openai:gpt-4o-mini)")
    if options.pibench:
        return PibenchLLMUser(
            options.chat(options.judgement_tokens),
            options.model,
            options.recorder,
            methods=options.methods,
            context_tokens=options.context_tokens,
            max_tokens=options.judgement_tokens,
        )
    return LLMUser(
        options.chat(options.judgement_tokens),
        options.model,
        options.recorder,
        reply_model=options.chat(options.reply_tokens),
        methods=options.methods,
        context_tokens=options.context_tokens,
        max_tokens=options.judgement_tokens,
    )
