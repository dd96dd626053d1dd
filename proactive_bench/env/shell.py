"""``shell_exec``: a bash command in the workspace, as isolated as this machine allows.

Two layers, see README.md ("Sandbox") for what each guarantees:

* always: a scrubbed environment, a wall-clock time limit after which the
  command's processes are killed, an output cap, resource limits, and (when
  the runner is root) an unprivileged uid of its own while it runs (see
  sandbox_uids), to which the workspace is handed;
* when user namespaces work (probed once): private user, network, PID and
  mount namespaces whose root file system holds only the system folders
  (read-only, mounts locked), a private /tmp, /dev and /proc, and the
  workspace at ``/workspace``.
"""

from __future__ import annotations

import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

import proactive_bench.env.jail as jail
from proactive_bench.env.sandbox_uids import claimed_uid, process_counts
from proactive_bench.env.toolbox import ToolEnv, register_tool

DEFAULT_TIMEOUT_S = 20
MAX_TIMEOUT_S = 60
OUTPUT_LIMIT = 20_000
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TMP_DIR_NAME = ".shell-tmp"
EXTRA_PROCESSES = 128
FILE_SIZE_LIMIT = 100 * 2**20
ADDRESS_SPACE_LIMIT = 4 * 2**30

# Runs as root of a fresh user namespace, in new mount, PID and network namespaces, with the
# workspace as working directory: builds a root of read-only system folders, private /tmp,
# /dev and /proc, and the workspace at /workspace; pivots into it, drops the old root, and
# runs $1 in one more user and mount namespace, where the kernel locks those mounts (no
# remounting read-write, no unmounting).
PRELUDE = r"""
set -eu
R=/tmp
mount -t tmpfs -o size=1m,mode=755 sandbox "$R"
mkdir "$R/workspace" "$R/tmp" "$R/dev" "$R/proc" "$R/.old"
mount --no-canonicalize --bind . "$R/workspace"
for d in usr bin sbin lib lib32 lib64 libx32 etc; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$R/$d"
  elif [ -d "/$d" ]; then mkdir "$R/$d"; mount --bind "/$d" "$R/$d"; mount -o remount,bind,ro "$R/$d"
  fi
done
mount -t tmpfs -o size=64m,mode=1777 tmp "$R/tmp"
mount -t tmpfs -o size=1m,mode=755 dev "$R/dev"
for n in null zero full random urandom tty; do touch "$R/dev/$n"; mount --bind "/dev/$n" "$R/dev/$n"; done
ln -s /proc/self/fd "$R/dev/fd"; ln -s fd/0 "$R/dev/stdin"; ln -s fd/1 "$R/dev/stdout"; ln -s fd/2 "$R/dev/stderr"
mkdir -m 1777 "$R/dev/shm"
mount -t proc proc "$R/proc"
pivot_root "$R" "$R/.old"
cd /
umount -l /.old
rmdir /.old
mount -o remount,bind,ro /
cd /workspace
exec unshare --user --map-root-user --mount /bin/bash -c "$1"
"""


class ShellArgs(BaseModel):
    command: str = Field(min_length=1, description="A bash command; it runs in the workspace root folder.")
    timeout_s: int = Field(default=DEFAULT_TIMEOUT_S, ge=1, le=MAX_TIMEOUT_S, description="Time limit in seconds.")


@dataclass(frozen=True)
class ShellResult:
    exit_code: int | None
    """None when the command was killed at its time limit."""
    output: str
    """stdout and stderr interleaved, cut at OUTPUT_LIMIT characters (with a note saying so)."""
    timed_out: bool


