"""AgentIF-OneDay's task synthesis (paper section 4.2) for ``pbench generate agentif``, with a local corpus instead of the web.

1. Workflow extraction: the generator model reads the seed task and answers
   its workflow (ordered steps, the attachment kinds it needs, its latent
   rules, its deliverables) as structured output.
2. Attachment picking: for each needed kind the best corpus file by BM25
   (:mod:`~proactive_bench.suites.agentif.generation_corpus`), deterministic.
3. Task and rubric writing, then filtering: rounds of the generator writing a
   task on those attachments (:class:`TaskDraft`) and the verifier judging it
   on the paper's filtering criteria (:class:`TaskVerdict`), while the
   candidate is also checked mechanically by the suite's own ``pbench
   validate`` checks in a staging folder (schema, rule cues in their source and
   not in the request, penalty share, reference tools) plus attachments left
   unused and a request copied from the seed's, and — once those pass — the oracle of ``pbench validate --oracle``
   when the caller supplies it (the reference must score 1.0, a stuffed
   deliverable must earn no bonus). Problems and feedback go back to the generator
   (:func:`~proactive_bench.suites.generation_rounds.run_rounds`).

A model that gives no valid answer, or a corpus without a needed kind, ends the
generation as ``failed`` with a one-line reason; no task is made up.
"""

from __future__ import annotations

import asyncio
import difflib
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from proactive_bench.llm import StructuredCaller, StructuredOutputError, load_prompt
from proactive_bench.suites.agentif.generation_corpus import KINDS, CorpusFile, Pick, kind_of, pick_attachments
from proactive_bench.suites.agentif.loading import FOLDER
from proactive_bench.suites.agentif.suite import SUITE
from proactive_bench.suites.agentif.task import AgentIFTask
from proactive_bench.suites.generation_limits import AGENTIF_MAX_ROUNDS
from proactive_bench.suites.generation_rounds import (
    GenerationInputError,
    Outcome as RoundsOutcome,
    RoundSteps,
    RoundVerdict,
    dump_yaml,
    run_rounds,
)
from proactive_bench.suites.task_files import TASK_FILE, TaskUser, read_task_model

PROMPTS = "suites/agentif/prompts"
EXTRACTION_PROMPT = load_prompt(PROMPTS, "workflow_extraction.v1")
WRITER_PROMPT = load_prompt(PROMPTS, "task_writer.v1")
VERIFIER_PROMPT = load_prompt(PROMPTS, "task_verifier.v1")
MAX_ROUNDS = AGENTIF_MAX_ROUNDS
CRITERIA = ("workflow_preserved", "grounded", "verifiable", "time_independent", "safe", "rubric_aligned")
CATEGORY_MEANINGS = {
    "workflow": "open workflow execution: a long explicit multi-step request followed exactly",
    "latent": "latent instruction inference: rules the assistant must induce from an attachment and apply unasked",
    "refinement": "iterative refinement: the user corrects and extends the deliverable over follow-up turns",
}
COPIED_WORDS = 10
"""A run of this many words of the seed's request in the new one is a copy."""
TEXT_PER_ATTACHMENT = 4000
"""Characters of each attachment's text shown to the models."""
OracleCheck = Callable[[Path, str], list[str]]
"""The oracle's problems (one line each) of task ``id`` under dataset root ``Path``: supplied by the layer that owns it."""
Kind = Literal["pdf", "spreadsheet", "document", "slides", "image", "web_page", "drawing", "subtitles", "code", "data"]
"""The corpus's ``KINDS``, as the workflow's schema names them."""


class WorkflowStep(BaseModel):
    action: str = Field(min_length=1)
    inputs: list[str] = Field(default_factory=list)
    output: str = ""


class AttachmentNeed(BaseModel):
    kind: Kind
    role: str = Field(min_length=1, description="What the file provides in the workflow.")


class Workflow(BaseModel):
    """The seed task's workflow: the backbone every generated task keeps."""

    summary: str = Field(min_length=1)
    steps: list[WorkflowStep] = Field(min_length=3)
    attachments: list[AttachmentNeed] = Field(min_length=1, max_length=4)
    latent_rules: list[str] = Field(default_factory=list)
    deliverables: list[str] = Field(default_factory=list)

    def render(self) -> str:
        steps = "\n".join(
            f"{n}. {s.action} (reads: {', '.join(s.inputs) or '-'}; gives: {s.output or '-'})" for n, s in enumerate(self.steps, 1)
        )
        rules = "\n".join(f"- {r}" for r in self.latent_rules) or "- none"
        return f"{self.summary}\nSteps:\n{steps}\nLatent rules:\n{rules}\nDeliverables: {', '.join(self.deliverables) or '-'}"


