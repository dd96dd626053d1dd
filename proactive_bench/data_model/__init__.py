"""What a session produced, in the shapes judges and reports read.

``evidence`` is what graders and the rubric judge look at (dialogue, tool
records, workspace, memory, apps), ``trace`` renders it as plain text for
model prompts (with clipping notes). See README.md here.
"""

from proactive_bench.data_model.evidence import (
    Evidence,
    Message,
    questions_in,
)
from proactive_bench.data_model.trace import (
    clipped_note,
    collecting_clips,
    render_changed_files,
    render_dialogue,
    render_files,
    render_tool_records,
    was_clipped,
)

__all__ = [
    "Evidence",
    "Message",
    "clipped_note",
    "collecting_clips",
    "questions_in",
    "render_changed_files",
    "render_dialogue",
    "render_files",
    "render_tool_records",
    "was_clipped",
]
