"""A copy-parrot agent for the AgentIF tests (``--model tests/helpers/agentif_copy_agent.py:CopyAgent``).

It does no work: in its first turn it finds the deliverables the request names
(workspace paths that do not exist yet), and writes into each of them every
line of every attachment verbatim, as ``read_file`` shows it (documents
extracted), in the deliverable's own format (a .docx, .xlsx or .pdf through its
office tool, so the graders can read it). Later turns say it is done. It never
asks and never reads the reference solution, so it runs as any third-party
agent does.

A latent rule's evidence must not hold on its files: copying the example the
user attached is not applying the example's rule to the new data.
"""

from __future__ import annotations

import csv
import re
from pathlib import PurePosixPath

from openpyxl.utils import get_column_letter

from proactive_bench import AgentTurn, SessionContext
from proactive_bench.env import file_text

PATH = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,5}\b")
"""A workspace path as requests write them (``out/march_coded.csv``)."""
FILE_CHARS = 20_000
DONE = "Done: the deliverables are written."


def named_paths(request: str) -> list[str]:
    """The workspace paths a request names, in order."""
    return list(dict.fromkeys(m.group().rstrip(".") for m in PATH.finditer(request)))


def attachment_lines(ctx: SessionContext) -> list[str]:
    """Every non-blank line of every workspace file, as ``read_file`` shows it."""
    lines = []
    for path in ctx.workspace.files():
        lines += [line for line in file_text(ctx.workspace, path, FILE_CHARS).splitlines() if line.strip()]
    return lines


def copy_call(path: str, lines: list[str]) -> tuple[str, dict[str, object]]:
    """The tool call writing ``lines`` into ``path`` in the file's format, one line per paragraph, row or line."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == ".docx":
        return "docx_create", {"path": path, "blocks": [{"type": "paragraph", "text": line} for line in lines], "overwrite": True}
    if suffix == ".xlsx":  # a row's cells, so that the sheet reads back as the same comma-separated line
        rows = [next(csv.reader([line])) for line in lines]
        return "xlsx_write", {
            "path": path,
            "cells": {f"{get_column_letter(c)}{r}": v for r, row in enumerate(rows, 1) for c, v in enumerate(row, 1)},
        }
    if suffix == ".pdf":
        return "pdf_create", {"path": path, "text": "\n".join(lines), "overwrite": True}
    return "write_file", {"path": path, "content": "\n".join(lines) + "\n"}


class CopyAgent:
    """Copies every attachment line into every deliverable the request names, then says it is done."""

    def __init__(self) -> None:
        self._ctx: SessionContext | None = None
        self._turns = 0
        self.written: list[str] = []

    def start_session(self, ctx: SessionContext) -> None:
        self._ctx, self._turns, self.written = ctx, 0, []

    def end_session(self) -> None:
        self._ctx = None

    def respond(self, message: str) -> AgentTurn:
        self._turns += 1
        if self._turns > 1 or self._ctx is None:
            return AgentTurn(DONE)
        existing = set(self._ctx.workspace.files())
        lines = attachment_lines(self._ctx)
        for path in (p for p in named_paths(message) if p not in existing):
            tool, args = copy_call(path, lines)
            if (
                self._ctx.tools.call(tool, args).ok
                or self._ctx.tools.call("write_file", {"path": path, "content": "\n".join(lines) + "\n"}).ok
            ):
                self.written.append(path)
        return AgentTurn(DONE)
