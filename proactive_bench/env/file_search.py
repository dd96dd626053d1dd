"""Finding files in the workspace: ``glob`` by name pattern, ``grep`` by content.

Both walk the workspace without following symlinked folders and skip any entry
whose real path lies outside, so they never see or report anything outside.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field

from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool
from proactive_bench.env.workspace import PathEscapeError, Workspace

MAX_PATHS = 200
MAX_GREP_FILE_BYTES = 5_000_000
MAX_LINE_CHARS = 300


class GlobArgs(BaseModel):
    pattern: str = Field(min_length=1, description="Glob relative to the workspace root, e.g. '*.md', 'reports/**/*.csv'. '**' spans folders.")


class GrepArgs(BaseModel):
    pattern: str = Field(min_length=1, description="Python regular expression searched in each line.")
    path: str = Field(default=".", description="File or folder to search, relative to the workspace root.")
    glob: str | None = Field(default=None, description="Only files whose path matches this glob, e.g. '**/*.md'.")
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")
    max_results: int = Field(default=100, ge=1, le=500, description="At most this many matching lines.")


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over '/'-separated paths: ``*`` and ``?`` stay in one folder, ``**`` spans folders."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def check_pattern(pattern: str) -> str:
    """The pattern without a leading './'; absolute patterns, '~' and '..' are refused."""
    if pattern.startswith(("/", "~")) or ".." in pattern.replace("\\", "/").split("/"):
        raise PathEscapeError(f"patterns must stay inside the workspace: {pattern!r}")
    return pattern.removeprefix("./")


def walk_files(workspace: Workspace, start: Path) -> Iterator[str]:
    """Workspace-relative paths of the regular files under ``start`` whose real path is inside, folder by folder.

    Hard-linked files are left out: their data may be shared with a file outside.
    """
    if start.is_file():
        yield workspace.relative(start)
        return
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            real = path.resolve()
            if real.is_file() and workspace.root in real.parents and real.stat().st_nlink == 1:
                yield path.relative_to(workspace.root).as_posix()


@register_tool("glob", group="workspace")
def glob(env: ToolEnv, args: GlobArgs) -> list[str]:
    """Find workspace files whose path matches a glob pattern; returns workspace-relative paths."""
    regex = glob_regex(check_pattern(args.pattern))
    found = sorted(rel for rel in walk_files(env.workspace, env.workspace.root) if regex.match(rel))
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
        path = env.workspace.root / rel
        if path.stat().st_size > MAX_GREP_FILE_BYTES:
            continue
        data = path.read_bytes()
        if b"\x00" in data[:8192]:
            continue
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if regex.search(line):
                if len(hits) == args.max_results:
                    return hits + ["[... more matching lines not shown; narrow the search]"]
                hits.append(f"{rel}:{number}:{line[:MAX_LINE_CHARS]}")
    return hits
