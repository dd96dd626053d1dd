"""The file_system app: login, file and directory tools on the real workspace, and the path jail."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env import jail
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from tests.helpers.app_calls import err, ok

SEED = "file_system_account:\n  - {username: lauren, password: s3cret}\n"


def _box(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["file_system"]))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "file_system.yaml").write_text(SEED)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("top secret")
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "todo.md").write_text("- buy milk\n")
    (ws / "notes" / "drafts").mkdir()
    (ws / "notes" / "drafts" / "idea.txt").write_text("idea")
    (ws / "readme.txt").write_text("hello")
    os.symlink(tmp_path / "outside", ws / "out_dir")
    os.symlink(tmp_path / "outside" / "secret.txt", ws / "out_file.txt")
    box = _box(tmp_path)
    box.env.require_apps().seed_from(tmp_path / "seed")
    assert box.call("file_system__login", {"username": "lauren", "password": "s3cret"}).ok
    return box


def paths(entries: list[dict[str, Any]]) -> list[str]:
    return [e["path"] for e in entries]


def test_login_guards_every_tool(box: ToolBox) -> None:
    ok(box, "file_system__logout")
    assert err(box, "file_system__show_file", file_path="readme.txt") == "not logged in to file_system; call file_system__login first"
    assert err(box, "file_system__login", username="lauren", password="nope") == "file_system: wrong username or password"
    token = ok(box, "file_system__login", username="lauren", password="s3cret")["access_token"]
    assert ok(box, "file_system__show_file", file_path="readme.txt", access_token=token)["content"] == "hello"


def test_show_directory_lists_inside_entries_only(box: ToolBox) -> None:
    top = ok(box, "file_system__show_directory")
    assert top == [
        {"path": "notes", "type": "directory"},
        {"path": "readme.txt", "type": "file", "size": 5},
    ]  # the symlinks leading outside are not listed
    assert paths(ok(box, "file_system__show_directory", directory_path="notes", recursive=True)) == [
        "notes/drafts",
        "notes/drafts/idea.txt",
        "notes/todo.md",
    ]
    assert err(box, "file_system__show_directory", directory_path="nope") == "no directory at 'nope'"
    assert err(box, "file_system__show_directory", directory_path="readme.txt") == "'readme.txt' is not a directory"


def test_create_show_and_delete_files_and_directories(box: ToolBox, tmp_path: Path) -> None:
    assert ok(box, "file_system__create_file", file_path="reports/q1.md", content="# Q1\n") == {
        "file_path": "reports/q1.md",
        "message": "File created.",
    }
    assert (tmp_path / "ws" / "reports" / "q1.md").read_text() == "# Q1\n"
    assert "already exists" in err(box, "file_system__create_file", file_path="reports/q1.md")
    assert ok(box, "file_system__show_file", file_path="reports/q1.md") == {"file_path": "reports/q1.md", "size": 5, "content": "# Q1\n"}
    assert err(box, "file_system__show_file", file_path="notes") == "'notes' is not a file"
    assert ok(box, "file_system__create_directory", directory_path="archive/2026")["directory_path"] == "archive/2026"
    assert "already exists" in err(box, "file_system__create_directory", directory_path="archive")
    assert ok(box, "file_system__delete_file", file_path="reports/q1.md") == {"message": "File deleted."}
    assert err(box, "file_system__delete_file", file_path="reports/q1.md") == "no file at 'reports/q1.md'"
    assert "not empty" in err(box, "file_system__delete_directory", directory_path="archive")
    ok(box, "file_system__delete_directory", directory_path="archive", recursive=True)
    ok(box, "file_system__delete_directory", directory_path="reports")
    assert not (tmp_path / "ws" / "archive").exists() and not (tmp_path / "ws" / "reports").exists()
    assert err(box, "file_system__delete_directory", directory_path=".", recursive=True) == "the workspace root cannot be deleted"


def test_copy_and_move_files(box: ToolBox, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert ok(box, "file_system__copy_file", source_file_path="readme.txt", destination_file_path="backup/readme.txt") == {
        "file_path": "backup/readme.txt",
        "message": "File copied.",
    }
    assert (ws / "backup" / "readme.txt").read_text() == "hello" and (ws / "readme.txt").exists()
    assert "overwrite=true" in err(
        box, "file_system__copy_file", source_file_path="notes/todo.md", destination_file_path="backup/readme.txt"
    )
    ok(box, "file_system__copy_file", source_file_path="notes/todo.md", destination_file_path="backup/readme.txt", overwrite=True)
    assert (ws / "backup" / "readme.txt").read_text() == "- buy milk\n"
    assert err(box, "file_system__copy_file", source_file_path="readme.txt", destination_file_path="notes") == "'notes' is a directory"
    assert (
        ok(box, "file_system__move_file", source_file_path="readme.txt", destination_file_path="notes/readme.txt")["file_path"]
        == "notes/readme.txt"
    )
    assert not (ws / "readme.txt").exists() and (ws / "notes" / "readme.txt").read_text() == "hello"
    assert "same file" in err(box, "file_system__move_file", source_file_path="notes/readme.txt", destination_file_path="notes/readme.txt")
    assert err(box, "file_system__move_file", source_file_path="gone.txt", destination_file_path="x.txt") == "no file at 'gone.txt'"


def test_copy_and_move_directories(box: ToolBox, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert ok(box, "file_system__copy_directory", source_directory_path="notes", destination_directory_path="old/notes") == {
        "directory_path": "old/notes",
        "message": "Directory copied.",
    }
    assert (ws / "old" / "notes" / "drafts" / "idea.txt").read_text() == "idea" and (ws / "notes").is_dir()
    assert (
        err(box, "file_system__copy_directory", source_directory_path="notes", destination_directory_path="old/notes")
        == "'old/notes' already exists"
    )
    assert "is inside" in err(box, "file_system__copy_directory", source_directory_path="notes", destination_directory_path="notes/sub")
    ok(box, "file_system__move_directory", source_directory_path="notes", destination_directory_path="journal")
    assert not (ws / "notes").exists() and (ws / "journal" / "todo.md").exists()
    assert "root cannot be copied" in err(box, "file_system__move_directory", source_directory_path=".", destination_directory_path="x")


ESCAPES: list[tuple[str, dict[str, Any]]] = [
    ("file_system__show_directory", {"directory_path": "{p}"}),
    ("file_system__create_directory", {"directory_path": "{p}/new"}),
    ("file_system__create_file", {"file_path": "{p}/new.txt"}),
    ("file_system__show_file", {"file_path": "{f}"}),
    ("file_system__delete_file", {"file_path": "{f}"}),
    ("file_system__copy_file", {"source_file_path": "{f}", "destination_file_path": "stolen.txt"}),
    ("file_system__copy_file", {"source_file_path": "readme.txt", "destination_file_path": "{p}/planted.txt"}),
    ("file_system__move_file", {"source_file_path": "{f}", "destination_file_path": "stolen.txt"}),
    ("file_system__move_file", {"source_file_path": "readme.txt", "destination_file_path": "{p}/planted.txt"}),
    ("file_system__copy_directory", {"source_directory_path": "{p}", "destination_directory_path": "stolen"}),
    ("file_system__copy_directory", {"source_directory_path": "notes", "destination_directory_path": "{p}/planted"}),
    ("file_system__move_directory", {"source_directory_path": "{p}", "destination_directory_path": "stolen"}),
    ("file_system__move_directory", {"source_directory_path": "notes", "destination_directory_path": "{p}/planted"}),
    ("file_system__delete_directory", {"directory_path": "{p}", "recursive": True}),
]


@pytest.mark.parametrize(
    ("dir_path", "file_path", "reason"),
    [
        ("../outside", "../outside/secret.txt", "'..' is not allowed"),
        ("{abs}", "{abs}/secret.txt", "absolute paths are not allowed"),
        ("out_dir", "out_file.txt", "path leaves the workspace"),
    ],
    ids=["dotdot", "absolute", "symlink"],
)
def test_every_tool_refuses_paths_leaving_the_workspace(box: ToolBox, tmp_path: Path, dir_path: str, file_path: str, reason: str) -> None:
    outside = tmp_path / "outside"
    fill = {"p": dir_path.format(abs=outside), "f": file_path.format(abs=outside)}
    for tool, template in ESCAPES:
        args = {k: v.format(**fill) if isinstance(v, str) else v for k, v in template.items()}
        assert reason in err(box, tool, **args), (tool, args)
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        assert (outside / "secret.txt").read_text() == "top secret"
        assert not (tmp_path / "ws" / "stolen.txt").exists() and not (tmp_path / "ws" / "stolen").exists()


def test_directory_copies_never_carry_links_out(box: ToolBox, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "linked").mkdir()
    os.symlink(tmp_path / "outside" / "secret.txt", ws / "linked" / "secret")
    message = err(box, "file_system__copy_directory", source_directory_path="linked", destination_directory_path="copy")
    assert message == "links would reach outside the workspace: linked/secret" and not (ws / "copy").exists()
    assert "linked/secret" in err(box, "file_system__move_directory", source_directory_path="linked", destination_directory_path="moved")
    # a relative link that is fine where it is but would leave the workspace one level up
    (ws / "a" / "b").mkdir(parents=True)
    os.symlink("../../readme.txt", ws / "a" / "b" / "link")
    assert "copy/link" in err(box, "file_system__copy_directory", source_directory_path="a/b", destination_directory_path="copy")
    assert not (ws / "copy").exists()
    assert "moved/link" in err(box, "file_system__move_directory", source_directory_path="a/b", destination_directory_path="moved")
    assert (ws / "a" / "b" / "link").is_symlink() and not (ws / "moved").exists()  # moved back
    ok(box, "file_system__copy_directory", source_directory_path="a", destination_directory_path="c")
    assert os.readlink(ws / "c" / "b" / "link") == "../../readme.txt" and (ws / "c" / "b" / "link").read_text() == "hello"
    # a hard link shares its data with a file outside: copying it would leak that data
    (ws / "hard").mkdir()
    os.link(tmp_path / "outside" / "secret.txt", ws / "hard" / "h.txt")
    assert "hard/h.txt" in err(box, "file_system__copy_directory", source_directory_path="hard", destination_directory_path="leak")
    assert not (ws / "leak").exists()
    assert "hard-linked" in err(box, "file_system__copy_file", source_file_path="hard/h.txt", destination_file_path="leak.txt")


def test_login_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    ok(box, "file_system__create_file", file_path="kept.txt", content="kept")
    apps = box.env.require_apps()
    snap = apps.snapshot()
    ok(box, "file_system__logout")
    again = _box(tmp_path)  # a later session of the same episode
    assert "not logged in" in err(again, "file_system__show_file", file_path="kept.txt")
    apps.restore(snap)
    assert ok(again, "file_system__show_file", file_path="kept.txt")["content"] == "kept"
    assert again.env.require_apps().rows("file_system_account") == [{"username": "lauren", "password": "s3cret"}]


HEADROOM = 250
"""Frames the tool calls may use above the test's own: the recursion limit is lowered to the test's depth plus this
while it runs, so a tree deeper than the limit is about 400 levels, not the default limit's 1,100 (each tool walks the
tree once per level from the top: the time grows with the square of the depth), and still breaks per-level recursion."""


def test_trees_deeper_than_the_recursion_limit_are_listed_checked_copied_and_deleted(box: ToolBox, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    default_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + HEADROOM)
    depth = sys.getrecursionlimit() + 100
    bottom = ws / "deep"
    bottom.mkdir()
    try:
        for _ in range(depth):  # one mkdir per level: os.makedirs itself recurses once per missing level
            bottom = bottom / "d"
            bottom.mkdir()
        (bottom / "bottom.txt").write_text("found")
        os.symlink(tmp_path / "outside" / "secret.txt", bottom / "leak")
        bottom_path = "deep/" + "d/" * depth + "bottom.txt"
        listed = paths(ok(box, "file_system__show_directory", directory_path="deep", recursive=True))
        assert bottom_path in listed and len(listed) == depth + 1  # the link leading out is not listed
        message = err(box, "file_system__copy_directory", source_directory_path="deep", destination_directory_path="copy")
        assert message.startswith("links would reach outside the workspace: deep/d/d/") and message.endswith("/leak")
        assert not (ws / "copy").exists()
        (bottom / "leak").unlink()
        ok(box, "file_system__copy_directory", source_directory_path="deep", destination_directory_path="copy")
        assert ok(box, "file_system__show_file", file_path="copy/" + bottom_path.removeprefix("deep/"))["content"] == "found"
        ok(box, "file_system__delete_directory", directory_path="copy", recursive=True)
        assert not (ws / "copy").exists()
        deep_new = "new/" + "n/" * depth + "made.txt"
        ok(box, "file_system__create_file", file_path=deep_new, content="made")
        ok(box, "file_system__move_directory", source_directory_path="deep", destination_directory_path="moved")
        ok(box, "file_system__delete_directory", directory_path="moved", recursive=True)
        assert not (ws / "moved").exists() and (ws / deep_new).read_text() == "made"
    finally:
        for top in ("deep", "copy", "moved", "new"):
            jail.remove_tree(ws / top)  # pytest's own clean-up recurses per level
        sys.setrecursionlimit(default_limit)
