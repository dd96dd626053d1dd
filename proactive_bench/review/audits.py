"""Audits of the run's judgments (the paper's table 6): export a sample, import the auditors' verdicts,
and report how often they disagree with the checklist grades and the hidden-intent statuses.

``pbench audit export ID --out audit.csv`` writes one row per rubric grade and per intent status
with what the run decided and why. ``--sample N`` keeps N whole session runs (all their grades and
statuses, so an auditor reads each trajectory once), stratified by model: the models take equal shares
(a model with fewer sessions gives its unused share to the others), drawn with a seed. Auditors fill the ``audited``
column (``1``/``0`` for checklist items, ``completed``/``inferred``/``provided`` for intents) and
``pbench audit import audit.csv --source human:NAME`` stores their verdicts. Rows left blank are
not audited. Importing the same source again replaces its earlier verdicts for those rows.
``pbench audit show`` combines the human sources (every source not named ``model:...``) by majority
vote per judgment: the verdict more of them gave than any other wins; a tie gives no verdict and is
counted. Each model source is reported on its own. On AgentIF runs each checklist row carries the
item's ``polarity`` (bonus/penalty) and ``show`` reports the agreement per polarity as well.
``pbench audit model ID --model M`` has another model judge again (source ``model:M``): the rubric
items on each session's saved final state, and each intent's status on the conversation and tool
calls up to the turn where the status was given. A judgment it cannot make is left unaudited.
"""

from __future__ import annotations

import asyncio
import csv
import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from proactive_bench.data_model import (
    FINAL_OUTCOMES,
    IntentStatus,
    render_dialogue,
    render_tool_records,
)
from proactive_bench.dataset import DatasetError, GraderResolver
from proactive_bench.episode import CallLedger, load_spec_episode, run_spec
from proactive_bench.exports import moved_names
from proactive_bench.llm import (
    ChatSettings,
    Recorder,
    StructuredCaller,
    StructuredOutputError,
    load_prompt,
    make_chat_model,
)
from proactive_bench.review.disagreement_rates import item_polarities
from proactive_bench.review.rescoring import saved_evidence
from proactive_bench.scoring import RubricJudge
from proactive_bench.store import (
    Audit,
    Grade,
    IntentEvent,
    RunLike,
    Store,
)
from proactive_bench.user import request_text

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

COLUMNS = ("session_run_id", "run_id", "model", "session_id", "kind", "item_id", "polarity", "text", "judged", "why", "audited", "note")
CHECKLIST_VALUES = {"1": "1", "0": "0", "pass": "1", "fail": "0", "yes": "1", "no": "0"}
INTENT_VALUES = set(IntentStatus)
INTENT_AUDIT_PROMPT = load_prompt("scoring/judge_prompts", "intent_audit.v1")


class AuditFileError(ValueError):
    """An audit file that cannot be imported: file, row, field and reason."""


