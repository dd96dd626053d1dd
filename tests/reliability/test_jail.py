"""The jailed reader against a hostile workspace: every framework-side read refuses what leaves the workspace.

Each attack plants something in a workspace the way an agent's ``shell_exec``
could (or a host user, for the hard link), then runs the framework's own
readers: judge evidence (``render_files``), user evidence
(``render_changed_files``), snapshots, fingerprints, checkpoint packs, the
file tools, seeds. A secret outside the workspace and a planted API key in
the environment must appear in none of their outputs.
"""

from __future__ import annotations

import json
import os
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import proactive_bench.env.skills as skills_module
import proactive_bench.env.web as web_module
import proactive_bench.env.workspace as workspace_module
from proactive_bench.data_model.trace import render_changed_files, render_files
from proactive_bench.env import jail
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace, WorkspaceSeedError
from proactive_bench.episode.checkpoints import (
    MANIFEST_MAGIC,
    WorkspacePacker,
    workspace_archive,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI

SECRET = "HOST-SECRET-9137"
PLANTED_KEY = "sk-test-JAIL-PLANTED-5521"
NON_UTF8 = os.fsdecode(b"bad-\xff\xfe.md")


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder beside the workspace holding a secret (another run's workspace, say); the planted key is in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    folder = tmp_path / "other-run"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET)
    return folder


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = Workspace(tmp_path / "ws")
    workspace.write_text("out/real.md", "the real summary\n")
    yield workspace
    jail.remove_tree(workspace.root)  # pass or fail: deep trees left behind would make pytest's own clean-up recurse too deep


def every_reading(ws: Workspace) -> str:
    """What each framework-side reader makes of the workspace, as one text."""
    names = [e.path for e in jail.walk(ws.root).entries]
    pack = workspace_archive(ws)
    readings = [
        render_files(ws, ["out/*", "out/summary.md", "**/*"]),
        render_changed_files(ws, names),
        json.dumps(ws.snapshot()),
        json.dumps(ws.fingerprint()),
        json.dumps(ws.glob_files("**/*")),
        zlib.decompress(pack.manifest[len(MANIFEST_MAGIC) :]).decode(),
        b"".join(pack.blobs.values()).decode("utf-8", "replace"),
    ]
    return "\n".join(readings)


def assert_no_leak(text: str) -> None:
    assert SECRET not in text and PLANTED_KEY not in text


LINK_TARGETS = {
    "proc_environ": lambda outside: "/proc/self/environ",
    "etc_passwd": lambda outside: "/etc/passwd",
    "other_run": lambda outside: str(outside / "secret.txt"),
    "other_run_folder": lambda outside: str(outside),
    "relative_out": lambda outside: f"../../{outside.name}/secret.txt",
}


@pytest.mark.parametrize("target", LINK_TARGETS, ids=list(LINK_TARGETS))
def test_a_link_leaving_the_workspace_is_never_read(ws: Workspace, outside: Path, target: str) -> None:
    os.symlink(LINK_TARGETS[target](outside), ws.root / "out" / "summary.md")
    text = every_reading(ws)
    assert_no_leak(text)
    assert "root:x:0:0" not in text  # /etc/passwd
    assert "[skipped: symlink leaving the workspace]" in render_files(ws, ["out/summary.md"])


def test_judge_evidence_of_proc_environ_shows_a_marker_not_the_environment(ws: Workspace, outside: Path) -> None:
    os.symlink("/proc/self/environ", ws.root / "out" / "summary.md")
    evidence = render_files(ws, ["out/summary.md"])
    assert evidence == "--- file out/summary.md ---\n[skipped: symlink leaving the workspace]"


def test_a_link_inside_the_workspace_is_followed(ws: Workspace) -> None:
    os.symlink("real.md", ws.root / "out" / "summary.md")
    assert "the real summary" in render_files(ws, ["out/summary.md"])
    assert "the real summary" in render_changed_files(ws, ["out/summary.md"])


def test_a_hard_link_to_a_file_outside_is_never_read(ws: Workspace, outside: Path) -> None:
    os.link(outside / "secret.txt", ws.root / "out" / "summary.md")
    assert_no_leak(every_reading(ws))
    assert "[skipped: hard-linked file]" in render_files(ws, ["out/summary.md"])
    assert "out/summary.md: hard-linked file" in workspace_archive(ws).cut


def test_fifos_are_never_opened(ws: Workspace, outside: Path) -> None:
    os.mkfifo(ws.root / "out" / "pipe.md")  # opening it for reading without O_NONBLOCK would hang forever
    os.symlink("pipe.md", ws.root / "out" / "summary.md")
    assert_no_leak(every_reading(ws))
    assert "[skipped: FIFO]" in render_files(ws, ["out/summary.md"])
    assert "[skipped: FIFO]" in render_files(ws, ["out/pipe.md"])
    assert "out/pipe.md: FIFO" in workspace_archive(ws).cut


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_links_to_device_files_are_never_opened(ws: Workspace, outside: Path, device: str) -> None:
    os.symlink(device, ws.root / "out" / "summary.md")
    text = every_reading(ws)
    assert_no_leak(text)
    assert "\x00" * 64 not in text
    assert "[skipped: symlink leaving the workspace]" in render_files(ws, ["out/summary.md"])


def test_a_unix_socket_is_never_opened(ws: Workspace, outside: Path) -> None:
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(ws.root / "out" / "sock.md"))
        assert "[skipped: socket]" in render_files(ws, ["out/sock.md"])
        assert_no_leak(every_reading(ws))


def test_a_symlink_loop_is_a_marker_and_a_tool_error(ws: Workspace) -> None:
    os.symlink("loop_b", ws.root / "loop_a")
    os.symlink("loop_a", ws.root / "loop_b")
    os.symlink("loop_a", ws.root / "out" / "summary.md")
    assert "[skipped: " in render_files(ws, ["out/summary.md"])
    every_reading(ws)  # no exception
    box = ToolBox(ToolEnv(ws, Memory()), resolve_tool_names(["workspace"]))
    for name, args in [
        ("read_file", {"path": "loop_a"}),
        ("read_file", {"path": "out/summary.md"}),
        ("list_dir", {"path": "loop_a"}),
        ("list_dir", {"path": "."}),
        ("glob", {"pattern": "**/*"}),
        ("grep", {"pattern": "x"}),
        ("grep", {"pattern": "x", "path": "loop_a"}),
        ("write_file", {"path": "loop_a", "content": "x"}),
        ("write_file", {"path": "loop_a/inner.md", "content": "x"}),
        ("edit_file", {"path": "loop_b", "old": "a", "new": "b"}),
    ]:
        record = box.call(name, args)  # documented as never raising
        assert record.tool_name == name
    assert not box.call("read_file", {"path": "loop_a"}).ok


def test_deep_nesting_is_walked_packed_and_handed_to_the_shell(ws: Workspace) -> None:
    folder = ws.root
    for _ in range(1_500):  # tarfile.add, os.walk and shutil.rmtree recurse once per level: RecursionError
        folder = folder / "d"
        folder.mkdir()
    (folder / "deep.md").write_text("deep")
    pack = workspace_archive(ws)
    assert any("nested deeper than 64 levels" in note for note in pack.cut)
    ws.snapshot()
    ws.fingerprint()
    render_files(ws, ["**/*.md"])
    box = ToolBox(ToolEnv(ws, Memory()), resolve_tool_names(["workspace", "shell"]))
    assert box.call("shell_exec", {"command": "mkdir -p .shell-tmp-probe && true"}).ok
    assert box.call("glob", {"pattern": "**/*.md"}).ok
    jail.remove_tree(ws.root / "d")
    assert not (ws.root / "d").exists()


def test_non_utf8_names_come_out_as_valid_text(ws: Workspace) -> None:
    (ws.root / NON_UTF8).write_text("content")
    box = ToolBox(ToolEnv(ws, Memory()), resolve_tool_names(["workspace"]))
    results = [box.call("list_dir", {"path": "."}), box.call("glob", {"pattern": "*"}), box.call("grep", {"pattern": "content"})]
    for record in results:
        assert record.ok
        json.dumps(record.result, ensure_ascii=False).encode("utf-8")  # storable and printable
    assert "bad-\\xff\\xfe.md" in results[0].result["response"]
    snapshot = json.dumps(ws.snapshot(), ensure_ascii=False)
    snapshot.encode("utf-8")
    assert "bad-\\\\xff\\\\xfe.md" in snapshot
    render_files(ws, ["*"]).encode("utf-8")


def test_a_checkpoint_costs_what_changed(ws: Workspace) -> None:
    for n in range(2_000):
        ws.write_text(f"many/{n:04d}.txt", f"file {n}\n")
    packer = WorkspacePacker()
    first = packer.pack(ws)
    assert len(first.blobs) == 2_001
    ws.write_text("many/0007.txt", "changed\n")
    second = packer.pack(ws)
    assert list(second.blobs.values()) == [b"changed\n"]  # a session's new content is what it changed
    assert len(second.manifest) < 300  # a delta: one changed entry, not 2,001
    assert packer.pack(ws).blobs == {}


def test_limits_cut_and_record_what_they_leave_out(tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / "a" / "b" / "c").mkdir(parents=True)
    for n in range(5):
        (root / f"f{n}.txt").write_text("x" * 10)
    (root / ("n" * 40)).write_text("long name")
    scan = jail.walk(root, jail.Limits(files=6, depth=2, total_bytes=35, file_bytes=8, path_chars=30))
    reasons = " | ".join(scan.cut_summary())
    for expected in ["nested deeper than 2", "longer than 30 characters", "larger than 8 bytes"]:
        assert expected in reasons
    scan = jail.walk(root, jail.Limits(files=3))
    assert len(scan.entries) == 3 and "more than 3 entries" in scan.cut_summary()[0]
    scan = jail.walk(root, jail.Limits(total_bytes=25))
    assert sum(e.stat.st_size for e in scan.files()) <= 25 and any("larger than 25 bytes" in c for c in scan.cut)


def test_a_large_file_is_read_only_as_far_as_a_judge_sees(ws: Workspace) -> None:
    ws.write_text("out/big.md", "y" * 5_000_000)
    assert len(jail.read_text(ws.root, "out/big.md", 100)) <= 404
    with pytest.raises(jail.Refused, match="larger than 1000 bytes"):
        jail.read_file(ws.root, "out/big.md", limit=1000)


@pytest.mark.parametrize("plant", ["symlink", "hardlink", "fifo"])
def test_a_seed_with_a_link_or_special_file_is_refused_naming_it(tmp_path: Path, outside: Path, plant: str) -> None:
    seed = tmp_path / "seed"
    (seed / "notes").mkdir(parents=True)
    (seed / "notes" / "ok.md").write_text("fine")
    bad = seed / "notes" / "host.txt"
    {
        "symlink": lambda: os.symlink("/etc/hostname", bad),
        "hardlink": lambda: os.link(outside / "secret.txt", bad),
        "fifo": lambda: os.mkfifo(bad),
    }[plant]()
    with pytest.raises(WorkspaceSeedError, match="notes/host.txt"):
        Workspace.seeded(tmp_path / "run", seed)
    assert not (tmp_path / "run" / "notes" / "host.txt").exists()


def test_a_clean_seed_is_copied_with_its_modes(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    (seed / "bin").mkdir(parents=True)
    (seed / "bin" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(seed / "bin" / "run.sh", 0o755)
    ws = Workspace.seeded(tmp_path / "run", seed)
    assert ws.files() == ["bin/run.sh"] and os.access(ws.root / "bin" / "run.sh", os.X_OK)


def test_rule_checks_see_links_inside_but_not_links_out(ws: Workspace, outside: Path) -> None:
    os.symlink("real.md", ws.root / "out" / "summary.md")
    os.symlink(outside / "secret.txt", ws.root / "out" / "leak.md")
    os.mkfifo(ws.root / "out" / "pipe.md")
    assert ws.glob_files("out/*.md") == ["out/real.md", "out/summary.md"]
    assert ws.read_text("out/summary.md") == "the real summary\n"


def test_an_episode_with_a_linked_seed_fails_in_one_line_naming_the_file(tmp_path: Path) -> None:
    data = tmp_path / "mini"
    shutil.copytree(MINI, data)
    os.symlink("/etc/hostname", data / "episodes" / "mini" / "workspace" / "notes" / "host.txt")
    for extra, code in [([], 1), (["--no-validate"], 2)]:  # refused at the door as by validate, or when the run seeds its workspace
        result = run_cli(
            "episode", "--data", str(data), "--persona", "mini", "--model", "scripted:reference", "--db", str(tmp_path / "r.db"), *extra
        )
        assert result.exit_code == code and "notes/host.txt: symlink" in result.output and "Traceback" not in result.output
    assert not list((tmp_path / "workspaces").glob("*/notes/host.txt"))
    assert "notes/host.txt: symlink" in run_cli("validate", "--data", str(data)).output


def swap_after_check(monkeypatch: pytest.MonkeyPatch, module: ModuleType, target: Path, secret: Path) -> None:
    """Make ``module``'s path check swap ``target`` for a link to ``secret`` right after checking it: the race an agent's
    background process could win between a tool's check and its open."""
    checked_path = target.resolve()
    check = module.resolve_inside

    def check_then_swap(root: Path, relative: str, *args: Any) -> Path:
        checked = check(root, relative, *args)
        if checked == checked_path and not target.is_symlink():
            target.unlink()
            os.symlink(secret, target)
        return checked

    monkeypatch.setattr(module, "resolve_inside", check_then_swap)


def test_a_file_swapped_for_a_link_after_its_check_is_never_read_by_a_tool(
    tmp_path: Path, ws: Workspace, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = outside / "secret.txt"
    skills, web = tmp_path / "skills", tmp_path / "web"
    (skills / "s").mkdir(parents=True)
    (skills / "s" / "SKILL.md").write_text("---\nname: s\n---\nsteps\n")
    (skills / "s" / "data.txt").write_text("skill data")
    web.mkdir()
    (web / "page.md").write_text("# Page\nweb text")
    (web / "index.yaml").write_text("https://example.org/page: {file: page.md}\n")
    box = ToolBox(ToolEnv(ws, Memory(), skills_root=skills, web_root=web), resolve_tool_names(["workspace", "skills", "web"]))
    calls = [
        (workspace_module, ws.root / "out" / "real.md", "read_file", {"path": "out/real.md"}),
        (workspace_module, ws.root / "out" / "real.md", "edit_file", {"path": "out/real.md", "old": "real", "new": "fake"}),
        (skills_module, skills / "s" / "data.txt", "read_skill", {"name": "s", "file": "data.txt"}),
        (web_module, web / "page.md", "web_fetch", {"url": "https://example.org/page"}),
    ]
    for module, target, tool, args in calls:
        with monkeypatch.context() as patch:
            swap_after_check(patch, module, target, secret)
            record = box.call(tool, args)
        assert target.is_symlink(), f"{tool}: the swap happened"
        assert not record.ok and SECRET not in json.dumps(record.result), (tool, record.result)
        assert secret.read_text() == SECRET, "nothing was written through the link"
        target.unlink()
        target.write_text("restored # Page")


def test_the_file_system_app_shows_no_file_swapped_for_a_link_after_its_check(
    tmp_path: Path, ws: Workspace, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "file_system.yaml").write_text("file_system_account:\n  - {username: u, password: p}\n")
    apps = AppStore(tmp_path / "apps.sqlite")
    box = ToolBox(ToolEnv(ws, Memory(), apps), resolve_tool_names(["file_system"]))
    apps.seed_from(tmp_path / "seed")
    assert box.call("file_system__login", {"username": "u", "password": "p"}).ok
    swap_after_check(monkeypatch, workspace_module, ws.root / "out" / "real.md", outside / "secret.txt")
    record = box.call("file_system__show_file", {"file_path": "out/real.md"})
    assert not record.ok and SECRET not in json.dumps(record.result)


PLANT_POINTS = {"workspace_check": (workspace_module, "resolve_inside"), "jail_resolution": (jail, "real_relative")}
"""Where a write's path is checked: the workspace's jail check, then the jail's own resolution right before it opens."""


@pytest.mark.parametrize("point", PLANT_POINTS)
@pytest.mark.parametrize("planted_at", ["file", "folder"])
def test_a_write_is_never_redirected_by_a_link_planted_after_its_check(
    ws: Workspace, outside: Path, monkeypatch: pytest.MonkeyPatch, point: str, planted_at: str
) -> None:
    """A link swapped in for the target file, or for its folder, after a check of the write's path makes the write fail
    (a tool error for the file tools): nothing outside the workspace is written or created."""
    box = ToolBox(ToolEnv(ws, Memory()), resolve_tool_names(["workspace", "documents"]))
    memo = [{"type": "paragraph", "text": "x"}]
    ws.write_text("out/memo.docx", "an old memo")
    writes: list[tuple[str, Any]] = [
        ("out/real.md", lambda: ws.write_text("out/real.md", "overwritten")),
        ("out/real.md", lambda: box.call("write_file", {"path": "out/real.md", "content": "overwritten"})),
        ("out/memo.docx", lambda: box.call("docx_create", {"path": "out/memo.docx", "blocks": memo, "overwrite": True})),
    ]
    module, name = PLANT_POINTS[point]
    for relative, write in writes:
        target = ws.root / relative
        swapped, link_to = (target, outside / "secret.txt") if planted_at == "file" else (target.parent, outside)
        check, planted = getattr(module, name), []

        def check_then_plant(
            *args: Any, check: Any = check, swapped: Path = swapped, link_to: Path = link_to, planted: list[Path] = planted
        ) -> Any:
            checked = check(*args)
            if not planted:
                swapped.rename(swapped.with_name("moved-away"))
                os.symlink(link_to, swapped)
                planted.append(swapped)
            return checked

        with monkeypatch.context() as patch:
            patch.setattr(module, name, check_then_plant)
            try:
                record = write()
            except jail.Refused as exc:
                assert str(exc).startswith(f"{relative}: "), exc
            else:
                assert not record.ok and relative in record.result["error"], record.result
        assert planted and swapped.is_symlink(), relative
        assert (outside / "secret.txt").read_text() == SECRET and sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        swapped.unlink()
        swapped.with_name("moved-away").rename(swapped)


def _realpath_answer(root: Path, relative: str) -> str:
    """What ``jail.real_relative`` answers, worked out with ``os.path.realpath`` over the whole path (a refusal's reason)."""
    real = Path(os.path.realpath(root / jail.check_relative(relative)))
    if real.is_symlink():
        return "refused: symlink loop"
    if real != root and root not in real.parents:
        return "refused: symlink leaving the workspace"
    return real.relative_to(root).as_posix()


def test_jail_resolution_answers_as_realpath_over_the_whole_path(ws: Workspace, outside: Path, tmp_path: Path) -> None:
    """The jail's resolution and the workspace's path check look only below the root when nothing there is a link; every
    answer is realpath's: plain
    files and folders, missing ones, a file used as a folder, links inside, out, absolute, looping and dangling, and a root
    reached through a link or spelled with ``..`` (resolved the whole way)."""
    (ws.root / "a" / "b").mkdir(parents=True)
    (ws.root / "a" / "b" / "f.txt").write_text("x")
    os.symlink("a/b", ws.root / "in")
    os.symlink(outside, ws.root / "out_abs")
    os.symlink("../other-run", ws.root / "out_rel")
    os.symlink("loop2", ws.root / "loop1")
    os.symlink("loop1", ws.root / "loop2")
    os.symlink("nowhere/x", ws.root / "dangling")
    os.symlink(ws.root / "a", ws.root / "a" / "b" / "up")
    paths = [".", "", "a", "a/b/f.txt", "a//b/./f.txt", "missing/x/y", "a/b/f.txt/deeper", "in/f.txt", "in", "out_abs/secret.txt"]
    paths += ["out_rel", "loop1", "loop1/x", "dangling", "a/b/up/b/f.txt", "a/b/up", "out/real.md"]
    os.symlink(ws.root, tmp_path / "ws-link")
    roots = [ws.root, tmp_path / "ws-link", ws.root / "a" / ".." / "a", ws.root / "a" / "b" / "..", tmp_path / "no-such-root"]
    for root in roots:
        for relative in paths:
            try:
                answer = jail.real_relative(root, relative).as_posix()
            except jail.Refused as exc:
                answer = f"refused: {exc}"
            assert answer == _realpath_answer(root, relative), (root, relative)
            try:
                checked = str(workspace_module.resolve_inside(root, relative))
            except workspace_module.PathEscapeError as exc:
                checked = f"refused: {exc}"
            assert checked == _resolved_answer(root, relative), (root, relative)


def _resolved_answer(root: Path, relative: str) -> str:
    """What the workspace's path check answers, worked out with ``Path.resolve`` over the whole path."""
    try:
        candidate = (root / relative).resolve()
    except RuntimeError:
        return f"refused: symlink loop: {relative!r}"
    if candidate != root and root not in candidate.parents:
        return f"refused: path leaves the folder: {relative!r}"
    return str(candidate)
