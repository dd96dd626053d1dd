"""What the simulated user is shown of a turn's changed files (real files on disk)."""

from __future__ import annotations

import os
from pathlib import Path

from proactive_bench.data_model.trace import render_changed_files
from proactive_bench.env import jail
from proactive_bench.env.workspace import Workspace


def changed_between(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The changed files as the session graph computes them from two fingerprints."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def test_a_changed_file_with_a_non_utf8_name_is_shown_changed_not_deleted(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write_text("notes.md", "kept\n")
    name = os.fsdecode(b"caf\xe9-\xff.md")  # Latin-1 bytes, not UTF-8
    (ws.root / name).write_bytes(b"first draft\n")
    before = ws.fingerprint()
    (ws.root / name).write_bytes(b"final version\n")
    (ws.root / "notes.md").unlink()
    changed = changed_between(before, ws.fingerprint())
    assert changed == ["caf\\xe9-\\xff.md", "notes.md"]
    rendered = render_changed_files(ws, changed)
    assert "--- file caf\\xe9-\\xff.md ---\nfinal version" in rendered
    assert "caf\\xe9-\\xff.md: deleted" not in rendered and "--- notes.md: deleted" in rendered


def test_a_deleted_non_utf8_file_is_shown_deleted(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    name = os.fsdecode(b"old-\xfe.txt")
    (ws.root / name).write_bytes(b"gone soon\n")
    before = ws.fingerprint()
    (ws.root / name).unlink()
    assert render_changed_files(ws, changed_between(before, ws.fingerprint())) == "--- old-\\xfe.txt: deleted"


def test_shown_names_map_back_to_the_os_name() -> None:
    for raw in (b"plain.md", b"caf\xe9.md", b"a/b-\xff\xfe/c.txt"):
        name = os.fsdecode(raw)
        assert jail.unshown(jail.shown(name)) == name
