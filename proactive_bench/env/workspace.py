"""A real directory per episode run, with a path jail for agent tools."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path, PurePosixPath
from typing import Any

import proactive_bench.env.jail as jail
from proactive_bench.logs import get_logger

log = get_logger(__name__)

TEXT_SNAPSHOT_LIMIT = 200_000
RACY_NS = 2_000_000_000
"""Files changed this recently are always re-hashed: coarse file-system clocks (up to 2 s) could hide a later write."""
FINE_RACY_NS = 100_000_000
"""The window for a file whose times both carry sub-second digits: its file system keeps fine times (ext4, XFS, btrfs,
tmpfs: nanoseconds from a clock ticking every 1-10 ms; exFAT 10 ms; NTFS 100 ns), so a later write gets a later stamp."""


class PathEscapeError(ValueError):
    """A path that would leave the workspace."""


class WorkspaceSeedError(ValueError):
    """A dataset's workspace seed holding something other than regular files and folders; names the file."""


def resolve_inside(root: Path, relative: str, what: str = "folder") -> Path:
    """Map a path relative to ``root`` (already resolved) to a real path that stays inside it.

    Refuses absolute paths, ``~``, ``..``, NUL bytes, symlinks whose target lies
    outside, and hard-linked files (a hard link may share its data with a file
    outside). Raises PathEscapeError.
    """
    if not isinstance(relative, str) or "\x00" in relative:
        raise PathEscapeError(f"invalid path {relative!r}")
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or relative.startswith("~"):
        raise PathEscapeError(f"absolute paths are not allowed: {relative!r}")
    if ".." in pure.parts:
        raise PathEscapeError(f"'..' is not allowed in paths: {relative!r}")
    if jail.plainly_below(root, pure):  # no link on the way: it is its own real path (resolving looks at every folder from /)
        candidate = root / pure
    else:
        try:
            candidate = (root / pure).resolve()
        except (RuntimeError, OSError):  # a symlink loop (RuntimeError before Python 3.13)
            raise PathEscapeError(f"symlink loop: {jail.shown(relative)!r}") from None
        if candidate != root and root not in candidate.parents:
            raise PathEscapeError(f"path leaves the {what}: {relative!r}")
    if candidate.is_file() and candidate.stat().st_nlink > 1:
        raise PathEscapeError(f"hard-linked files are not allowed: {relative!r}")
    return candidate