def audit_rows(store: Store, runs: Sequence[RunLike], sample: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Rubric grades and intent statuses of the runs' sessions, as rows to audit.

    With ``sample``, only the judgments of that many session runs, chosen by ``sample_sessions``.
    """
    by_session: dict[int, list[dict[str, Any]]] = {}
    models: dict[int, str] = {}
    by_episode: dict[tuple[str, str], dict[tuple[str, str, str], str]] = {}
    for run in runs:
        spec = run_spec(run)
        if (spec.data_root, spec.persona) not in by_episode:  # the runs of a sweep share few episodes
            by_episode[spec.data_root, spec.persona] = _item_texts(run)
        texts = by_episode[spec.data_root, spec.persona]
        polarity = item_polarities(run)
        for session_run in store.session_runs(run.id):
            assert session_run.id is not None
            base = {"session_run_id": session_run.id, "run_id": run.id, "model": run.model, "session_id": session_run.session_id}
            rows = by_session.setdefault(session_run.id, [])
            models[session_run.id] = run.model
            for grade in store.rows(Grade, session_run.id):
                if grade.grader == "rubric" and grade.score is not None:
                    text = texts.get((session_run.session_id, "checklist", grade.item_id), "")
                    rows.append(
                        {
                            **base,
                            "kind": "checklist",
                            "item_id": grade.item_id,
                            "polarity": polarity.get(grade.item_id, ""),
                            "text": text,
                            "judged": str(grade.score),
                            "why": grade.rationale,
                        }
                    )
            for event in store.rows(IntentEvent, session_run.id):
                text = texts.get((session_run.session_id, "intent", event.intent_id), "")
                rows.append(
                    {
                        **base,
                        "kind": "intent",
                        "item_id": event.intent_id,
                        "polarity": "",
                        "text": text,
                        "judged": event.status,
                        "why": event.evidence,
                    }
                )
    judged = {sid: model for sid, model in models.items() if by_session[sid]}  # a session with nothing judged is not worth a slot
    kept = sorted(sample_sessions(judged, sample, seed) if sample is not None else judged)
    return [{**row, "audited": "", "note": ""} for sid in kept for row in by_session[sid]]


def sample_sessions(models: dict[int, str], count: int, seed: int) -> list[int]:
    """``count`` session run ids of ``models`` (id -> model), stratified by model, seeded.

    Slots go round-robin over the models in name order, so every model gets an equal share (the
    first models in name order take the remainder) and a model out of sessions leaves its share to
    the others; within a model, its sessions are drawn at random with ``seed``.
    """
    pools: dict[str, list[int]] = {}
    for sid in sorted(models):
        pools.setdefault(models[sid], []).append(sid)
    quota = dict.fromkeys(pools, 0)
    while count > 0 and any(quota[m] < len(pools[m]) for m in pools):
        for model in sorted(pools):
            if count > 0 and quota[model] < len(pools[model]):
                quota[model], count = quota[model] + 1, count - 1
    rng = random.Random(seed)
    return [sid for model in sorted(pools) for sid in rng.sample(pools[model], quota[model])]


def write_audit_file(rows: list[dict[str, Any]], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def import_audit_file(store: Store, path: Path, source: str) -> int:
    """Store the filled verdicts of an audit file; return how many. Nothing is stored if any row is bad."""
    audits = [_audit(store, path, n, row, source) for n, row in enumerate(_read(path), start=2)]
    kept = [a for a in audits if a is not None]
    store.replace_audits(kept, source)
    return len(kept)


def _read(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in ("session_run_id", "kind", "item_id", "judged", "audited") if c not in (reader.fieldnames or [])]
            if missing:
                raise AuditFileError(f"{path}: header lacks the column(s) {', '.join(missing)}")
            return list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise AuditFileError(f"{path}: cannot read: {exc}") from None


def _audit(store: Store, path: Path, line: int, row: dict[str, str], source: str) -> Audit | None:
    where = f"{path}: row {line}"
    verdict = (row.get("audited") or "").strip().lower()
    if not verdict:
        return None
    kind, item_id, judged = (row.get("kind") or "").strip(), (row.get("item_id") or "").strip(), (row.get("judged") or "").strip()
    try:
        session_run_id = int(row.get("session_run_id") or "")
    except ValueError:
        raise AuditFileError(f"{where}: session_run_id: {row.get('session_run_id')!r} is not a number") from None
    if kind == "checklist":
        if verdict not in CHECKLIST_VALUES:
            raise AuditFileError(f"{where}: audited: {verdict!r} is not one of {', '.join(CHECKLIST_VALUES)}")
        verdict = CHECKLIST_VALUES[verdict]
    elif kind == "intent":
        if verdict not in INTENT_VALUES:
            raise AuditFileError(f"{where}: audited: {verdict!r} is not one of {', '.join(sorted(INTENT_VALUES))}")
    else:
        raise AuditFileError(f"{where}: kind: {kind!r} is not checklist or intent")
    if not _judgment_exists(store, session_run_id, kind, item_id, judged):
        raise AuditFileError(f"{where}: no {kind} judgment {item_id!r} = {judged!r} in session run {session_run_id} of {store.name}")
    return Audit(
        session_run_id=session_run_id,
        kind=kind,
        item_id=item_id,
        source=source,
        judged=judged,
        audited=verdict,
        note=(row.get("note") or "").strip(),
    )


def _judgment_exists(store: Store, session_run_id: int, kind: str, item_id: str, judged: str) -> bool:
    if kind == "checklist":
        return any(g.item_id == item_id and str(g.score) == judged for g in store.rows(Grade, session_run_id))
    return any(e.intent_id == item_id and e.status == judged for e in store.rows(IntentEvent, session_run_id))


def _item_texts(run: RunLike) -> dict[tuple[str, str, str], str]:
    """(session, kind, id) -> the intent's or checklist item's text, from the run's dataset when it is still there."""
    spec = run_spec(run)
    try:
        loaded = load_spec_episode(spec)
    except DatasetError:
        return {}
    texts: dict[tuple[str, str, str], str] = {}
    for session in loaded.sessions:
        texts.update({(session.id, "intent", i.id): i.text for i in session.intents})
        texts.update({(session.id, "checklist", c.id): c.text for c in session.checklist})
    return texts


async def model_audit(store: Store, runs: Sequence[RunLike], judge_model: str, base_url: str | None) -> int:
    """Another model's verdicts on the runs' rubric grades and intent statuses, stored as audits; return how many."""
    source, count = f"model:{judge_model}", 0
    for run in runs:
        spec = run_spec(run)
        try:
            sessions = {s.id: s for s in load_spec_episode(spec).sessions}
        except DatasetError:
            continue
        ledger = CallLedger(run.id)
        chat = make_chat_model(judge_model, ChatSettings(base_url=base_url, temperature=0))
        judge, auditor = RubricJudge(chat, judge_model, ledger), IntentAuditor(chat, judge_model, ledger)
        graders = GraderResolver(Path(spec.data_root))
        for session_run in store.session_runs(run.id):
            assert session_run.id is not None
            grades = {g.item_id: g for g in store.rows(Grade, session_run.id) if g.grader == "rubric" and g.score is not None}
            session = sessions.get(session_run.session_id)
            if session is None or session_run.status not in FINAL_OUTCOMES:
                continue
            with saved_evidence(store, run, session_run, graders) as evidence:
                verdicts = await judge.grade([c for c in session.checklist if c.id in grades], evidence, session) if grades else {}
                events = store.rows(IntentEvent, session_run.id)
                statuses = await asyncio.gather(*(auditor.status(session, event, evidence) for event in events))
            audits = [
                Audit(
                    session_run_id=session_run.id,
                    kind="checklist",
                    item_id=item_id,
                    source=source,
                    judged=str(grades[item_id].score),
                    audited=str(verdict.score),
                    note=verdict.rationale,
                )
                for item_id, verdict in verdicts.items()
                if verdict.score is not None
            ]
            audits += [
                Audit(
                    session_run_id=session_run.id,
                    kind="intent",
                    item_id=event.intent_id,
                    source=source,
                    judged=event.status,
                    audited=answer.status,
                    note=answer.rationale,
                )
                for event, answer in zip(events, statuses, strict=True)
                if answer is not None
            ]
            store.replace_audits(audits, source)
            store.add_rows(session_run.id, ledger.take())
            count += len(audits)
    return count


class IntentStatusAnswer(BaseModel):
    """What the auditing model returns for one intent."""

    rationale: str = Field(description="One to three sentences pointing at the deciding turn.")
    status: Literal["completed", "inferred", "provided"]


class IntentAuditor:
    """Asks a model which status one intent should have had, on the session up to the labelling turn."""

    def __init__(self, model: BaseChatModel, model_name: str, recorder: Recorder | None = None) -> None:
        self.structured = StructuredCaller(model, model_name, "judge", recorder)

    async def status(self, session: Any, event: IntentEvent, evidence: Any) -> IntentStatusAnswer | None:
        """The model's status, or None when no valid answer could be had (never guessed)."""
        intent = next((i for i in session.intents if i.id == event.intent_id), None)
        if intent is None:
            return None
        prompt = INTENT_AUDIT_PROMPT.render(
            request=request_text(session),
            intent=intent.text,
            turn=str(event.turn),
            dialogue=render_dialogue([m for m in evidence.transcript if m.turn <= event.turn]),
            tool_calls=render_tool_records([r for r in evidence.tool_records if r.turn <= event.turn]),
        )
        try:
            answer = await self.structured.call(
                IntentStatusAnswer, [HumanMessage(prompt)], f"intent_audit:{intent.id}", INTENT_AUDIT_PROMPT.hash
            )
        except StructuredOutputError:
            return None
        return answer.value


__getattr__ = moved_names(
    __name__, {"POLARITIES": "proactive_bench.review", "Disagreement": "proactive_bench.review", "disagreement": "proactive_bench.review"}
)
