"""A root runner's shell commands each run as a uid of their own, so one command's fork flood cannot starve another's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proactive_bench.env import sandbox_uids, shell
from proactive_bench.env.memory import Memory
from proactive_bench.env.sandbox_uids import SANDBOX_UIDS, claimed_uid
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from tests.helpers.host_processes import host_processes
from tests.helpers.paths import REPO

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner can give commands uids of their own")

FLOOD = """
import os, subprocess, time
started = []
try:
    while True:
        started.append(subprocess.Popen(["sleep", "60"]))
except OSError:
    pass
open("full", "w").write(str(len(started)))
while not os.path.exists("done"):
    time.sleep(0.02)
"""


@pytest.fixture(params=["sandbox", "plain"])
def two_boxes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ToolBox, ToolBox]]:
    """Two toolboxes with the shell in workspaces of their own, in this machine's sandbox mode and in the plain fallback."""
    if request.param == "plain":
        monkeypatch.setattr(shell, "namespaces_available", lambda: False)
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        one, two = (ToolBox(ToolEnv(Workspace(Path(f)), Memory()), resolve_tool_names(["shell", "workspace"])) for f in (first, second))
        yield one, two


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert path.exists(), f"{path.name} never appeared"


def test_a_fork_flood_does_not_starve_a_command_running_beside_it(two_boxes: tuple[ToolBox, ToolBox]) -> None:
    """The other command starts first, the flood fills its process limit, and then the other command forks."""
    flooding, other = two_boxes
    flooding.env.workspace.write_text("flood.py", FLOOD)
    waits = ": > started; while [ ! -e go ]; do :; done; for i in $(seq 20); do /bin/true; done; echo ok"  # no fork until go
    replies: list[dict] = []
    threads = [
        threading.Thread(target=lambda: replies.append(other.call("shell_exec", {"command": waits, "timeout_s": 15}).result)),
        threading.Thread(target=flooding.call, args=("shell_exec", {"command": "python3 flood.py", "timeout_s": 30})),
    ]
    try:
        threads[0].start()
        wait_for(other.env.workspace.root / "started")
        threads[1].start()
        wait_for(flooding.env.workspace.root / "full")
        other.env.workspace.write_text("go", "")
        threads[0].join()
    finally:
        other.env.workspace.write_text("go", "")
        flooding.env.workspace.write_text("done", "")
        for thread in threads:
            if thread.ident is not None:  # started
                thread.join()
    assert replies == [{"response": {"exit_code": 0, "output": "ok\n", "timed_out": False}}]
    assert int((flooding.env.workspace.root / "full").read_text()) <= shell.EXTRA_PROCESSES


def test_concurrent_commands_hold_different_uids_and_a_workspace_keeps_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a pool of uids of its own: another test process's command, claiming the first free uid of the usual pool, could
    take the workspace's uid between its two calls (it is free then), and the workspace would rightly change hands."""
    pool = range(SANDBOX_UIDS.stop + 64, SANDBOX_UIDS.stop + 72)
    monkeypatch.setattr(sandbox_uids, "SANDBOX_UIDS", pool)
    with claimed_uid(prefer=0) as first, claimed_uid(prefer=first) as second:
        assert first in pool and second in pool and second != first
    with claimed_uid(prefer=second) as again:
        assert again == second  # a workspace the last command owned is not handed over anew
    box = ToolBox(ToolEnv(Workspace(tmp_path), Memory()), resolve_tool_names(["shell", "workspace"]))
    box.call("shell_exec", {"command": "touch made.txt"})
    owner = (tmp_path / "made.txt").stat().st_uid
    assert owner in pool and tmp_path.stat().st_uid == owner
    box.call("shell_exec", {"command": "touch again.txt"})
    assert (tmp_path / "again.txt").stat().st_uid == owner


def test_a_uid_that_still_runs_a_process_is_not_claimed() -> None:
    with claimed_uid(prefer=0) as uid:
        pass
    leftover = subprocess.Popen(["sleep", "30"], user=uid, group=uid, extra_groups=[])
    try:
        with claimed_uid(prefer=uid) as claimed:
            assert claimed != uid
    finally:
        leftover.kill()
        leftover.wait()


def test_no_process_of_a_command_outlives_its_call(two_boxes: tuple[ToolBox, ToolBox]) -> None:
    """Not even one that left the command's session (setsid, nohup): in the plain fallback no PID namespace ends it, the
    uid's every process is killed before the uid is released (before, it kept running, and kept its uid busy)."""
    box, _ = two_boxes
    result = box.call(
        "shell_exec", {"command": "setsid sleep 77.3 </dev/null >/dev/null 2>&1 & nohup sleep 77.4 >/dev/null 2>&1 & echo left"}
    )
    assert result.result["response"]["output"] == "left\n"
    deadline = time.monotonic() + 5
    while (host_processes("sleep 77.3") or host_processes("sleep 77.4")) and time.monotonic() < deadline:
        time.sleep(0.02)  # SIGKILL is delivered at once; a killed process leaves /proc when its parent reaps it
    assert host_processes("sleep 77.3") == host_processes("sleep 77.4") == []


AS_PID_ONE = """
import sys, tempfile, time
from pathlib import Path
from proactive_bench.env import Memory, ToolBox, ToolEnv, Workspace, resolve_tool_names, shell
from proactive_bench.env.sandbox_uids import process_counts
shell.namespaces_available = lambda: False  # the plain fallback
with tempfile.TemporaryDirectory() as folder:
    box = ToolBox(ToolEnv(Workspace(Path(folder)), Memory()), resolve_tool_names(["shell"]))
    box.call("shell_exec", {"command": "setsid sleep 77.8 </dev/null >/dev/null 2>&1 & echo left"})
    print(process_counts()[Path(folder).stat().st_uid])
"""


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare to start a process as PID 1")
def test_as_pid_one_the_killed_leftovers_are_collected_not_left_as_zombies_keeping_their_uid() -> None:
    """pbench as PID 1 (a container without an init): a leftover killed at the call's end is pbench's child by then;
    uncollected, it stays a zombie of the uid, and a uid that runs a process is never claimed again."""
    ran = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", AS_PID_ONE],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[-1] == "0", ran.stdout  # (log lines go to stdout before it)


def test_ending_a_uid_s_processes_refuses_any_uid_outside_the_pool() -> None:
    with pytest.raises(ValueError, match="not a sandbox uid"):
        sandbox_uids.end_processes(os.getuid())


def test_a_lock_folder_others_can_write_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "locks"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    monkeypatch.setattr(sandbox_uids, "LOCK_FOLDER", folder)
    with pytest.raises(PermissionError, match="only root can write"), claimed_uid(prefer=0):
        pass
    folder.rmdir()
    folder.symlink_to(tmp_path)
    with pytest.raises(PermissionError, match="locks: not a folder"), claimed_uid(prefer=0):
        pass
