"""Finding files in the workspace: ``glob`` by name pattern, ``grep`` by content.

Both walk the workspace with :func:`jail.walk` (no link is followed) and read
through :func:`jail.read_file`, so they never see or report anything outside.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field

import proactive_bench.env.jail as jail
from proactive_bench.env.jail import check_pattern, glob_regex
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool
from proactive_bench.env.workspace import Workspace

MAX_PATHS = 200
MAX_GREP_FILE_BYTES = 5_000_000
MAX_LINE_CHARS = 300


class GlobArgs(BaseModel):
    pattern: str = Field(
        min_length=1, description="Glob relative to the workspace root, e.g. '*.md', 'reports/**/*.csv'. '**' spans folders."
    )


class GrepArgs(BaseModel):
    pattern: str = Field(min_length=1, description="Python regular expression searched in each line.")
    path: str = Field(default=".", description="File or folder to search, relative to the workspace root.")
    glob: str | None = Field(default=None, description="Only files whose path matches this glob, e.g. '**/*.md'.")
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")
    max_results: int = Field(default=100, ge=1, le=500, description="At most this many matching lines.")


def walk_files(workspace: Workspace, start: Path) -> Iterator[str]:
    """Workspace-relative paths of the regular files under ``start`` as :func:`jail.walk` lists them, in order.

    Symlinks are not followed, and hard-linked and special files are left out.
    """
    if start.is_file():
        yield workspace.relative(start)
        return
    base = "" if start == workspace.root else workspace.relative(start) + "/"
    for entry in jail.walk(start).files():
        yield base + entry.path


@register_tool("glob", group="workspace")
def glob(env: ToolEnv, args: GlobArgs) -> list[str]:
    """Find workspace files whose path matches a glob pattern; returns workspace-relative paths."""
    regex = glob_regex(check_pattern(args.pattern))
    found = sorted(jail.shown(rel) for rel in walk_files(env.workspace, env.workspace.root) if regex.match(rel))
    if len(found) > MAX_PATHS:
        return found[:MAX_PATHS] + [f"[... {len(found) - MAX_PATHS} more paths; narrow the pattern]"]
    return found


@register_tool("grep", group="workspace")
def grep(env: ToolEnv, args: GrepArgs) -> list[str]:
    """Search workspace text files for a regular expression; returns 'path:line:text' lines."""
    try:
        regex = re.compile(args.pattern, re.IGNORECASE if args.ignore_case else 0)
    except re.error as exc:
        raise ToolError(f"invalid regular expression: {exc}") from None
    start = env.workspace.resolve(args.path)
    if not start.exists():
        raise ToolError(f"no such file or folder: {args.path}")
    name_filter = glob_regex(check_pattern(args.glob)) if args.glob else None
    hits: list[str] = []
    for rel in walk_files(env.workspace, start):
        if name_filter and not name_filter.match(rel):
            continue
        try:
            data = jail.read_file(env.workspace.root, rel, MAX_GREP_FILE_BYTES)
        except jail.Refused:
            continue
        if b"\x00" in data[:8192]:
            continue
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if regex.search(line):
                if len(hits) == args.max_results:
                    return hits + ["[... more matching lines not shown; narrow the search]"]
                hits.append(f"{jail.shown(rel)}:{number}:{line[:MAX_LINE_CHARS]}")
    return hits