def run_sandboxed(root: Path, command: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> ShellResult:
    """Run ``bash -c command`` in the folder ``root`` inside the sandbox."""
    isolated = namespaces_available()
    home = "/workspace" if isolated else str(root)
    tmp = root / TMP_DIR_NAME
    tmp.mkdir(exist_ok=True)
    env = {"PATH": SANDBOX_PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": f"{home}/{TMP_DIR_NAME}"}
    try:
        with _identity(root) as (identity, max_processes):
            proc = subprocess.Popen(
                _argv(command) if isolated else ["bash", "-c", command],
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_limiter(timeout_s, max_processes),
                **identity,
            )
            try:
                data, total, timed_out = _collect(proc, timeout_s)
            finally:
                _stop(proc, isolated)
    finally:
        jail.remove_tree(tmp)
    text = data.decode("utf-8", errors="replace")
    if total > len(data) or len(text) > OUTPUT_LIMIT:
        text = text[:OUTPUT_LIMIT] + f"\n[output cut: {total:,} bytes in all, only the first {OUTPUT_LIMIT:,} characters shown]"
    if timed_out:
        text += f"\n[time limit of {timeout_s:g} s reached; the command and its processes were killed]"
    return ShellResult(None if timed_out else proc.returncode, text, timed_out)


def _collect(proc: subprocess.Popen[bytes], timeout_s: float) -> tuple[bytes, int, bool]:
    """Read output until the command ends or its time runs out.

    Returns the first bytes of output (up to four bytes per allowed character),
    the number of bytes seen, and whether the time limit was reached.
    """
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    kept = bytearray()
    total = 0
    deadline = time.monotonic() + timeout_s
    timed_out = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([fd], [], [], min(remaining, 0.05))
        chunk = os.read(fd, 65536) if ready else b""
        if ready and not chunk:
            break  # every writer closed the pipe
        total += len(chunk)
        if len(kept) < 4 * OUTPUT_LIMIT:
            kept += chunk[: 4 * OUTPUT_LIMIT - len(kept)]
        if not chunk and proc.poll() is not None:
            break  # the command ended; background processes still holding the pipe are killed next
    proc.stdout.close()
    return bytes(kept), total, timed_out


def _stop(proc: subprocess.Popen[bytes], isolated: bool) -> None:
    """Kill whatever the command left running, and return only when it is gone.

    In the namespaces, killing the namespace's first process makes the kernel kill
    every other one, and ``unshare`` exits once they are all gone. Otherwise the
    command's process group is killed (a process that left it with setsid survives).
    """
    if isolated:
        try:
            init = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        except OSError:
            init = []
        for pid in init:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass  # it ended between the listing and the kill
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _argv(command: str) -> list[str]:
    """``unshare`` running PRELUDE, which runs the command inside the new namespaces."""
    namespaces = ["--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount"]
    return ["unshare", *namespaces, "bash", "-c", PRELUDE, "sandbox", command]


@contextmanager
def _identity(root: Path) -> Iterator[tuple[dict[str, Any], int]]:
    """The Popen arguments that give a command in ``root`` its uid, and its process limit.

    A root runner claims a uid for the command alone (it runs no process yet)
    and hands it the workspace first; any other runner runs commands as itself,
    beside whatever else it runs.
    """
    if os.geteuid() != 0:
        yield {}, process_counts()[os.getuid()] + EXTRA_PROCESSES
        return
    with claimed_uid(prefer=root.lstat().st_uid) as uid:
        hand_over(root, uid)
        yield {"user": uid, "group": uid, "extra_groups": []}, EXTRA_PROCESSES


def _limiter(timeout_s: float, max_processes: int) -> Callable[[], None]:
    """The preexec function: resource limits for the command and everything it starts."""

    def limit() -> None:
        cpu = int(timeout_s) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
        resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return limit


def hand_over(root: Path, uid: int) -> None:
    """Give the workspace to ``uid`` (as user and group), never following symlinks.

    Hard-linked files are skipped: their data may be shared with a file outside.
    """
    os.lchown(root, uid, uid)
    for entry in jail.walk(root, jail.UNLIMITED).entries:  # iterative, so any depth
        owned = entry.stat.st_uid == uid and entry.stat.st_gid == uid  # what the shell made last time
        if entry.kind != "refused" and not owned:  # refused: hard-linked and special files
            os.lchown(os.path.join(root, entry.path), uid, uid)


@cache
def namespaces_available() -> bool:
    """Whether the namespace layer works here (probed once with a trivial command)."""
    if shutil.which("unshare", path=SANDBOX_PATH) is None:
        return False
    with tempfile.TemporaryDirectory() as folder, _identity(Path(folder)) as (identity, _):
        try:
            proc = subprocess.run(_argv("echo ok"), cwd=folder, env={"PATH": SANDBOX_PATH}, capture_output=True, timeout=10, **identity)
        except (OSError, subprocess.SubprocessError):
            return False
    return proc.returncode == 0 and proc.stdout == b"ok\n"


def sandbox_mode() -> str:
    """``namespaces`` (isolated network, file system and processes) or ``plain`` (none of those)."""
    return "namespaces" if namespaces_available() else "plain"


@register_tool("shell_exec", group="shell")
def shell_exec(env: ToolEnv, args: ShellArgs) -> dict[str, Any]:
    """Run a bash command in a sandbox, with the workspace folder as working directory.

    Returns the exit code, the combined output (cut when long) and whether the time limit was hit.
    """
    result = run_sandboxed(env.workspace.root, args.command, args.timeout_s)
    return {"exit_code": result.exit_code, "output": result.output, "timed_out": result.timed_out}
