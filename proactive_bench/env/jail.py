"""The jailed reader and writer: every look the framework (not the agent's sandbox) takes at workspace content, and every write.

Judge and user evidence, snapshots, fingerprints, checkpoint archives, seeds,
reports and re-scoring read workspace files with the runner's privileges, so
they never trust what the agent left behind:

- :func:`walk` lists a folder iteratively (no recursion, so 10,000 nested
  folders are fine) without following any symlink, with :class:`Limits` on
  files, depth, bytes and path length; what it leaves out is in ``Scan.cut``;
- :func:`read_file` opens one file component by component with
  ``O_NOFOLLOW`` from the root, so no symlink leaving the folder, no
  symlink swapped in after a check, no special file and no hard link is
  ever opened (see :func:`open_regular` for the rules); :func:`write_file`
  writes the same way (folders opened or made, and the file opened, with
  ``O_NOFOLLOW``), so no link swapped in after a check redirects a write;
- :func:`shown` turns an OS name (possibly not UTF-8) into text safe to
  store, log and print;
- :func:`empty_folder`, :func:`remove_tree` and :func:`make_folders` change
  folders however deeply nested, without recursion.

A refused file is reported by a short marker (``[skipped: ...]``), never its content.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

MAX_CUT_NOTES = 20
"""How many cut entries a scan lists by name; the rest are counted."""


@dataclass(frozen=True)
class Limits:
    """Bounds on what the framework reads from one workspace."""

    files: int = 50_000
    depth: int = 64
    """Folders nested deeper than this are not entered."""
    total_bytes: int = 256 * 2**20
    file_bytes: int = 100 * 2**20
    """As the shell's ``RLIMIT_FSIZE``: every file the shell can write fits."""
    path_chars: int = 1_024
    """Workspace-relative path length."""


DEFAULT_LIMITS = Limits()
UNLIMITED = Limits(files=sys.maxsize, depth=sys.maxsize, total_bytes=sys.maxsize, file_bytes=sys.maxsize, path_chars=sys.maxsize)
"""For walks that must see everything (handing a workspace to the sandbox's uid), never for reading."""


class Refused(OSError):
    """A file the jail will not open; the message is the reason."""

    def marker(self) -> str:
        return f"[skipped: {self}]"


class Missing(Refused):
    """No file at that path."""


@dataclass(frozen=True)
class Entry:
    """One thing a walk found: ``path`` is workspace-relative in the OS's own spelling (use :func:`shown` to display it)."""

    path: str
    kind: Literal["file", "dir", "link", "refused"]
    """``refused``: a special or hard-linked file, listed so readers can say why it was skipped (it is also in ``cut``)."""
    stat: os.stat_result
    target: str = ""
    """For a link, where it points (the link is never followed)."""


@dataclass
class Scan:
    """A walk's entries (sorted by path) and what it left out, one note per entry or limit."""

    entries: list[Entry] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    cut_count: int = 0

    def note_cut(self, path: str, reason: str) -> None:
        self.cut_count += 1
        if len(self.cut) < MAX_CUT_NOTES:
            self.cut.append(f"{shown(path)}: {reason}")

    def cut_summary(self) -> list[str]:
        extra = self.cut_count - len(self.cut)
        return self.cut + ([f"... and {extra} more"] if extra > 0 else [])

    def files(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == "file"]


