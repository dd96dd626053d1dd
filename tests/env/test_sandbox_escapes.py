"""Adversarial escape attempts against the file tools, skills, web corpus and the shell.

Every attempt runs against one planted world: a secret file outside the
workspace, symlinks and a hard link inside pointing at it, a planted API key
in the test process's environment and in a running process's. After each
attempt: the secret and the key appear nowhere in the tool result, and
nothing outside the workspace was created or changed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env import shell
from proactive_bench.env.memory import Memory
from proactive_bench.env.sandbox_uids import process_owners
from proactive_bench.env.toolbox import ToolBox, ToolEnv, ToolRecord, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from tests.helpers.host_processes import host_processes

SECRET = "TOP-SECRET-4711"
PLANTED_KEY = "sk-test-PLANTED-123"
ISOLATED = shell.namespaces_available()
"""The namespace layer works here: the shell sees no host files, no network, no host processes."""
DROPS_ROOT = os.geteuid() == 0
"""The runner is root, so each command runs as a uid of its own (sandbox_uids), which owns only the workspace."""
NOT_GUARANTEED = "not guaranteed in this sandbox mode (see proactive_bench/env/README.md, Sandbox)"


@dataclass
class World:
    tmp: Path
    outside: Path
    box: ToolBox
    key_holder: subprocess.Popen[bytes]
    port: int
    listener: socket.socket
    host_tmp_name: str = field(default_factory=lambda: f"pbench-escape-{uuid.uuid4().hex}")

    def fill(self, value: Any) -> Any:
        """Placeholders in a case's arguments filled with this world's paths and numbers."""
        if isinstance(value, str):
            return value.format(outside=self.outside, tmp=self.tmp, pid=self.key_holder.pid, port=self.port, host_tmp=self.host_tmp_name)
        return value

    def state(self) -> dict[str, bytes]:
        """Every path outside the workspace under the test folder (plus the host's /tmp and /dev/shm probes), with its bytes."""
        out = {}
        for path in sorted(self.tmp.rglob("*")):
            if self.box.env.workspace.root not in [path, *path.parents]:
                out[str(path)] = path.read_bytes() if path.is_file() else b"<dir>"
        for probe in (Path("/tmp") / self.host_tmp_name, Path("/dev/shm") / self.host_tmp_name):
            out[str(probe)] = probe.read_bytes() if probe.exists() else b"<absent>"
        return out


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "hard_target.txt").write_text(SECRET)
    ws = Workspace(tmp_path / "ws")
    ws.write_text("inside.txt", "harmless\n")
    os.symlink(outside / "secret.txt", ws.root / "link.txt")
    os.symlink(outside, ws.root / "linkdir")
    os.link(outside / "hard_target.txt", ws.root / "hard.txt")
    skill = tmp_path / "skills" / "helper"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: helper\ndescription: helps\n---\nDo things.\n")
    os.symlink(outside / "secret.txt", skill / "leak.txt")
    web = tmp_path / "web"
    web.mkdir()
    (web / "page.md").write_text("# Opening hours\n9 to 18\n")
    os.symlink(outside / "secret.txt", web / "leak.md")
    env = ToolEnv(ws, Memory(), web_root=web, skills_root=tmp_path / "skills")
    box = ToolBox(env, resolve_tool_names(["workspace", "shell", "web", "skills", "messaging"]))
    key_holder = subprocess.Popen(["sleep", "60"], env={**os.environ, "OPENAI_API_KEY": PLANTED_KEY})
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    try:
        yield World(tmp_path, outside, box, key_holder, listener.getsockname()[1], listener)
    finally:
        key_holder.kill()
        key_holder.wait()
        listener.close()


@dataclass(frozen=True)
class Attempt:
    id: str
    tool: str
    args: dict[str, Any]
    refused: bool = True
    """File-tool attempts must come back as errors; shell attempts must have run (they print RAN)."""
    guaranteed: bool = True
    """Whether this sandbox mode promises to stop the attempt (else it is skipped)."""


def sh(id: str, command: str, guaranteed: bool = True) -> Attempt:
    return Attempt(id, "shell_exec", {"command": f"echo RAN; {command}"}, refused=False, guaranteed=guaranteed)


