"""A real directory per episode run, with a path jail for agent tools."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path, PurePosixPath

TEXT_SNAPSHOT_LIMIT = 200_000
RACY_NS = 2_000_000_000
"""Files changed this recently are always re-hashed: coarse file-system clocks (up to 2 s) could hide a later write."""


class PathEscapeError(ValueError):
    """A path that would leave the workspace."""


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
    candidate = (root / pure).resolve()
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
        self._hashed: dict[str, tuple[tuple[int, int, int, int], str]] = {}

    @classmethod
    def seeded(cls, root: Path, seed: Path | None) -> Workspace:
        """Create the workspace, copying the seed directory's files into it."""
        if seed is not None and seed.is_dir():
            shutil.copytree(seed, root, dirs_exist_ok=True, symlinks=False)
        return cls(root)

    def resolve(self, relative: str) -> Path:
        """Map a workspace-relative path to a real path inside the jail."""
        return resolve_inside(self.root, relative, "workspace")

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def read_text(self, relative: str) -> str:
        return self.resolve(relative).read_text(encoding="utf-8", errors="replace")

    def write_text(self, relative: str, content: str) -> Path:
        target = self.resolve(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return target

    def glob_files(self, pattern: str) -> list[str]:
        """Workspace-relative paths of regular files matching a glob, sorted."""
        try:
            self.resolve(pattern.replace("*", "x").replace("?", "x"))
        except PathEscapeError:
            return []
        matches = []
        for path in self.root.glob(pattern):
            resolved = path.resolve()
            if resolved.is_file() and (self.root in resolved.parents):
                matches.append(self.relative(path))
        return sorted(set(matches))

    def files(self) -> list[str]:
        """All regular files in the workspace, workspace-relative and sorted."""
        return [rel for rel, _ in self._scan()]

    def _scan(self) -> list[tuple[str, os.stat_result]]:
        """Regular files (no symlinks, none inside symlinked folders) with their ``lstat``, sorted by relative path."""
        out: list[tuple[str, os.stat_result]] = []
        folders = [("", str(self.root))]
        while folders:
            prefix, folder = folders.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append((f"{prefix}{entry.name}/", entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        out.append((f"{prefix}{entry.name}", entry.stat(follow_symlinks=False)))
        return sorted(out)

    def fingerprint(self) -> dict[str, str]:
        """Per file, the sha256 of its bytes: change detection between turns.

        A file is read again unless its size, inode, mtime and ctime equal those
        it had when last hashed and both times were then already ``RACY_NS``
        old, so a later write cannot carry the same timestamps (as git does
        for its index).
        """
        started = time.time_ns()
        digests: dict[str, str] = {}
        settled: dict[str, tuple[tuple[int, int, int, int], str]] = {}
        for rel, stat in self._scan():
            stamp = (stat.st_size, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns)
            known = self._hashed.get(rel)
            digest = known[1] if known is not None and known[0] == stamp else hashlib.sha256((self.root / rel).read_bytes()).hexdigest()
            if max(stat.st_mtime_ns, stat.st_ctime_ns) < started - RACY_NS:
                settled[rel] = (stamp, digest)
            digests[rel] = digest
        self._hashed = settled
        return digests

    def snapshot(self) -> dict[str, dict[str, str | int]]:
        """Per file: size, sha256 and (for small text files) the text."""
        snap: dict[str, dict[str, str | int]] = {}
        for rel in self.files():
            data = (self.root / rel).read_bytes()
            entry: dict[str, str | int] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            if len(data) <= TEXT_SNAPSHOT_LIMIT:
                try:
                    entry["text"] = data.decode("utf-8")
                except UnicodeDecodeError:
                    pass
            snap[rel] = entry
        return snap

    def restore(self, snapshot: dict[str, dict[str, str | int]]) -> None:
        """Make the workspace hold exactly the text files of a snapshot."""
        keep = set(snapshot)
        for rel in self.files():
            if rel not in keep:
                (self.root / rel).unlink()
        for rel, entry in snapshot.items():
            if "text" in entry:
                self.write_text(rel, str(entry["text"]))
