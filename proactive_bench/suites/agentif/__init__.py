"""The ``agentif`` suite: AgentIF-OneDay-style everyday tasks with attachments, bonus/penalty rubrics, latent rules and refinement.

| module | owns |
| --- | --- |
| `kinds.py` | the names tasks are sorted by (`CATEGORIES`, `DOMAINS`, `ITEM_CATEGORIES`), plain tuples loading nothing |
| `task.py` | `AgentIFTask`: the task format (pydantic; in `pbench schema`) |
| `loading.py` | reads `agentif/<task id>/task.yaml` and converts a task into a one-session episode (rules as hidden intents no question earns, the user's pointers to their source; follow-ups) |
| `validity.py` | `pbench validate` checks: attachments made by the task's script, rule cues in the source and not in the request, named checkers' arguments, penalty share |
| `deliverable_checks.py` | the named checkers that open deliverables (`table_value`, `table_rows`, `word_count`, `headings`, `pptx_slides`, `ics_events`, `image_file`), added to the `checker` kind's checkers when the suite loads |
| `copy_check.py` | the `validate` check that a latent rule's evidence is not met by deliverables that are empty or copy attachment lines verbatim |
| `scoring.py` | the paper's score of one task: `max(0, S+ - S-) / S_max`, bonuses tied to provided rules withheld |
| `attachments.py` | runs the tasks' attachment generators (`python -m proactive_bench.suites.agentif.attachments`), `--check` for reproducibility |
| `attachment_writers.py` | what the generators write with: the `--out` folder, byte-stable csv/srt/svg/text, one-sheet xlsx, docx and PDF writers |
| `attachment_pdf.py` | the document `pdf_file` hands over (`AttachmentPdf`, fpdf2): loaded only when a PDF is written |
| `suite.py` | `AgentIFSuite`, registered in `suites.SUITES` as `agentif` |
| `generation_corpus.py` | the local attachment corpus of `pbench generate agentif`: files indexed by kind and extracted text, picked by BM25 |
| `generation.py` | the synthesis pipeline: seed reading, workflow extraction, attachment picking, generator-verifier rounds checked by the validate rules |
| `generation_files.py` | the review folder it writes (`task.yaml` with `attachments_from`, `workspace/` copies, `generation.yaml`), renamed into place whole |
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "generation": (
            "Generation",
            "Seed",
            "generate_task",
            "load_seed",
            "new_task_id",
        ),
        "generation_corpus": (
            "CorpusError",
            "index_corpus",
        ),
        "generation_files": (
            "replaceable",
            "write_generation",
        ),
        "scoring": (
            "ItemOutcome",
            "TaskScore",
            "clamped_score",
            "score_task",
        ),
        "suite": (
            "SUITE",
            "AgentIFSuite",
        ),
        "kinds": (
            "CATEGORIES",
            "DOMAINS",
            "ITEM_CATEGORIES",
        ),
        "task": ("AgentIFTask",),
    },
    renamed={
        "GENERATION_CRITERIA": "generation:CRITERIA",
        "GENERATION_MAX_ROUNDS": "generation:MAX_ROUNDS",
        "read_agentif_task": "loading:read_task",
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.suites.agentif.generation import (
        CRITERIA as GENERATION_CRITERIA,
        MAX_ROUNDS as GENERATION_MAX_ROUNDS,
        Generation,
        Seed,
        generate_task,
        load_seed,
        new_task_id,
    )
    from proactive_bench.suites.agentif.generation_corpus import CorpusError, index_corpus
    from proactive_bench.suites.agentif.generation_files import replaceable, write_generation
    from proactive_bench.suites.agentif.kinds import CATEGORIES, DOMAINS, ITEM_CATEGORIES
    from proactive_bench.suites.agentif.loading import read_task as read_agentif_task
    from proactive_bench.suites.agentif.scoring import ItemOutcome, TaskScore, clamped_score, score_task
    from proactive_bench.suites.agentif.suite import SUITE, AgentIFSuite
    from proactive_bench.suites.agentif.task import AgentIFTask

__all__ = [
    "CATEGORIES",
    "DOMAINS",
    "GENERATION_CRITERIA",
    "GENERATION_MAX_ROUNDS",
    "ITEM_CATEGORIES",
    "SUITE",
    "AgentIFSuite",
    "AgentIFTask",
    "CorpusError",
    "Generation",
    "ItemOutcome",
    "Seed",
    "TaskScore",
    "clamped_score",
    "generate_task",
    "index_corpus",
    "load_seed",
    "new_task_id",
    "read_agentif_task",
    "replaceable",
    "score_task",
    "write_generation",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
