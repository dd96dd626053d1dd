"""Helpers for the office tool tests: a toolbox on a fresh workspace, jail-escape and bad-file attempts any path argument must refuse."""

from __future__ import annotations

import io
import os
import zipfile
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import proactive_bench.env.office_files as office_files
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.office_files import FILE_LIMIT
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from tests.helpers.app_calls import err, ok


def office_box(folder: Path, *groups: str) -> ToolBox:
    """The tools of ``groups`` on an empty workspace ``folder/ws``."""
    return ToolBox(ToolEnv(Workspace(folder / "ws"), Memory()), resolve_tool_names(list(groups)))


def office_box_at(folder: Path, group: str, when: datetime) -> ToolBox:
    """:func:`office_box` for one group in a world with apps, its simulated clock at ``when`` (what files are dated with)."""
    apps = AppStore()
    apps.set_clock(when)
    return ToolBox(ToolEnv(Workspace(folder), Memory(), apps), resolve_tool_names([group]))


def made_twice_at(folder: Path, group: str, when: datetime, tool: str, path: str, **args: Any) -> str:
    """Make ``path`` with ``tool`` in two new worlds at ``when`` (``folder/ws0``, ``folder/ws1``), assert that both gave
    the same reply and the same bytes, and return the reply."""
    made = []
    for n in range(2):
        box = office_box_at(folder / f"ws{n}", group, when)
        said = ok(box, tool, path=path, **args)
        made.append((said, (folder / f"ws{n}" / path).read_bytes()))
    assert made[0] == made[1]
    return str(made[0][0])


def assert_jailed(box: ToolBox, tool: str, path_arg: str, outside: Path, **extra: Any) -> None:
    """Every way out of the workspace through ``tool``'s ``path_arg`` is a tool error; ``outside`` is neither read nor changed.

    ``outside`` is a real file of the tool's format next to the workspace, so
    a tool that followed a path there would succeed (and could leak or change it).
    """
    root = box.env.workspace.root
    before = outside.read_bytes()
    suffix = outside.suffix
    if not os.path.lexists(root / f"link{suffix}"):  # planted once per workspace, whichever tool is tried first
        (root / f"link{suffix}").symlink_to(outside)
        (root / "out").symlink_to(outside.parent, target_is_directory=True)
        os.link(outside, root / f"hard{suffix}")
    attempts = {
        str(outside): "absolute",
        f"~/{outside.name}": "absolute",
        f"../{outside.name}": "'..'",
        f"sub/../../{outside.name}": "'..'",
        f"link{suffix}": "leaves the workspace",
        f"out/{outside.name}": "leaves the workspace",
        f"hard{suffix}": "hard-linked",
    }
    for path, needle in attempts.items():
        message = err(box, tool, **{path_arg: path, **extra})
        assert needle in message, (path, message)
        assert "Secret" not in message
    assert outside.read_bytes() == before
    assert not any("Secret" in str(record.result) for record in box.records)


BOMB_LIMIT = 4 * 2**20
"""The unpacked-size limit the tests set, so that a zip bomb past it is quick to make."""


@cache
def zip_bomb() -> bytes:
    """A small zip archive that unpacks to more than :data:`BOMB_LIMIT`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("word/document.xml", "w") as member:
        member.write(b"\0" * (BOMB_LIMIT + 1))
    return buffer.getvalue()


def assert_refuses_bad_files(
    box: ToolBox, monkeypatch: pytest.MonkeyPatch, tool: str, path_arg: str, suffix: str, creates: bool = False, **extra: Any
) -> None:
    """A missing (unless the tool ``creates`` it), folder, huge, junk (for zip formats also zip-bomb) file is a clear error naming it."""
    monkeypatch.setattr(office_files, "UNPACKED_LIMIT", BOMB_LIMIT)
    root = box.env.workspace.root
    with open(root / f"huge{suffix}", "wb") as handle:
        handle.truncate(FILE_LIMIT + 1)  # sparse: costs no disk
    (root / f"junk{suffix}").write_bytes(b"this is not what the name says")
    (root / f"folder{suffix}").mkdir(exist_ok=True)
    cases = {f"folder{suffix}": "folder", f"huge{suffix}": "larger than", f"junk{suffix}": "junk"} | (
        {} if creates else {f"missing{suffix}": "no such file"}
    )
    if suffix in (".docx", ".xlsx"):
        (root / f"bomb{suffix}").write_bytes(zip_bomb())
        cases[f"bomb{suffix}"] = "unpacks to"
    for path, needle in cases.items():
        message = err(box, tool, **{path_arg: path, **extra})
        assert needle in message and path in message, (path, message)
    assert "expected a" in err(box, tool, **{path_arg: "notes.txt", **extra})