def shown(name: str) -> str:
    """An OS name as valid text: bytes that are not UTF-8 become ``\\xNN`` escapes."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")


def unshown(name: str) -> str:
    """The OS name :func:`shown` made ``name`` from (``\\xNN`` escapes back to their bytes); ``name`` when it has none."""
    if "\\x" not in name:
        return name
    raw = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), name.encode("utf-8"))
    return os.fsdecode(raw)


def special_kind(mode: int) -> str | None:
    """What a non-regular, non-folder, non-link file is ("FIFO", "socket", "device file"), or None."""
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device file"
    return None


def walk(root: Path, limits: Limits = DEFAULT_LIMITS) -> Scan:
    """Every folder, regular file and symlink under ``root``, iteratively and never following a link.

    Listed as ``refused`` and noted in ``cut``: FIFOs, sockets and device
    files; regular files with more than one hard link (their data may be
    shared with a file outside). Left out, with a note in ``cut``: folders deeper than ``limits.depth`` (not entered); paths
    longer than ``limits.path_chars``; files over ``limits.file_bytes``; and
    everything past ``limits.files`` entries or ``limits.total_bytes``.
    Unreadable folders are noted and skipped.
    """
    scan = Scan()
    total = 0
    folders: list[tuple[str, str, int]] = [("", str(root), 0)]
    while folders:
        prefix, folder, depth = folders.pop()
        try:
            with os.scandir(folder) as listing:
                children = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            scan.note_cut(prefix or ".", f"unreadable folder ({exc.strerror})")
            continue
        for child in children:
            rel = prefix + child.name
            try:
                info = child.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since the listing
            if len(rel) > limits.path_chars:
                scan.note_cut(rel[: limits.path_chars] + "...", f"path longer than {limits.path_chars} characters")
                continue
            if len(scan.entries) >= limits.files:
                scan.note_cut(rel, f"more than {limits.files} entries in the workspace")
                continue
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 > limits.depth:
                    scan.note_cut(rel, f"folder nested deeper than {limits.depth} levels (not entered)")
                    continue
                scan.entries.append(Entry(rel, "dir", info))
                folders.append((rel + "/", child.path, depth + 1))
            elif stat.S_ISLNK(info.st_mode):
                try:
                    scan.entries.append(Entry(rel, "link", info, os.readlink(child.path)))
                except OSError:
                    continue
            elif stat.S_ISREG(info.st_mode):
                if info.st_nlink > 1:
                    scan.note_cut(rel, "hard-linked file")
                    scan.entries.append(Entry(rel, "refused", info))
                elif info.st_size > limits.file_bytes:
                    scan.note_cut(rel, f"file larger than {limits.file_bytes} bytes")
                elif total + info.st_size > limits.total_bytes:
                    scan.note_cut(rel, f"workspace larger than {limits.total_bytes} bytes")
                else:
                    total += info.st_size
                    scan.entries.append(Entry(rel, "file", info))
            else:
                scan.note_cut(rel, special_kind(info.st_mode) or "special file")
                scan.entries.append(Entry(rel, "refused", info))
    scan.entries.sort(key=lambda e: e.path)
    return scan


def empty_folder(root: Path) -> None:
    """Remove everything inside ``root`` (links are removed, never followed), iteratively, however deep."""
    pending, folders = [str(root)], []
    while pending:
        folder = pending.pop()
        folders.append(folder)
        with os.scandir(folder) as listing:
            for child in listing:
                if child.is_dir(follow_symlinks=False):
                    pending.append(child.path)
                else:
                    os.unlink(child.path)
    for folder in reversed(folders[1:]):
        os.rmdir(folder)


def make_folders(folder: Path) -> None:
    """``folder`` and its missing parents, made one by one from the top (``Path.mkdir(parents=True)`` recurses per level)."""
    missing = []
    while not folder.is_dir():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(exist_ok=True)


def remove_tree(root: Path) -> None:
    """Remove ``root`` and everything in it, however deep (``shutil.rmtree`` recurses per level); best effort, as
    ``rmtree(ignore_errors=True)``: what cannot be removed stays."""
    try:
        empty_folder(root)
        root.rmdir()
    except OSError:
        pass


def check_relative(relative: str) -> PurePosixPath:
    """A workspace-relative path as parts; absolute paths, ``~``, ``..`` and NUL are refused."""
    if not isinstance(relative, str) or "\x00" in relative:
        raise Refused(f"invalid path {relative!r}")
    return _checked_relative(relative)


@functools.lru_cache(maxsize=4096)
def _checked_relative(relative: str) -> PurePosixPath:
    """:func:`check_relative` of a string, parsed once per path (every read of a file checks its path again)."""
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or relative.startswith("~") or ".." in pure.parts:
        raise Refused(f"path leaves the workspace: {relative!r}")
    return pure


def real_relative(root: Path, relative: str) -> PurePosixPath:
    """Where ``relative`` really points, relative to ``root``: symlinks inside are followed, one leaving is refused.

    A path :func:`plainly_below` the root (the usual case) is its own answer, found without ``os.path.realpath``'s look
    at every folder from ``/``.
    """
    pure = check_relative(relative)
    if plainly_below(root, pure):
        return pure
    try:
        real = Path(os.path.realpath(root / pure, strict=False))
    except (OSError, RuntimeError):
        raise Refused("symlink loop") from None
    if os.path.islink(real):  # realpath leaves a link it could not resolve: a loop
        raise Refused("symlink loop")
    if real != root and root not in real.parents:
        raise Refused("symlink leaving the workspace")
    return PurePosixPath(real.relative_to(root).as_posix())


def plainly_below(root: Path, pure: PurePosixPath) -> bool:
    """Whether ``root / pure`` is its own real path (``pure`` checked by :func:`check_relative`): the root is its own real
    path and neither it nor a component of ``pure`` is a symlink. Only the root and the components below it are looked at
    (an ``lstat`` each); the folders above the root (pbench's own, not the agent's) once per process."""
    base = os.fspath(root)
    return os.path.basename(base) != ".." and _real_folder(os.path.dirname(base)) and not _link_below(base, pure.parts)


@functools.lru_cache(maxsize=256)
def _real_folder(path: str) -> bool:
    """Whether ``path`` is its own real path (absolute, normalised, no symlink on its way), checked once per folder and
    process (a workspace root's folders above it are pbench's own, not the agent's; the root itself is looked at each time)."""
    return os.path.realpath(path) == path


def _link_below(root: str, parts: tuple[str, ...]) -> bool:
    """Whether ``root`` or a component on the way down ``parts`` from it is a symlink; the way ends at the first one that
    cannot be looked at (missing), as ``os.path.realpath`` (not strict) leaves the rest as it is."""
    for path in itertools.accumulate(parts, lambda above, part: f"{above}/{part}", initial=root):
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return True
    return False


@contextmanager
def open_regular(root: Path, relative: str, limit: int) -> Iterator[tuple[int, int]]:
    """An open descriptor and size of a regular file inside ``root`` (already resolved).

    Symlinks inside are followed by resolving them first; then every folder
    on the way is opened with ``O_NOFOLLOW`` from the root, so a link swapped
    in meanwhile makes the open fail instead of leaving. The file itself is
    ``lstat``-ed before it is opened: FIFOs, sockets and device files are never
    opened, regular files with several hard links are refused (a link's other
    name may be outside; the file tools refuse them too), and so are files
    over ``limit`` bytes. Raises :class:`Refused`.
    """
    parts = real_relative(root, relative).parts
    if not parts:
        raise Refused("a folder, not a file")
    fds: list[int] = []  # the file's folder, then the file
    try:
        fds.append(_open_folder(root, parts[:-1]))
        info = os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            raise Refused("symlink changed while reading")
        if stat.S_ISDIR(info.st_mode):
            raise Refused("a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise Refused(special_kind(info.st_mode) or "special file")
        if info.st_nlink > 1:
            raise Refused("hard-linked file")
        if info.st_size > limit:
            raise Refused(f"file larger than {limit} bytes")
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fds[-1])
        fds.append(fd)
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino) or opened.st_nlink > 1:
            raise Refused("file changed while reading")
        yield fd, opened.st_size
    except OSError as exc:
        raise _refusal(exc, "unreadable") from None
    finally:
        for fd in reversed(fds):
            os.close(fd)