class TaskDraft(BaseModel):
    """The generator's task: the task format's fields but the id, category, domain and attachments (fixed by the pipeline)."""

    title: str
    user: TaskUser
    now: str = Field(description="Absolute date-time, YYYY-MM-DDTHH:MM:SS.")
    request: str
    rules: list[dict[str, Any]] = Field(default_factory=list)
    followups: list[dict[str, Any]] = Field(default_factory=list)
    rubric: list[dict[str, Any]]
    reference: list[dict[str, Any]]


class TaskVerdict(RoundVerdict):
    """The verifier's judgment on the paper's filtering criteria."""

    criteria: ClassVar[tuple[str, ...]] = CRITERIA
    workflow_preserved: bool
    grounded: bool
    verifiable: bool
    time_independent: bool
    safe: bool
    rubric_aligned: bool


Outcome = RoundsOutcome[TaskDraft, TaskVerdict]


@dataclass(frozen=True)
class Seed:
    """The seed task and its folder."""

    task: AgentIFTask
    folder: Path


def load_seed(path: Path) -> Seed:
    """The task in the folder ``path`` (or its ``task.yaml``), or a one-line :class:`GenerationInputError` naming file, field, reason."""
    folder = path.parent if path.name == TASK_FILE else path
    if not (folder / TASK_FILE).is_file():
        raise GenerationInputError(f"--from: {folder / TASK_FILE}: no such file (give an agentif task folder)")
    folder = folder.resolve()
    task, problems = read_task_model(folder.parent.parent, folder.parent.name, folder.name, AgentIFTask)
    if task is None:
        first = problems[0]
        raise GenerationInputError(f"{folder / TASK_FILE}: {first.field + ': ' if first.field else ''}{first.reason}")
    return Seed(task, folder)


@dataclass
class Generation:
    """Everything one generation produced, for the files and the report."""

    task_id: str
    category: str
    domain: str
    outcome: Outcome
    workflow: Workflow | None = None
    picks: list[Pick] = field(default_factory=list)

    def task_document(self) -> dict[str, Any]:
        """The approved task in the task format's field order (copies recorded under ``attachments_from``)."""
        assert self.outcome.draft is not None
        return task_data(self.task_id, self.category, self.domain, self.picks, self.outcome.draft)


def new_task_id(seed_id: str, category: str, domain: str) -> str:
    """``aif_<domain>_<category>_gen_<seed's slug>``: says what it is and where it came from."""
    slug = re.sub(r"^aif_[a-z]+_[a-z]+_(\d+_)?(gen_)?", "", seed_id)
    return f"aif_{domain}_{category}_gen_{slug}"


def task_data(task_id: str, category: str, domain: str, picks: list[Pick], draft: TaskDraft) -> dict[str, Any]:
    data = draft.model_dump()
    return {
        "id": task_id,
        "title": data["title"],
        "category": category,
        "domain": domain,
        "user": data["user"],
        "now": data["now"],
        "attachments": [p.path for p in picks],
        "attachments_from": [{"path": p.path, "source": p.file.source, "sha256": p.file.sha256} for p in picks],
        "request": data["request"],
        "rules": data["rules"],
        "followups": data["followups"],
        "rubric": data["rubric"],
        "reference": data["reference"],
    }


def copy_attachments(picks: list[Pick], workspace: Path) -> None:
    for pick in picks:
        target = workspace / pick.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pick.file.path, target)


def candidate_problems(data: dict[str, Any], staging: Path) -> list[str]:
    """What ``pbench validate`` finds in the candidate (written into the staging root, whose workspace holds the copies),
    and attachments nothing uses; one line each."""
    folder = staging / FOLDER / data["id"]
    (folder / TASK_FILE).write_text(dump_yaml(data), encoding="utf-8")
    found = [
        ("" if p.level == "error" else f"{p.level}: ") + (f"{p.field}: " if p.field else "") + p.reason
        for p in SUITE.problems(staging, data["id"])
    ]
    used = dump_yaml({k: data[k] for k in ("request", "rules", "rubric", "reference")})
    found += [
        f"attachments: {path} is used nowhere (not in the request, a rule, an item or the reference)"
        for path in data["attachments"]
        if path not in used
    ]
    return found


