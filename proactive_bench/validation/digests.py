"""What validation read, as a digest, and ``pbench validate``'s reports remembered by it.

:func:`tree_files` lists a folder's files with their content (a link: its
target's name); :func:`content_digest` hashes labelled folders. A report of
``pbench validate`` is stored under the user's cache
(``$XDG_CACHE_HOME/pbench/validate/<digest>.json``, else
``~/.cache/pbench/validate``) keyed by the digest of every file of the data
root, pbench's own source (its files' stat: :func:`code_stamp`), its version and the options that change the
report: any change of the data or of pbench is a new key, and an unreadable
entry is a miss. This module imports no dataset or checking code, so a report
found here costs the digest (milliseconds), not the checks.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from proactive_bench.logs import get_logger

log = get_logger(__name__)

PACKAGE = Path(__file__).resolve().parent.parent
"""pbench's own source: a report depends on the code that checked."""

KEPT_REPORTS = 32
"""Reports kept in the cache folder; older ones are deleted when a new one is stored."""


def tree_files(folder: Path) -> Iterator[tuple[str, bytes]]:
    """Relative path and content of every regular file (a link: its target's name, never what it points to)."""
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(top, d))]):
            path = os.path.join(top, name)
            rel = os.path.relpath(path, folder)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                yield rel, b"link:" + os.fsencode(os.readlink(path))
            elif stat.S_ISREG(mode):
                with open(path, "rb") as handle:
                    yield rel, handle.read()


def content_digest(folders: Mapping[str, Path], extra: bytes = b"") -> str:
    """A digest of every file under each labelled folder (path, length, content), then ``extra``."""
    digest = hashlib.sha256()
    for label, folder in folders.items():
        for rel, content in tree_files(folder):
            digest.update(f"{label}/{rel}\0{len(content)}\0".encode())
            digest.update(content)
    digest.update(extra)
    return digest.hexdigest()[:32]


def code_stamp(folder: Path) -> str:
    """A digest of every file's path, size, inode and change times under ``folder``: pbench's source, by stat only.

    Reading and hashing all of pbench's source on every ``validate`` cost more than the cached answer; a file's
    ctime cannot be set back (unlike its mtime), so an edit, a checkout or a replaced file is a new stamp.
    """
    digest = hashlib.sha256()
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            info = os.lstat(os.path.join(top, name))
            rel = os.path.relpath(os.path.join(top, name), folder)
            digest.update(f"{rel}\0{info.st_size}\0{info.st_ino}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0".encode())
    return digest.hexdigest()[:32]


def report_key(root: Path, options: Mapping[str, object]) -> str:
    """The cache key of ``pbench validate``'s report on ``root`` with ``options``: data, pbench's code and version, options."""
    try:
        pbench = version("pbench")
    except PackageNotFoundError:  # run from a source tree that is not installed: the code digest still tells versions apart
        pbench = "unknown"
    said = json.dumps(
        {"root": str(root.resolve()), "pbench": pbench, "code": code_stamp(PACKAGE), "options": dict(options)}, sort_keys=True
    )
    return content_digest({"data": root}, said.encode())


def cache_dir() -> Path:
    """Where validation reports are kept: ``$XDG_CACHE_HOME/pbench/validate``, else ``~/.cache/pbench/validate``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pbench" / "validate"


def recall_report(key: str) -> dict[str, Any] | None:
    """The report stored under ``key``, or None (none stored, or unreadable)."""
    try:
        found = json.loads((cache_dir() / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def remember_report(key: str, report: Mapping[str, Any]) -> None:
    """Store ``report`` under ``key`` (atomically); a folder that cannot be written only costs the next run the checks."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, suffix=".tmp", delete=False) as handle:
            json.dump(report, handle)
        os.replace(handle.name, folder / f"{key}.json")
        stored = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in stored[KEPT_REPORTS:]:
            old.unlink(missing_ok=True)
    except OSError as exc:
        log.warning("validation_cache_unwritable", path=str(folder), error=exc.strerror)