ATTEMPTS = [
    # --- file tools: traversal, odd spellings, absolute paths ------------------------------------
    Attempt("read-dotdot", "read_file", {"path": "../outside/secret.txt"}),
    Attempt("read-nested-dotdot", "read_file", {"path": "a/../../outside/secret.txt"}),
    Attempt("read-dot-slash-dotdot", "read_file", {"path": "./../outside/secret.txt"}),
    Attempt("read-backslash-dotdot", "read_file", {"path": "..\\outside\\secret.txt"}),
    Attempt("read-url-encoded-dotdot", "read_file", {"path": "%2e%2e/outside/secret.txt"}),
    Attempt("read-tilde", "read_file", {"path": "~/../outside/secret.txt"}),
    Attempt("read-absolute", "read_file", {"path": "{outside}/secret.txt"}),
    Attempt("read-double-slash-absolute", "read_file", {"path": "//{outside}/secret.txt"}),
    Attempt("read-proc-environ", "read_file", {"path": "/proc/self/environ"}),
    Attempt("read-nul-byte", "read_file", {"path": "inside.txt\x00../outside/secret.txt"}),
    # --- file tools: planted links ---------------------------------------------------------------
    Attempt("read-symlink-file", "read_file", {"path": "link.txt"}),
    Attempt("read-symlinked-dir", "read_file", {"path": "linkdir/secret.txt"}),
    Attempt("read-hardlink", "read_file", {"path": "hard.txt"}),
    Attempt("write-dotdot", "write_file", {"path": "../outside/evil.txt", "content": "pwned"}),
    Attempt("write-absolute", "write_file", {"path": "{tmp}/evil.txt", "content": "pwned"}),
    Attempt("write-through-symlink", "write_file", {"path": "link.txt", "content": "pwned"}),
    Attempt("write-into-symlinked-dir", "write_file", {"path": "linkdir/evil.txt", "content": "pwned"}),
    Attempt("write-through-hardlink", "write_file", {"path": "hard.txt", "content": "pwned"}),
    Attempt("edit-through-symlink", "edit_file", {"path": "link.txt", "old": SECRET, "new": "pwned"}),
    Attempt("edit-through-hardlink", "edit_file", {"path": "hard.txt", "old": SECRET, "new": "pwned"}),
    Attempt("edit-dotdot", "edit_file", {"path": "../outside/secret.txt", "old": SECRET, "new": "pwned"}),
    Attempt("list-parent", "list_dir", {"path": ".."}),
    Attempt("list-absolute", "list_dir", {"path": "{outside}"}),
    Attempt("list-symlinked-dir", "list_dir", {"path": "linkdir"}),
    Attempt("glob-dotdot", "glob", {"pattern": "../outside/*"}),
    Attempt("glob-absolute", "glob", {"pattern": "{outside}/*"}),
    Attempt("glob-through-symlinked-dir", "glob", {"pattern": "**/*.txt"}, refused=False),
    Attempt("grep-everything", "grep", {"pattern": "SECRET"}, refused=False),
    Attempt("grep-parent", "grep", {"pattern": "SECRET", "path": ".."}),
    Attempt("grep-symlinked-dir", "grep", {"pattern": "SECRET", "path": "linkdir"}),
    Attempt("grep-symlink-file", "grep", {"pattern": "SECRET", "path": "link.txt"}),
    Attempt("attach-symlink", "send_message", {"text": "x", "attachments": ["link.txt"]}),
    Attempt("attach-hardlink", "send_message", {"text": "x", "attachments": ["hard.txt"]}),
    # --- skills and web corpus -------------------------------------------------------------------
    Attempt("skill-file-dotdot", "read_skill", {"name": "helper", "file": "../../outside/secret.txt"}),
    Attempt("skill-file-absolute", "read_skill", {"name": "helper", "file": "{outside}/secret.txt"}),
    Attempt("skill-file-symlink", "read_skill", {"name": "helper", "file": "leak.txt"}),
    Attempt("skill-name-path", "read_skill", {"name": "../outside"}),
    Attempt("fetch-file-url", "web_fetch", {"url": "file://{outside}/secret.txt"}),
    Attempt("fetch-etc-passwd", "web_fetch", {"url": "file:///etc/passwd"}),
    Attempt("fetch-dotdot-url", "web_fetch", {"url": "https://../outside/secret.txt"}),
    Attempt("fetch-symlinked-page", "web_fetch", {"url": "https://leak.md"}),
    Attempt("search-symlinked-page", "web_search", {"query": "TOP SECRET 4711"}, refused=False),
    # --- shell: the file system ------------------------------------------------------------------
    sh("shell-cat-dotdot", "cat ../outside/secret.txt; cd .. && cat outside/secret.txt", ISOLATED),
    sh("shell-cat-absolute", "cat {outside}/secret.txt", ISOLATED),
    sh("shell-planted-symlink", "cat link.txt linkdir/secret.txt", ISOLATED),
    sh("shell-new-symlink", "ln -s {outside}/secret.txt l2; cat l2; ln -s / root; cat root{outside}/secret.txt", ISOLATED),
    sh("shell-new-hardlink", "ln {outside}/hard_target.txt h2; cat h2", ISOLATED),
    sh("shell-write-through-hardlink", "echo pwned > hard.txt; echo pwned >> hard.txt", DROPS_ROOT),
    sh("shell-write-dotdot", "echo pwned > ../evil.txt; cd .. && echo pwned > evil2.txt; cd ../.. && echo pwned > evil3.txt", ISOLATED),
    sh("shell-write-absolute", "echo pwned > {tmp}/evil.txt; echo pwned > {outside}/secret.txt; rm -f {outside}/hard_target.txt", ISOLATED),
    sh("shell-write-host-tmp", "echo pwned > /tmp/{host_tmp}; echo pwned > /dev/shm/{host_tmp}", ISOLATED),
    sh(
        "shell-chroot-breakout",
        'python3 -c \'import os\nos.mkdir("j"); os.chroot("j")\nfor _ in range(30): os.chdir("..")\nos.chroot(".")\nprint(open("{outside}/secret.txt").read())\'',
        ISOLATED,
    ),
    sh(
        "shell-unlock-mounts",
        "mount -o remount,bind,rw /usr && echo ESCAPED; mount -o remount,rw / && echo ESCAPED; umount -l /workspace && echo ESCAPED",
        ISOLATED,
    ),
    sh(
        "shell-mount-host-root",
        "mkdir m && mount --bind / m && cat m{outside}/secret.txt; mount -t proc proc m; cat m/{pid}/environ",
        ISOLATED,
    ),
    # --- shell: environment and other processes ---------------------------------------------------
    sh("shell-env", "env; set; printenv OPENAI_API_KEY; echo $OPENAI_API_KEY"),
    sh("shell-proc-self-environ", "cat /proc/self/environ /proc/1/environ; cat /proc/$PPID/environ"),
    sh("shell-proc-other-environ", "cat /proc/{pid}/environ; grep -a PLANTED /proc/*/environ", ISOLATED or DROPS_ROOT),
    # --- shell: network --------------------------------------------------------------------------
    sh(
        "shell-tcp-connect",
        'python3 -c \'import socket; socket.create_connection(("127.0.0.1", {port}), timeout=2); print("CONNECTED")\'',
        ISOLATED,
    ),
    sh("shell-dev-tcp", "exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED", ISOLATED),
]