def copied_from_seed(request: str, seed_request: str) -> list[str]:
    """A problem when the new request repeats a run of ``COPIED_WORDS`` or more words of the seed's (a new situation, not a copy)."""
    new, old = request.lower().split(), seed_request.lower().split()
    run = difflib.SequenceMatcher(None, new, old, autojunk=False).find_longest_match(0, len(new), 0, len(old)).size
    return [f"request: repeats {run} words in a row of the seed's request; write a new situation"] if run >= COPIED_WORDS else []


def _attachment_texts(picks: list[Pick]) -> str:
    parts = []
    for pick in picks:
        text = pick.file.text.strip()[:TEXT_PER_ATTACHMENT] or "(an image: no text; its file name describes it)"
        parts.append(f"### {pick.path} ({pick.file.kind})\n{text}")
    return "\n\n".join(parts)


def _seed_yaml(task: AgentIFTask) -> str:
    return dump_yaml(task.model_dump(mode="json", exclude={"attachments_from"}, exclude_defaults=True))


async def extract_workflow(seed: Seed, caller: StructuredCaller) -> Workflow:
    """Step 1: the seed's workflow, as the generator model reads it."""
    task = seed.task
    fixed = {
        "category": task.category,
        "category_meaning": CATEGORY_MEANINGS[task.category],
        "domain": task.domain,
        "attachments": ", ".join(f"{a}: {kind_of(Path(a)) or 'file'}" for a in task.attachments) or "none",
        "kinds": ", ".join(KINDS),
    }
    return (await caller.call_prompt(Workflow, EXTRACTION_PROMPT, "agentif_workflow_extraction", fixed, {"seed": _seed_yaml(task)})).value


async def generate_task(
    seed: Seed,
    corpus: list[CorpusFile],
    category: str,
    domain: str,
    generator: StructuredCaller,
    verifier: StructuredCaller,
    max_rounds: int = MAX_ROUNDS,
    oracle: OracleCheck | None = None,
) -> Generation:
    """The whole pipeline: extract, pick, then rounds of writing, checking and judging. ``oracle`` (from the validation
    layer) runs the reference and the baselines on a candidate the validate rules pass, in a thread."""
    generation = Generation(new_task_id(seed.task.id, category, domain), category, domain, Outcome("failed"))
    try:
        generation.workflow = await extract_workflow(seed, generator)
    except StructuredOutputError as exc:
        generation.outcome.error = f"workflow extraction: the generator {generator.model_name} gave no valid workflow: {exc}"
        return generation
    workflow = generation.workflow
    generation.picks, unmet = pick_attachments(corpus, [(need.kind, need.role) for need in workflow.attachments], workflow.summary)
    if unmet:
        generation.outcome.error = f"attachment picking: {unmet[0]}"
        return generation
    picks = generation.picks
    texts = _attachment_texts(picks)
    shared = {"workflow": workflow.render(), "category": category, "domain": domain}
    writer_fixed = {
        **shared,
        "category_meaning": CATEGORY_MEANINGS[category],
        "attachment_list": "\n".join(f"- {p.path} ({p.file.kind}): {p.need}" for p in picks),
    }
    with tempfile.TemporaryDirectory(prefix="pbench-agentif-gen-") as tmp:
        staging = Path(tmp)
        copy_attachments(picks, staging / FOLDER / generation.task_id / "workspace")

        async def write(previous: str) -> TaskDraft:
            parts = {"example": _seed_yaml(seed.task), "attachment_texts": texts, "previous": previous}
            return (await generator.call_prompt(TaskDraft, WRITER_PROMPT, "agentif_task_generation", writer_fixed, parts)).value

        async def check(draft: TaskDraft) -> tuple[list[str], dict[str, Any]]:
            problems = candidate_problems(task_data(generation.task_id, category, domain, picks, draft), staging)
            problems += copied_from_seed(draft.request, seed.task.request)
            if problems or oracle is None:
                return problems, {"oracle": "not run"}
            return await asyncio.to_thread(oracle, staging, generation.task_id), {"oracle": "run"}

        async def judge(draft: TaskDraft) -> TaskVerdict:
            candidate = dump_yaml(task_data(generation.task_id, category, domain, picks, draft))
            parts = {"task": candidate, "attachment_texts": texts}
            return (await verifier.call_prompt(TaskVerdict, VERIFIER_PROMPT, "agentif_task_verification", shared, parts)).value

        steps = RoundSteps("task", write, check, judge, "Write the whole task again, fixing these points.")
        generation.outcome = await run_rounds(steps, generator, verifier, max_rounds)
    return generation