def write_file(root: Path, relative: str, data: bytes) -> Path:
    """Create or replace a regular file inside ``root`` (already resolved), its missing folders made; its real path.

    Written as :func:`open_regular` reads: symlinks inside are resolved first, then every folder on the way is opened
    (or made) with ``O_NOFOLLOW`` from the root and the file is opened with ``O_NOFOLLOW``, so a link swapped in after
    the check makes the write fail instead of leaving. An existing file is replaced only when it is a regular file with
    one name, checked on the open descriptor before it is truncated. Raises :class:`Refused`.
    """
    parts = real_relative(root, relative).parts
    if not parts:
        raise Refused("a folder, not a file")
    fds: list[int] = []  # the file's folder, then the file
    try:
        fds.append(_open_folder(root, parts[:-1], make=True))
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO fails, never waits
        fds.append(fd := os.open(parts[-1], flags, 0o666, dir_fd=fds[-1]))
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise Refused(special_kind(opened.st_mode) or "special file")
        if opened.st_nlink > 1:
            raise Refused("hard-linked file")
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise _refusal(exc, "unwritable") from None
    finally:
        for fd in reversed(fds):
            os.close(fd)
    return root.joinpath(*parts)


def _open_folder(root: Path, parts: tuple[str, ...], make: bool = False) -> int:
    """A descriptor of the folder ``root/parts/...`` (the caller closes it): each folder on the way opened with
    ``O_NOFOLLOW`` from the root (each parent closed once its child is open: any depth), missing ones made with ``make``."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            if make:
                with contextlib.suppress(FileExistsError):  # a link there stays a link: the open below refuses it
                    os.mkdir(part, dir_fd=fd)
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refusal(exc: OSError, otherwise: str) -> Refused:
    """An OS error opening, reading or writing a jailed file as the jail's refusal."""
    if isinstance(exc, Refused):
        return exc
    if isinstance(exc, FileNotFoundError):
        return Missing("no such file")
    if exc.errno == errno.EISDIR:
        return Refused("a folder, not a file")
    if exc.errno == errno.ENOTDIR:  # a folder on the way opened with O_NOFOLLOW is a file, or a link Linux would not follow
        return Refused("a file or symlink on the way")
    return Refused("symlink on the way" if exc.errno == errno.ELOOP else exc.strerror or otherwise)


