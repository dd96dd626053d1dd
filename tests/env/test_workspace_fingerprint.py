"""Workspace listing and change detection: settled files are hashed once, every write is still seen."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from proactive_bench.env import jail, workspace as workspace_module
from proactive_bench.env.workspace import Workspace, expand_snapshot
from proactive_bench.episode.checkpoints import WorkspacePacker

HOUR_NS = 3600 * 10**9


def age(path: Path) -> None:
    """Give a file an mtime an hour ago (its ctime stays now)."""
    old = path.stat().st_mtime_ns - HOUR_NS
    os.utime(path, ns=(old, old))


def settle_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """No racy window, coarse or fine: a file's times (its ctime is now) count as settled."""
    monkeypatch.setattr(workspace_module, "RACY_NS", 0)
    monkeypatch.setattr(workspace_module, "FINE_RACY_NS", 0)


def test_files_lists_regular_files_only(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write_text("notes/a.md", "a")
    ws.write_text("b.txt", "b")
    (ws.root / "link.txt").symlink_to(ws.root / "b.txt")
    (ws.root / "linked_dir").symlink_to(ws.root / "notes", target_is_directory=True)
    assert ws.files() == ["b.txt", "notes/a.md"]


def test_a_same_size_rewrite_right_after_hashing_is_seen(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write_text("plan.md", "draft A")
    before = ws.fingerprint()
    ws.write_text("plan.md", "draft B")  # same size, likely the same coarse timestamp
    assert ws.fingerprint()["plan.md"] != before["plan.md"]


def test_settled_files_are_not_read_again_until_they_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace(tmp_path / "ws")
    path = ws.write_text("seed.csv", "id,name\n1,aspirin\n")
    age(path)
    settle_at_once(monkeypatch)  # the ctime (now) counts as settled too
    first = ws.fingerprint()
    reads: list[str] = []
    original = jail.read_file
    monkeypatch.setattr(jail, "read_file", lambda root, rel, *a, **k: reads.append(rel) or original(root, rel, *a, **k))
    assert ws.fingerprint() == first and reads == []
    mtime = path.stat().st_mtime_ns
    time.sleep(0.05)  # no racy window here: let the file system's clock tick past the last ctime
    path.write_text("id,name\n1,ibuprofe\n")  # same size; the old mtime is put back, the ctime cannot be
    os.utime(path, ns=(mtime, mtime))
    assert ws.fingerprint()["seed.csv"] != first["seed.csv"] and reads == ["seed.csv"]


def test_snapshots_and_packs_reuse_settled_digests_and_still_see_every_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a settled fingerprint, the next snapshot and checkpoint read only what changed, and come out as if they read it all."""
    ws = Workspace(tmp_path / "ws")
    kept, edited = ws.write_text("seed.csv", "id,name\n1,aspirin\n"), ws.write_text("plan.md", "draft A")
    for path in (kept, edited):
        age(path)
    settle_at_once(monkeypatch)
    packer = WorkspacePacker()
    first_snapshot, first_pack = ws.snapshot(), packer.pack(ws)
    ws.fingerprint()
    reads: list[str] = []
    original = jail.read_file
    monkeypatch.setattr(jail, "read_file", lambda root, rel, *a, **k: reads.append(rel) or original(root, rel, *a, **k))
    mtime = edited.stat().st_mtime_ns
    time.sleep(0.05)
    edited.write_text("draft B")  # same size, the old mtime put back: only the ctime tells
    os.utime(edited, ns=(mtime, mtime))
    ws.write_text("new.txt", "added")
    delta, pack = ws.snapshot(), packer.pack(ws)
    assert sorted(reads) == ["new.txt", "new.txt", "plan.md", "plan.md"]  # seed.csv read by neither
    assert expand_snapshot(first_snapshot, delta) == Workspace(ws.root).snapshot()  # a fresh reader agrees
    assert set(delta) == {"plan.md", "new.txt", ""} and delta["plan.md"]["text"] == "draft B"
    assert sorted(pack.blobs.values()) == [b"added", b"draft B"] and first_pack.blobs
    fresh = WorkspacePacker().pack(ws)  # a whole manifest, every file read
    assert sorted(fresh.blobs.values()) == [b"added", b"draft B", b"id,name\n1,aspirin\n"]


def test_a_file_the_fingerprint_refused_is_never_taken_for_a_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace(tmp_path / "ws")
    path = ws.write_text("big.bin", "x" * 64)
    age(path)
    settle_at_once(monkeypatch)
    monkeypatch.setattr(jail, "read_file", lambda *a, **k: (_ for _ in ()).throw(jail.Refused("too big")))
    marker = ws.fingerprint()["big.bin"]
    entry = ws.scan().files()[0]
    assert ws.settled_digest(entry) is None and marker == jail.Refused("too big").marker()
    assert WorkspacePacker().pack(ws).cut  # the packer reads it, is refused, and says so


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    original = jail.read_file
    monkeypatch.setattr(jail, "read_file", lambda root, rel, *a, **k: reads.append(rel) or original(root, rel, *a, **k))
    return reads


def test_a_file_with_fine_times_settles_within_a_second_and_one_with_whole_seconds_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scripted run writes and fingerprints within a second: a file system keeping sub-second times lets its files
    settle after :data:`FINE_RACY_NS`; whole-second times (a coarse file system) keep the 2 s window."""
    ws = Workspace(tmp_path / "ws")
    fine, coarse = ws.write_text("fine.md", "a"), ws.write_text("coarse.md", "b")
    whole = (time.time_ns() // 10**9) * 10**9  # within the last second: racy for a 2 s clock
    os.utime(coarse, ns=(whole, whole))
    assert fine.stat().st_mtime_ns % 10**9 and fine.stat().st_ctime_ns % 10**9  # this file system keeps fine times
    time.sleep(workspace_module.FINE_RACY_NS / 1e9 + 0.05)
    first = ws.fingerprint()
    reads = _counted_reads(monkeypatch)
    assert ws.fingerprint() == first and reads == ["coarse.md"]
    assert workspace_module.racy_window(coarse.stat()) == workspace_module.RACY_NS


def _world(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.write_text("notes/a.md", "a")
    ws.write_text("b.txt", "b")
    os.link(ws.root / "b.txt", ws.root / "hard.txt")  # refused by the walk: in its cut
    return ws


def test_a_snapshot_and_a_checkpoint_given_one_walk_come_out_as_with_walks_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's end walks its workspace once for both, and stores what two walks gave."""
    own, shared = _world(tmp_path / "own"), _world(tmp_path / "shared")
    expected_snapshot, expected_pack = own.snapshot(), WorkspacePacker().pack(own)
    scan = shared.scan()
    walks: list[Path] = []
    original = jail.walk
    monkeypatch.setattr(jail, "walk", lambda root, *a, **k: walks.append(root) or original(root, *a, **k))
    snapshot, pack = shared.snapshot(scan), WorkspacePacker().pack(shared, scan)
    assert walks == []
    assert snapshot == expected_snapshot and expected_pack.cut
    assert (pack.manifest, pack.blobs, pack.cut) == (expected_pack.manifest, expected_pack.blobs, expected_pack.cut)


def test_a_checkpoint_notes_its_refused_reads_without_changing_the_walk_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _world(tmp_path / "ws")
    scan = ws.scan()
    cut = list(scan.cut)
    monkeypatch.setattr(jail, "read_file", lambda *a, **k: (_ for _ in ()).throw(jail.Refused("unreadable")))
    pack = WorkspacePacker().pack(ws, scan)
    assert scan.cut == cut and scan.cut_count == len(cut)
    assert pack.cut == [*cut, "notes/a.md: unreadable"]  # the one file the walk let through
