"""shell_exec: runs in the workspace, reports exit code and output, cleans up after itself."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proactive_bench.env import shell
from proactive_bench.env.memory import Memory
from proactive_bench.env.sandbox_uids import process_counts
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace


@pytest.fixture(params=["sandbox", "plain"])
def box(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[ToolBox]:
    """A toolbox with the shell, in this machine's sandbox mode and in the plain fallback.

    The workspace is a folder directly in the system temp folder: in plain mode a root
    runner's commands run as an unprivileged uid, which needs to traverse its parents.
    """
    if request.param == "plain":
        monkeypatch.setattr(shell, "namespaces_available", lambda: False)
    with tempfile.TemporaryDirectory() as folder:
        yield ToolBox(ToolEnv(Workspace(Path(folder)), Memory()), resolve_tool_names(["shell", "workspace"]))


def run(box: ToolBox, command: str, **extra: object) -> dict:
    record = box.call("shell_exec", {"command": command, **extra})
    assert record.ok, record.result
    return record.result["response"]


def test_runs_in_the_workspace_and_shares_files_with_the_file_tools(box: ToolBox) -> None:
    box.call("write_file", {"path": "in.txt", "content": "from a tool\n"})
    result = run(box, "cat in.txt; echo appended >> in.txt; mkdir -p out && printf 'x\\ny\\n' > out/made.txt; echo to-stderr >&2")
    assert result == {"exit_code": 0, "output": "from a tool\nto-stderr\n", "timed_out": False}
    assert box.call("read_file", {"path": "in.txt"}).result["response"] == "from a tool\nappended\n"
    assert box.call("edit_file", {"path": "out/made.txt", "old": "y", "new": "z"}).ok
    assert run(box, "cat out/made.txt")["output"] == "x\nz\n"


def test_exit_code_environment_and_tmpdir(box: ToolBox) -> None:
    assert run(box, "exit 3")["exit_code"] == 3
    out = run(box, 'echo "$HOME|$TMPDIR|$LANG"; test "$HOME" = "$(pwd)" && echo home-is-cwd; touch "$TMPDIR/scratch" && echo tmp-ok')[
        "output"
    ]
    home = out.split("|")[0]
    assert out == f"{home}|{home}/{shell.TMP_DIR_NAME}|C.UTF-8\nhome-is-cwd\ntmp-ok\n"
    assert box.env.workspace.files() == []  # the scratch folder is removed after each command


def test_time_limit_argument_is_bounded(box: ToolBox) -> None:
    record = box.call("shell_exec", {"command": "true", "timeout_s": 61})
    assert not record.ok and "timeout_s" in record.result["error"]


def test_timeout_kills_the_command(box: ToolBox) -> None:
    started = time.monotonic()
    result = run(box, "echo before; sleep 30; echo after", timeout_s=1)
    assert time.monotonic() - started < 5
    assert result["timed_out"] and result["exit_code"] is None
    assert result["output"].startswith("before\n") and "after" not in result["output"] and "time limit of 1 s reached" in result["output"]


def test_background_processes_do_not_hold_the_call(box: ToolBox) -> None:
    started = time.monotonic()
    assert run(box, "sleep 30 & echo started")["output"] == "started\n"
    assert time.monotonic() - started < 5


def test_long_output_is_cut_with_a_note(box: ToolBox) -> None:
    out = run(box, "seq 1 100000")["output"]
    assert out.startswith("1\n2\n3\n") and len(out) < shell.OUTPUT_LIMIT + 200
    assert out.endswith(f"[output cut: 588,895 bytes in all, only the first {shell.OUTPUT_LIMIT:,} characters shown]")


def test_resource_limits_are_set(box: ToolBox) -> None:
    limits = run(box, "ulimit -t; ulimit -f; ulimit -v; ulimit -u", timeout_s=7)["output"].split()
    assert limits[:3] == ["12", str(shell.FILE_SIZE_LIMIT // 1024), str(shell.ADDRESS_SPACE_LIMIT // 1024)]
    if os.geteuid() == 0:  # the command's uid is its own and runs nothing else
        assert int(limits[3]) == shell.EXTRA_PROCESSES
    else:  # the runner's uid, with whatever else it runs
        assert int(limits[3]) <= process_counts()[os.getuid()] + shell.EXTRA_PROCESSES + 5
    big = run(box, "head -c 200000000 /dev/zero > big.bin; echo rc=$?")["output"]
    assert "rc=153" in big and (box.env.workspace.root / "big.bin").stat().st_size == shell.FILE_SIZE_LIMIT
