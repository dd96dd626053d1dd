"""A sweep's dataset shipped to the machines of a Ray cluster: packed once by the driver, unpacked once per machine.

The driver packs, for each data root its pending runs load from, only what
those runs read (:func:`~proactive_bench.dataset.episode_files`: each
episode's folder, its persona's file, the graders) into one gzipped tar
archive (a link inside those is shipped as a link, so a workspace seed's link
is refused on the worker as it is here, and one leaving the folder cannot
bring a file of the driver's machine). The archive is deterministic (sorted members, no owners; files keep
their modification times, as a workspace seeded from them does), so its
digest names its content. A runner unpacks an archive once per digest into
``<temp>/pbench-datasets/<digest>``: into a fresh temporary folder first, then
renamed into place, so runners sharing a machine never see half an archive;
members that would land outside the folder (absolute paths, ``..``, links
leaving it, devices) are refused by tarfile's ``data`` filter. A copy is
touched each time a run starts from it; unpacking a new one removes the copies
(and leftovers of interrupted unpacks) no run of the machine has started from
for :data:`KEPT_FOR_S`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from proactive_bench.dataset import LoadedEpisode, episode_files
from proactive_bench.episode import run_spec
from proactive_bench.store import RunLike

CACHE = Path(tempfile.gettempdir()) / "pbench-datasets"
"""Where runners keep unpacked datasets, one folder per archive digest (shared by every runner of the machine)."""
KEPT_FOR_S = 7 * 24 * 3600
"""How long a copy no run has started from stays in the cache: sweeps of the same dataset reuse it, others' are removed."""
SKIPPED = {"__pycache__"}
"""Folders never packed: Python's bytecode caches change with every import and are not part of the dataset."""


@dataclass(frozen=True)
class DatasetArchive:
    """One data root's files a sweep's runs read, as a gzipped tar archive named by the digest of its bytes."""

    digest: str
    data: bytes
    files: int


def pack_datasets(runs: Iterable[tuple[RunLike, LoadedEpisode]]) -> dict[str, DatasetArchive]:
    """One archive per data root the runs load from (keyed as their specs name it), holding only what those runs read."""
    members: dict[str, set[Path]] = {}
    for run, loaded in runs:
        root = run_spec(run).data_root
        members.setdefault(root, set()).update(episode_files(Path(root), loaded))
    return {root: pack(Path(root).resolve(), paths) for root, paths in members.items()}


def pack(root: Path, members: Iterable[Path]) -> DatasetArchive:
    """The files and folders ``members`` (relative to ``root``, folders with everything under them) as one archive."""
    buffer = io.BytesIO()
    files = 0
    tops = {root / member for member in members}
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted({found for top in tops for found in _walk(top)}):
            info = tarfile.TarInfo(path.relative_to(root).as_posix())
            if path.is_symlink() and path not in tops:  # a link stays a link: one leaving the folder is refused when unpacked
                info.type, info.linkname = tarfile.SYMTYPE, os.readlink(path)
                tar.addfile(info)
                continue
            stat = path.stat()
            info.mtime, info.mode = stat.st_mtime, 0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644
            if path.is_dir():
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
                continue
            content = path.read_bytes()
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
            files += 1
    data = gzip.compress(buffer.getvalue(), compresslevel=6, mtime=0)
    return DatasetArchive(hashlib.sha256(data).hexdigest(), data, files)


def _walk(top: Path) -> Iterator[Path]:
    """``top`` and, for a folder, every folder, file and link under it (links not followed), bytecode caches left out."""
    yield top
    if not top.is_dir():
        return
    for folder, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d not in SKIPPED]
        for name in [*dirs, *names]:
            yield Path(folder) / name


def unpacked(digest: str, data: bytes, cache: Path = CACHE) -> Path:
    """The folder holding the archive's files (touched: in use), unpacked now unless a complete copy is already there;
    a new copy removes the ones unused for :data:`KEPT_FOR_S`."""
    target = cache / digest
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        names = tar.getnames()
        if _complete(target, names):
            return in_use(target)
        cache.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=cache))
        try:
            tar.extractall(fresh, filter="data")
            _move_into_place(fresh, target, names)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)  # gone already unless another runner's copy won
    _prune(cache, keep=target)
    return in_use(target)


def in_use(copy: Path) -> Path:
    """Mark a copy as used now (its modification time), so that pruning keeps it; ``copy`` back (FileNotFoundError: gone)."""
    try:
        os.utime(copy)
    except PermissionError:  # another user's copy in a shared temporary folder: read, not marked
        pass
    return copy


def _prune(cache: Path, keep: Path) -> None:
    """Remove the copies, and leftovers of interrupted unpacks, untouched for :data:`KEPT_FOR_S` (renamed away first,
    so that a runner never starts from half a copy: it finds the copy gone and unpacks it again)."""
    cutoff = time.time() - KEPT_FOR_S
    for entry in cache.iterdir():
        try:
            if entry == keep or entry.stat().st_mtime >= cutoff:
                continue
            doomed = entry if entry.name.startswith(".") else entry.rename(entry.with_name(f".{entry.name}-stale-{uuid.uuid4().hex}"))
        except OSError:  # another runner pruned or replaced it meanwhile
            continue
        shutil.rmtree(doomed, ignore_errors=True)


def _move_into_place(fresh: Path, target: Path, names: list[str]) -> None:
    """Rename the freshly unpacked folder to ``target``; when a copy is there already keep it if complete, else
    replace it (a temporary-files cleaner may have removed some of its files)."""
    try:
        fresh.rename(target)
        return
    except OSError:  # a folder is there: another runner's copy, or an incomplete old one
        if _complete(target, names):
            return
    stale = target.with_name(f".{target.name}-stale-{uuid.uuid4().hex}")
    try:
        target.rename(stale)
    except FileNotFoundError:  # another runner moved it away first
        pass
    try:
        fresh.rename(target)
    except OSError:  # another runner's fresh copy took its place meanwhile
        pass
    shutil.rmtree(stale, ignore_errors=True)


def _complete(target: Path, names: list[str]) -> bool:
    return target.is_dir() and all((target / name).exists() for name in names)