class Workspace:
    """A directory the agent may read and write; every path is checked against it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self._forget()

    def _forget(self) -> None:
        """No file hashed, no cut logged, no snapshot taken yet."""
        self._hashed: dict[str, tuple[tuple[int, int, int, int], str]] = {}
        """By file (the walk's own spelling): its stamp and sha256 when :meth:`fingerprint` last read it settled."""
        self._logged_cut: list[str] = []
        self._snapshotted: dict[str, str] | None = None
        """File to sha256 in this object's last snapshot (None before the first)."""

    @classmethod
    def seeded(cls, root: Path, seed: Path | None) -> Workspace:
        """Create the workspace, copying the seed directory's folders and files into it.

        Nothing in a seed is followed: a symlink, hard-linked file, FIFO,
        socket or device file in it (or a seed past :data:`jail.DEFAULT_LIMITS`)
        raises WorkspaceSeedError naming the file, so no host file can enter a run
        through its dataset.
        """
        workspace = cls(root)
        workspace.place(seed)
        return workspace

    def place(self, seed: Path | None) -> None:
        """Copy a seed directory's folders and files into the workspace (replacing files of the same path), checked as
        :meth:`seeded` checks a seed; nothing when it does not exist (a session's files that appear when it starts)."""
        if seed is None or not seed.is_dir():
            return
        seed = seed.resolve()
        scan = jail.walk(seed)
        links = [e.path for e in scan.entries if e.kind == "link"]
        if links or scan.cut_count:
            problems = [f"{jail.shown(p)}: symlink" for p in links] + scan.cut_summary()
            raise WorkspaceSeedError(f"{seed}: a workspace seed may hold only regular files and folders: {'; '.join(problems[:5])}")
        for entry in scan.entries:
            try:
                self.resolve(PurePosixPath(entry.path).parent.as_posix())  # its folders stay inside
                self._clear(entry.path, keep_folder=entry.kind == "dir")
                if entry.kind == "dir":
                    self.resolve(entry.path).mkdir(parents=True, exist_ok=True)
                    continue
                target = self.write_bytes(entry.path, jail.read_file(seed, entry.path))
            except (jail.Refused, PathEscapeError, OSError) as exc:
                raise WorkspaceSeedError(f"{seed / entry.path}: {exc}") from None
            os.chmod(target, entry.stat.st_mode & 0o777)

    def _clear(self, relative: str, keep_folder: bool) -> None:
        """Remove what the agent left where a placed file or folder goes: a link (never followed), a file, a folder in a file's way."""
        there = self.root / relative
        if there.is_symlink() or (there.exists() and not there.is_dir()):
            there.unlink()  # only this name goes: a link's target or a hard link's other names stay
        elif there.is_dir() and not keep_folder:
            jail.remove_tree(there)

    def resolve(self, relative: str) -> Path:
        """Map a workspace-relative path to a real path inside the jail."""
        return resolve_inside(self.root, relative, "workspace")

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def read_text(self, relative: str) -> str:
        """A file's text through the jail (:func:`jail.read_text`); raises jail.Refused."""
        return jail.read_text(self.root, relative)

    def write_text(self, relative: str, content: str) -> Path:
        return self.write_bytes(relative, content.encode("utf-8"))

    def read_bytes(self, relative: str, limit: int) -> bytes:
        """A file's bytes through the jail, at most ``limit`` of them.

        The path is checked as the file tools check it (PathEscapeError), then read
        with :func:`jail.read_file` (no link swapped in, special or hard-linked
        file is opened); its refusals (jail.Refused) name the path.
        """
        self.resolve(relative)
        try:
            return jail.read_file(self.root, relative, limit)
        except jail.Refused as exc:
            raise type(exc)(f"{jail.shown(relative)}: {exc}") from None

    def write_bytes(self, relative: str, data: bytes) -> Path:
        """Create or replace a file inside the jail (parent folders are created); its real path.

        The path is checked as the file tools check it (PathEscapeError), then written with :func:`jail.write_file`
        (no link swapped in since the check is followed, no special or hard-linked file is written); its refusals
        (jail.Refused) name the path.
        """
        self.resolve(relative)
        try:
            return jail.write_file(self.root, relative, data)
        except jail.Refused as exc:
            raise type(exc)(f"{jail.shown(relative)}: {exc}") from None

    def glob_files(self, pattern: str, scan: jail.Scan | None = None) -> list[str]:
        """Workspace-relative paths of regular files matching a glob (``*`` within a folder, ``**`` across), sorted.

        Matches are what :func:`jail.walk` lists: regular files, and symlinks to
        one of them (never a link leaving the workspace, a special or a hard-linked file).
        ``scan``: a walk of this workspace taken since its last change (:meth:`scan`), to match against
        instead of walking again.
        """
        try:
            pattern = jail.check_pattern(pattern)
        except jail.Refused:
            return []
        scan = scan or self.scan()
        if "*" in pattern or "?" in pattern or "[" in pattern:
            regex = jail.glob_regex(pattern)
            matched = [e for e in scan.entries if regex.match(e.path) and e.kind in ("file", "link")]
        else:  # a plain path: its glob matches that path alone
            matched = [e for e in scan.entries if e.path == pattern and e.kind in ("file", "link")]
        if all(e.kind == "file" for e in matched):  # no link to resolve: the walk's files are needed for links only
            return [e.path for e in matched]
        files = {e.path for e in scan.files()}
        return [e.path for e in matched if e.kind == "file" or self._links_to(e.path, files)]

    def _links_to(self, link: str, files: set[str]) -> bool:
        try:
            return jail.real_relative(self.root, link).as_posix() in files
        except jail.Refused:
            return False

    def files(self) -> list[str]:
        """All regular files in the workspace, workspace-relative and sorted."""
        return [e.path for e in self.scan().files()]

    def scan(self) -> jail.Scan:
        """Everything in the workspace as :func:`jail.walk` lists it (links not followed, bounded); what it cut is logged when it changes."""
        scan = jail.walk(self.root)
        cut = scan.cut_summary()
        if cut and cut != self._logged_cut:  # once per change, not at every look
            log.warning("workspace_cut", workspace=str(self.root), cut=cut)
        self._logged_cut = cut
        return scan

    def fingerprint(self, scan: jail.Scan | None = None) -> dict[str, str]:
        """Per file, the sha256 of its bytes: change detection between turns.

        A file is read again unless its size, inode, mtime and ctime equal those
        it had when last hashed and both times were then already older than
        :func:`racy_window`, so a later write cannot carry the same timestamps
        (as git does for its index). ``scan``: a walk of this workspace taken just before (:meth:`scan`), to hash
        instead of walking again.
        """
        started = time.time_ns()
        digests: dict[str, str] = {}
        settled: dict[str, tuple[tuple[int, int, int, int], str]] = {}
        for entry in (self.scan() if scan is None else scan).files():
            digest = self.settled_digest(entry)
            if digest is None:
                try:
                    digest = hashlib.sha256(jail.read_file(self.root, entry.path)).hexdigest()
                except jail.Refused as exc:
                    digests[jail.shown(entry.path)] = exc.marker()  # read again next time: it is no digest
                    continue
            stat = entry.stat
            if max(stat.st_mtime_ns, stat.st_ctime_ns) < started - racy_window(stat):
                settled[entry.path] = (_stamp(stat), digest)
            digests[jail.shown(entry.path)] = digest
        self._hashed = settled
        return digests

    def settled_digest(self, entry: jail.Entry) -> str | None:
        """The sha256 of a file :meth:`fingerprint` last read settled, while its size, inode and times are still those it
        had then; None when it must be read (the packer and snapshots share the fingerprint's reads this way)."""
        known = self._hashed.get(entry.path)
        return known[1] if known is not None and known[0] == _stamp(entry.stat) else None

    def snapshot(self, scan: jail.Scan | None = None) -> dict[str, dict[str, Any]]:
        """Per file: size, sha256 and, for small text files, the text; a file the jail refuses has its marker as text.

        After the first, a workspace's snapshots are deltas (so a session's
        snapshot costs what it changed): only files added or changed since its
        previous snapshot, and under the key ``""`` (never a file's path)
        ``{"delta": True, "removed": [...]}``. :func:`expand_snapshot` makes a
        delta whole again from the previous snapshot. ``scan``: a walk of this workspace taken since its last change
        (:meth:`scan`), to snapshot instead of walking again.
        """
        full: dict[str, dict[str, Any]] = {}
        unchanged: dict[str, str] = {}
        for item in (self.scan() if scan is None else scan).files():
            rel = jail.shown(item.path)
            if self._snapshotted is not None:
                digest = self.settled_digest(item)
                if digest is not None and self._snapshotted.get(rel) == digest:  # in the previous snapshot as it is: no delta
                    unchanged[rel] = digest
                    continue
            try:
                data = jail.read_file(self.root, item.path)
            except jail.Refused as exc:
                full[rel] = {"size": 0, "sha256": "", "text": exc.marker()}
                continue
            entry: dict[str, Any] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            if len(data) <= TEXT_SNAPSHOT_LIMIT:
                try:
                    entry["text"] = data.decode("utf-8")
                except UnicodeDecodeError:
                    pass
            full[rel] = entry
        previous, self._snapshotted = self._snapshotted, {**unchanged, **{rel: e["sha256"] or e["text"] for rel, e in full.items()}}
        if previous is None:
            return full
        delta = {rel: e for rel, e in full.items() if previous.get(rel) != self._snapshotted[rel]}
        return {**delta, "": {"delta": True, "removed": sorted(set(previous) - set(self._snapshotted))}}


class SteadyWorkspace(Workspace):
    """A view of a workspace for judging one state of it: walked once and each file's text read once.

    ``pbench validate`` judges the same unchanged world with many checks whose graders each glob and read it again.
    A write through the view forgets what it read; a write through another object is not seen: make a new view
    after the workspace changes. ``scan``: a walk of the workspace in the state to judge (:meth:`Workspace.scan`), when
    one was just taken.
    """

    def __init__(self, workspace: Workspace, scan: jail.Scan | None = None) -> None:
        self.root = workspace.root  # resolved and made by the workspace: a view per user turn looks at no folder from /
        self._forget()
        self._viewed = workspace
        self._scan: jail.Scan | None = scan
        self._texts: dict[str, str] = {}

    def scan(self) -> jail.Scan:
        if self._scan is None:
            self._scan = self._viewed.scan()  # what it cut logged by the workspace, once per change, not once per view
        return self._scan

    def read_text(self, relative: str) -> str:
        if relative not in self._texts:
            self._texts[relative] = super().read_text(relative)
        return self._texts[relative]

    def write_bytes(self, relative: str, data: bytes) -> Path:
        self._scan, self._texts = None, {}
        return super().write_bytes(relative, data)


def racy_window(stat: os.stat_result) -> int:
    """How old (ns) a file's times must be before its digest is trusted while they stand: :data:`FINE_RACY_NS` when
    both times carry sub-second digits (a file system with fine times), else :data:`RACY_NS` (whole seconds: FAT's 2 s,
    HFS+, ext3 or ext4 with small inodes). A scripted run writes and fingerprints within a second: with the coarse window
    every file it wrote was read again at each fingerprint."""
    fine = stat.st_mtime_ns % 1_000_000_000 and stat.st_ctime_ns % 1_000_000_000
    return FINE_RACY_NS if fine else RACY_NS


def _stamp(stat: os.stat_result) -> tuple[int, int, int, int]:
    return (stat.st_size, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns)


def expand_snapshot(previous: dict[str, dict[str, Any]], snapshot: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A snapshot made whole: a delta (see :meth:`Workspace.snapshot`) applied to the snapshot before it; a whole one as it is."""
    marker = snapshot.get("")
    if not marker or not marker.get("delta"):
        return snapshot
    whole = {rel: entry for rel, entry in previous.items() if rel not in marker.get("removed", [])}
    whole.update((rel, entry) for rel, entry in snapshot.items() if rel)
    return whole