def read_file(root: Path, relative: str, limit: int = DEFAULT_LIMITS.file_bytes, prefix: int | None = None) -> bytes:
    """A regular file's bytes (at most ``prefix`` of them, if given); :class:`Refused` as :func:`open_regular`."""
    with open_regular(root, relative, limit if prefix is None else sys.maxsize) as (fd, size):
        wanted = size if prefix is None else min(size, prefix)
        chunks, got = [], 0
        while got < wanted:
            chunk = os.read(fd, min(wanted - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)


def read_text(root: Path, relative: str, max_chars: int | None = None) -> str:
    """A file's text (undecodable bytes replaced); with ``max_chars``, only the start of a large file is read."""
    data = read_file(root, relative, prefix=None if max_chars is None else 4 * max_chars + 4)
    return data.decode("utf-8", errors="replace")


def text_or_marker(root: Path, relative: str, max_chars: int) -> str:
    """A file's text, or the marker saying why it was not read."""
    try:
        return read_text(root, relative, max_chars)
    except Refused as exc:
        return exc.marker()


@functools.lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over '/'-separated paths: ``*`` and ``?`` stay in one folder, ``**`` spans folders."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def check_pattern(pattern: str) -> str:
    """The pattern without a leading './'; absolute patterns, '~' and '..' are refused (:class:`Refused`)."""
    if pattern.startswith(("/", "~")) or ".." in pattern.replace("\\", "/").split("/"):
        raise Refused(f"patterns must stay inside the workspace: {pattern!r}")
    return pattern.removeprefix("./")