def leaked(record: ToolRecord) -> list[str]:
    text = json.dumps(record.result)
    return [s for s in (SECRET, PLANTED_KEY, "PLANTED", "CONNECTED", "ESCAPED") if s in text]


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=[a.id for a in ATTEMPTS])
def test_escape_attempt_fails(world: World, attempt: Attempt) -> None:
    if not attempt.guaranteed:
        pytest.skip(NOT_GUARANTEED)
    before = world.state()
    record = world.box.call(attempt.tool, {k: world.fill(v) for k, v in attempt.args.items()})
    assert leaked(record) == []
    assert world.state() == before, "something outside the workspace was created or changed"
    if attempt.tool == "shell_exec":
        assert record.ok and record.result["response"]["output"].startswith("RAN\n"), record.result
    else:
        assert record.ok is not attempt.refused, record.result
    with pytest.raises(BlockingIOError):
        world.listener.accept()  # nobody connected to the test's server


def test_the_checks_see_a_real_leak(world: World) -> None:
    """The same checks flag a leak when the secret really is in the workspace."""
    world.box.env.workspace.write_text("copied.txt", SECRET)
    record = world.box.call("shell_exec", {"command": "cat copied.txt; echo $HOME"})
    assert leaked(record) == [SECRET]
    before = world.state()
    (world.outside / "secret.txt").write_text("changed")
    (world.tmp / "new.txt").write_text("x")
    after = world.state()
    assert after != before and str(world.tmp / "new.txt") in after


def test_sleep_ends_at_the_time_limit(world: World) -> None:
    started = time.monotonic()
    result = world.box.call("shell_exec", {"command": "setsid sleep 77.6 & sleep 100", "timeout_s": 1}).result["response"]
    assert result["timed_out"] and time.monotonic() - started < 5
    if ISOLATED or DROPS_ROOT:  # a non-root runner's plain shell cannot reach a process that called setsid
        assert host_processes("sleep 77.6") == []


def test_output_flood_is_capped(world: World) -> None:
    started = time.monotonic()
    record = world.box.call("shell_exec", {"command": "yes flood", "timeout_s": 1})
    assert record.ok, record.result
    result = record.result["response"]
    assert result["timed_out"] and time.monotonic() - started < 5
    assert len(result["output"]) < shell.OUTPUT_LIMIT + 300 and "[output cut:" in result["output"]


def mine() -> set[int]:
    """The pids the runner's uid runs now."""
    return {pid for pid, uid in process_owners().items() if uid == os.getuid()}


@pytest.mark.skipif(not (ISOLATED or DROPS_ROOT), reason="a non-root runner without a PID namespace cannot end a process that calls setsid")
def test_process_flood_is_refused_and_nothing_survives(world: World) -> None:
    """A bounded fork flood (500 sleeps): the process limit refuses most, and none outlive the call."""
    code = (
        "import subprocess\nstarted = []\ntry:\n    for _ in range(500):\n        started.append(subprocess.Popen(['sleep', '77.5']))\n"
        "except OSError as exc:\n    print('refused after', len(started), exc.errno)\nelse:\n    print('started all', len(started))\n"
    )
    world.box.env.workspace.write_text("flood.py", code)
    before = mine()
    result = world.box.call("shell_exec", {"command": "python3 flood.py"}).result["response"]
    # A root runner's command has a uid of its own; any other runner's commands share the runner's uid, and
    # RLIMIT_NPROC counts its every process: one that exits while the flood runs frees a slot for it
    freed = 0 if DROPS_ROOT else len(before - mine())
    assert "refused after" in result["output"], result
    assert int(result["output"].split("refused after ")[1].split()[0]) <= shell.EXTRA_PROCESSES + freed
    assert host_processes("sleep 77.5") == []
