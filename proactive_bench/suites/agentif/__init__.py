"""The ``agentif`` suite: AgentIF-OneDay-style everyday tasks with attachments, bonus/penalty rubrics, latent rules and refinement.

| module | owns |
| --- | --- |
| `task.py` | `AgentIFTask`: the task format (pydantic; in `pbench schema`) |
| `loading.py` | reads `agentif/<task id>/task.yaml` and converts a task into a one-session episode (rules as hidden intents, follow-ups) |
| `validity.py` | `pbench validate` checks: attachments made by the task's script, rule cues in the source and not in the request, penalty share |
| `scoring.py` | the paper's score of one task: `max(0, S+ - S-) / S_max`, bonuses tied to provided rules withheld |
| `attachments.py` | runs the tasks' attachment generators (`python -m proactive_bench.suites.agentif.attachments`), `--check` for reproducibility |
| `attachment_writers.py` | what the generators write with: the `--out` folder, byte-stable csv/srt/svg/text, one-sheet xlsx, docx and PDF writers |
| `suite.py` | `AgentIFSuite`, registered in `suites.SUITES` as `agentif` |
"""

from proactive_bench.suites.agentif.loading import read_task as read_agentif_task
from proactive_bench.suites.agentif.scoring import ItemOutcome, TaskScore, clamped_score, score_task
from proactive_bench.suites.agentif.suite import SUITE, AgentIFSuite
from proactive_bench.suites.agentif.task import CATEGORIES, DOMAINS, ITEM_CATEGORIES, AgentIFTask

__all__ = [
    "CATEGORIES",
    "DOMAINS",
    "ITEM_CATEGORIES",
    "SUITE",
    "AgentIFSuite",
    "AgentIFTask",
    "ItemOutcome",
    "TaskScore",
    "clamped_score",
    "read_agentif_task",
    "score_task",
]
