"""The records a session is made of, shared by every layer above the environment.

- ``messages``: :class:`Message` (role, content, turn) of the dialogue;
- ``labels``: :class:`IntentLabel` (an intent's terminal status, stage, evidence
  and turn), :class:`Leak`, and the ``IntentStatus`` / ``Stage`` enums;
- ``evidence``: what graders and judges look at (:class:`Evidence`);
- ``trace``: renderings of a session for prompts, clipped to a context window.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "evidence": ("Evidence", "questions_in"),
        "labels": ("IntentLabel", "Leak", "Stage"),
        "messages": ("Message",),
        "status": (
            "FINAL_OUTCOMES",
            "INPUT_ENDED",
            "PARTIAL_RUN_STATUSES",
            "InputEnded",
            "IntentStatus",
            "RunStatus",
            "SessionOutcome",
            "SweepStatus",
        ),
        "trace": (
            "clipped_note",
            "collecting_clips",
            "render_changed_files",
            "files_matching",
            "render_dialogue",
            "render_files",
            "render_tool_records",
        ),
        "clipped": ("was_clipped",),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.data_model.clipped import was_clipped
    from proactive_bench.data_model.evidence import Evidence, questions_in
    from proactive_bench.data_model.labels import IntentLabel, Leak, Stage
    from proactive_bench.data_model.messages import Message
    from proactive_bench.data_model.status import (
        FINAL_OUTCOMES,
        INPUT_ENDED,
        PARTIAL_RUN_STATUSES,
        InputEnded,
        IntentStatus,
        RunStatus,
        SessionOutcome,
        SweepStatus,
    )
    from proactive_bench.data_model.trace import (
        clipped_note,
        collecting_clips,
        files_matching,
        render_changed_files,
        render_dialogue,
        render_files,
        render_tool_records,
    )

__all__ = [
    "FINAL_OUTCOMES",
    "INPUT_ENDED",
    "PARTIAL_RUN_STATUSES",
    "Evidence",
    "InputEnded",
    "IntentLabel",
    "IntentStatus",
    "Leak",
    "Message",
    "RunStatus",
    "SessionOutcome",
    "Stage",
    "SweepStatus",
    "clipped_note",
    "collecting_clips",
    "questions_in",
    "render_changed_files",
    "files_matching",
    "render_dialogue",
    "render_files",
    "render_tool_records",
    "was_clipped",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
