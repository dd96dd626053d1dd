"""The uids a root runner's shell commands run as: one of its own for each command running.

``RLIMIT_NPROC`` counts every process of a uid on the machine. Were all commands
to share one uid, one agent's fork flood would make ``fork`` fail in other
episodes' commands running at the same moment. So each command holds a uid of
SANDBOX_UIDS that no other command holds (a ``flock`` on a file per uid, which
the kernel drops when its holder exits, so a killed process leaves no stale
claim) and that runs no process (so nothing left over from an earlier command
can reach the workspace it is handed). When the command ends, every process of
its uid is killed before the uid is released, so none outlives the call, not even
one that left the command's session (``setsid``, ``nohup``) where no PID namespace
would have ended it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import stat
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

SANDBOX_UIDS = range(0x7F00_0000, 0x7F00_0000 + 1024)
"""Unassigned on common systems: above sssd's mapped ids (to 2,000,200,000) and below systemd's foreign range."""
LOCK_FOLDER = Path("/tmp/pbench-sandbox-uids")
"""A fixed place, so every pbench process on the machine sees the same claims whatever its TMPDIR."""
WAIT_S = 30.0
"""How long a command waits for a uid when every one is held, before it fails."""
REAP_S = 1.0
"""How long a pbench that is PID 1 waits for a command's killed processes to end, collecting them."""


class NoSandboxUid(OSError):
    """Every uid of SANDBOX_UIDS stayed held or busy for WAIT_S."""


@contextmanager
def claimed_uid(prefer: int) -> Iterator[int]:
    """Hold a free uid of SANDBOX_UIDS for as long as the block runs; ``prefer`` first (the workspace's owner)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        claim = _claim(prefer)
        if claim is not None:
            break
        if time.monotonic() > deadline:
            raise NoSandboxUid(f"all {len(SANDBOX_UIDS)} sandbox uids stayed in use for {WAIT_S:g} s")
        time.sleep(0.05)
    uid, fd = claim
    try:
        yield uid
    finally:
        try:
            end_processes(uid)
        finally:
            os.close(fd)


def end_processes(uid: int) -> None:
    """SIGKILL every process ``uid`` runs: ``kill -KILL -1`` run as ``uid``, so the kernel signals them all at once and
    none can fork past it (the uid must be a sandbox uid: for any other it would kill what that user runs)."""
    if uid not in SANDBOX_UIDS:
        raise ValueError(f"uid {uid} is not a sandbox uid")
    subprocess.run(
        ["sh", "-c", "kill -KILL -1"],
        user=uid,
        group=uid,
        extra_groups=[],
        env={"PATH": "/usr/bin:/bin"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    if os.getpid() == 1:
        _reap(uid)


def _reap(uid: int) -> None:
    """As PID 1 (a container started without an init), the killed processes that had left their command's session are
    this process's children: collect them, or each would stay a zombie of ``uid`` and keep the uid busy for good."""
    deadline = time.monotonic() + REAP_S
    while left := [pid for pid, owner in process_owners().items() if owner == uid]:
        for pid in left:
            with contextlib.suppress(ChildProcessError):  # not ours: a namespace's init collects it
                os.waitpid(pid, os.WNOHANG)
        if time.monotonic() > deadline:
            return  # the claim skips a uid that still runs a process
        time.sleep(0.005)


def _claim(prefer: int) -> tuple[int, int] | None:
    """A uid that no one holds and that runs no process, with the open lock file that holds it; None when none is free."""
    folder = _lock_folder()
    running = process_counts()
    order = [prefer, *SANDBOX_UIDS] if prefer in SANDBOX_UIDS else SANDBOX_UIDS
    for uid in order:
        if running[uid] or _assigned(uid):
            continue
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return uid, fd
    return None


def _lock_folder() -> Path:
    """LOCK_FOLDER, made if missing; refused unless it is root's own folder that no one else can write."""
    try:
        LOCK_FOLDER.mkdir(mode=0o700, exist_ok=True)
    except FileExistsError:
        pass  # a file or symlink there: refused below
    info = LOCK_FOLDER.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise PermissionError(f"{LOCK_FOLDER}: not a folder of root's that only root can write; remove it and run again")
    return LOCK_FOLDER


@cache
def _assigned(uid: int) -> bool:
    """Whether the uid belongs to an account on this machine (then it is not ours to use)."""
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def process_counts() -> Counter[int]:
    """How many processes each uid runs now (RLIMIT_NPROC counts them all, not just ours)."""
    return Counter(process_owners().values())


def process_owners() -> dict[int, int]:
    """The real uid of every process now, by pid."""
    owners = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uid_line = next(line for line in status.read_text().splitlines() if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        owners[int(status.parent.name)] = int(uid_line.split()[1])
    return owners
