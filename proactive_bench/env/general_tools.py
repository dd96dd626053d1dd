"""Built-in workspace and memory tools."""

from __future__ import annotations

from pydantic import BaseModel, Field

from proactive_bench.env.documents import bytes_as_text
from proactive_bench.env.jail import DEFAULT_LIMITS, Missing, shown
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

READ_LIMIT = 100_000
"""Characters of a file ``read_file`` returns."""


class PathArgs(BaseModel):
    path: str = Field(description="Path relative to the workspace root.")


class WriteArgs(BaseModel):
    path: str = Field(description="Path relative to the workspace root; parent folders are created.")
    content: str = Field(description="The full new text of the file.")


class EditArgs(BaseModel):
    path: str = Field(description="Path relative to the workspace root.")
    old: str = Field(min_length=1, description="Exact text to replace; must occur exactly once.")
    new: str = Field(description="Replacement text.")


class ListArgs(BaseModel):
    path: str = Field(default=".", description="Folder relative to the workspace root.")


class MemoryWriteArgs(BaseModel):
    key: str = Field(min_length=1, description="A short name for the note, e.g. 'report_format'.")
    text: str = Field(description="What to remember.")


class MemoryReadArgs(BaseModel):
    key: str | None = Field(default=None, description="A note's name; omit to list every note.")


@register_tool("read_file", group="workspace")
def read_file(env: ToolEnv, args: PathArgs) -> str:
    """Read a file from the workspace as text; PDF, DOCX and XLSX (sheets as CSV) are converted."""
    text = bytes_as_text(_read(env, args.path), args.path)
    if len(text) > READ_LIMIT:
        return text[:READ_LIMIT] + f"\n[... {len(text) - READ_LIMIT} more characters]"
    return text


def _read(env: ToolEnv, relative: str) -> bytes:
    """A workspace file's bytes through the jail (opened without following a link swapped in after the path was checked)."""
    try:
        return env.workspace.read_bytes(relative, DEFAULT_LIMITS.file_bytes)
    except Missing:
        raise ToolError(f"no such file: {relative}") from None


@register_tool("write_file", group="workspace")
def write_file(env: ToolEnv, args: WriteArgs) -> str:
    """Create or overwrite a text file in the workspace."""
    env.workspace.write_text(args.path, args.content)
    return f"wrote {len(args.content)} characters to {args.path}"


@register_tool("edit_file", group="workspace")
def edit_file(env: ToolEnv, args: EditArgs) -> str:
    """Replace one exact occurrence of a text in a workspace file."""
    text = _read(env, args.path).decode("utf-8")
    count = text.count(args.old)
    if count != 1:
        raise ToolError(f"'old' occurs {count} times in {args.path}; it must occur exactly once")
    env.workspace.write_text(args.path, text.replace(args.old, args.new))
    return f"edited {args.path}"


@register_tool("list_dir", group="workspace")
def list_dir(env: ToolEnv, args: ListArgs) -> list[str]:
    """List a workspace folder; folders end with '/'."""
    path = env.workspace.resolve(args.path)
    if not path.is_dir():
        raise ToolError(f"no such folder: {args.path}")
    return sorted(shown(p.name) + ("/" if p.is_dir() else "") for p in path.iterdir())


@register_tool("memory_write", group="memory")
def memory_write(env: ToolEnv, args: MemoryWriteArgs) -> str:
    """Save a note to long-term memory; it is kept for later sessions."""
    env.memory.write(args.key, args.text)
    return f"remembered {args.key}"


@register_tool("memory_read", group="memory")
def memory_read(env: ToolEnv, args: MemoryReadArgs) -> dict[str, str]:
    """Read one note from long-term memory, or all of them."""
    if args.key is None:
        return env.memory.as_dict()
    text = env.memory.get(args.key)
    if text is None:
        raise ToolError(f"no memory note named {args.key!r}")
    return {args.key: text}
