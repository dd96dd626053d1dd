"""A real directory per episode run, with a path jail for agent tools."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path, PurePosixPath

TEXT_SNAPSHOT_LIMIT = 200_000


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
        out = []
        for dirpath, _dirs, names in os.walk(self.root):
            for name in names:
                path = Path(dirpath) / name
                if path.is_file() and not path.is_symlink():
                    out.append(self.relative(path))
        return sorted(out)

    def fingerprint(self) -> dict[str, str]:
        """Per file, the sha256 of its bytes: cheap change detection between turns."""
        return {rel: hashlib.sha256((self.root / rel).read_bytes()).hexdigest() for rel in self.files()}

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
