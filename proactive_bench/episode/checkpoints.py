"""Session-end checkpoints, and picking an episode run up where it stopped.

At the end of every session the runner packs the workspace folder through
the jail (:func:`workspace_archive`: a manifest of folders, files and links,
and each file's content stored once by sha256, so unchanged files cost no
new content) and saves it in the results database in
the same transaction as the session's turn rows, model-call records, grades,
snapshots and final status (:meth:`~proactive_bench.store.Store.save_session`);
the first session also saves the workspace the run started from (position 0,
for reports). Identical manifests and contents are stored once. A session is therefore
saved whole or not at all: resuming restores the workspace of the last
finished session and runs the unfinished one again. Its model calls that had
already been answered are served from the run's recording
(:mod:`proactive_bench.llm.cache`), so finished turns cost nothing twice and
the results equal those of an uninterrupted run. Checkpoints of earlier
formats (tar archives, ``checkpoints/<run>/<position>.tar`` files, folders)
became manifests when their database was opened (store revision ``0006``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from proactive_bench.data_model import FINAL_OUTCOMES
from proactive_bench.env import Workspace, jail
from proactive_bench.store import (
    RunLike,
    SessionRunLike,
    Store,
)

MANIFEST_MAGIC = b"pbench-workspace/2\n"


class ResumeError(RuntimeError):
    """A run whose saved state is incomplete and cannot be continued."""


@dataclass(frozen=True)
class PackedWorkspace:
    """A workspace checkpoint: its manifest and the file contents (by sha256) the store does not hold yet."""

    manifest: bytes
    blobs: dict[str, bytes]
    cut: list[str]
    """What the workspace held that was not packed (see :func:`jail.walk`)."""


ManifestEntry = tuple[str, int, str]
"""kind ("dir", "file", "link"), permission bits, and the content's sha256 (file) or the target (link)."""


@dataclass
class WorkspacePacker:
    """Packs one run's workspace checkpoints so that each costs what changed since the previous one.

    A manifest lists folders, regular files (by content sha256) and symlinks
    (as links: never followed) as :func:`jail.walk` sees them, and is a delta
    against this packer's previous manifest (``base``: its sha256), so
    unchanged files cost nothing; ``blobs`` holds only contents this packer
    has not handed out before. Both assume the caller stores every pack, in
    order (the runner does: a failed save ends the run). A new packer (a
    resumed run) starts with a full manifest.
    """

    stored: set[str] = field(default_factory=set)
    _base: tuple[str, dict[str, ManifestEntry]] | None = None

    def pack(self, workspace: Workspace, scan: jail.Scan | None = None) -> PackedWorkspace:
        """The manifest is zlib-compressed JSON after :data:`MANIFEST_MAGIC`; names that are not UTF-8 are kept
        exactly (JSON escapes of their surrogates). What the walk cut is in the manifest (and logged). ``scan``: a walk
        of the workspace taken since its last change (:meth:`Workspace.scan`), to pack instead of walking again (left
        as it is: the files the jail refuses to read are noted in a copy)."""
        scan = workspace.scan() if scan is None else replace(scan, cut=list(scan.cut))
        blobs: dict[str, bytes] = {}
        entries: dict[str, ManifestEntry] = {}
        for entry in scan.entries:
            mode = stat.S_IMODE(entry.stat.st_mode)
            if entry.kind == "file":
                digest = workspace.settled_digest(entry)  # a content stored before and unchanged since: not read again
                if digest is None or digest not in self.stored:
                    try:
                        data = jail.read_file(workspace.root, entry.path)
                    except jail.Refused as exc:
                        scan.note_cut(entry.path, str(exc))
                        continue
                    digest = hashlib.sha256(data).hexdigest()
                    if digest not in self.stored:
                        blobs[digest] = data
                entries[entry.path] = ("file", mode, digest)
            elif entry.kind != "refused":  # refused entries are in the cut already
                entries[entry.path] = (entry.kind, mode, entry.target)
        self.stored.update(blobs)
        base_sha, base = self._base or (None, {})
        changed = [[path, *value] for path, value in entries.items() if base.get(path) != value]
        removed = [path for path in base if path not in entries]
        cut = scan.cut_summary()
        body = json.dumps({"base": base_sha, "entries": changed, "removed": removed, "cut": cut}, ensure_ascii=True, separators=(",", ":"))
        manifest = MANIFEST_MAGIC + zlib.compress(body.encode("ascii"), 6)
        self._base = (hashlib.sha256(manifest).hexdigest(), entries)
        return PackedWorkspace(manifest, blobs, cut)


def workspace_archive(workspace: Workspace) -> PackedWorkspace:
    """The workspace as one self-contained checkpoint (a full manifest and every content)."""
    return WorkspacePacker().pack(workspace)


def restore_workspace(workspace: Workspace, manifest: bytes, store: Store) -> None:
    """Make the workspace folder an exact copy of a saved one: a manifest, its file contents read from ``store``.
    Emptying and rebuilding are iterative (any depth)."""
    if not manifest.startswith(MANIFEST_MAGIC):
        raise ResumeError("a saved workspace is not a workspace manifest")
    jail.empty_folder(workspace.root)
    unpack_manifest(workspace.root, manifest, store)


def _manifest_body(manifest: bytes) -> dict[str, Any]:
    return json.loads(zlib.decompress(manifest[len(MANIFEST_MAGIC) :]))


def archive_references(archive: bytes) -> list[str]:
    """The stored archives one names, by sha256: a manifest's base manifest and the file contents it lists; nothing for anything else."""
    if not archive.startswith(MANIFEST_MAGIC):
        return []
    body = _manifest_body(archive)
    files = [value for _, kind, _, value in body["entries"] if kind == "file"]
    return [body["base"], *files] if body.get("base") else files


def manifest_entries(manifest: bytes, store: Store) -> dict[str, ManifestEntry]:
    """What a manifest and the chain of manifests it is a delta of (read from ``store``) say the workspace held."""
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while True:
        body = _manifest_body(manifest)
        chain.append(body)
        base = body.get("base")
        if base is None:
            break
        if base in seen:
            raise ResumeError(f"checkpoint manifest {base[:12]} is its own base")
        seen.add(base)
        found = store.archives({base}).get(base)
        if found is None or not found.startswith(MANIFEST_MAGIC):
            raise ResumeError(f"checkpoint manifest {base[:12]} (the base of a later one) is missing")
        manifest = found
    entries: dict[str, ManifestEntry] = {}
    for body in reversed(chain):
        for path in body["removed"]:
            entries.pop(path, None)
        entries.update((path, (kind, mode, value)) for path, kind, mode, value in body["entries"])
    return entries


def unpack_manifest(root: Path, manifest: bytes, store: Store) -> None:
    """Create a manifest's folders, files and links under ``root`` (names are checked to stay inside)."""
    entries = manifest_entries(manifest, store)
    contents = store.archives({value for kind, _, value in entries.values() if kind == "file"})
    for path in sorted(entries):  # a folder before what it holds
        kind, mode, value = entries[path]
        jail.check_relative(path)
        jail.real_relative(root, os.path.dirname(path) or ".")  # a crafted manifest cannot write through a link it made
        target = root / path
        if kind == "dir":
            target.mkdir(exist_ok=True)
            os.chmod(target, mode | 0o700)
        elif kind == "link":
            os.symlink(value, target)
        else:
            if value not in contents:
                raise ResumeError(f"a checkpoint's file {jail.shown(path)} has no stored content")
            target.write_bytes(contents[value])
            os.chmod(target, mode & 0o777)  # as the seed copy does: no setuid, setgid or sticky bit comes back from a checkpoint


def restore_checkpoint(store: Store, run: RunLike, position: int, workspace: Workspace) -> None:
    """Put the workspace back as it was after the run's ``position``-th session; ResumeError when it was not saved."""
    saved = store.checkpoint(run.id, position)
    if saved is None:
        raise ResumeError(f"run {run.id}: the workspace after session {position} was not saved")
    restore_workspace(workspace, saved, store)


@contextmanager
def opened_checkpoint(store: Store, run: RunLike, position: int) -> Iterator[Workspace | None]:
    """A checkpoint's files as a temporary workspace folder, or None when it was not saved."""
    saved = store.checkpoint(run.id, position)
    if saved is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="pbench-checkpoint-") as scratch:
        workspace = Workspace(Path(scratch))
        restore_workspace(workspace, saved, store)
        yield workspace


def split_session_runs(store: Store, run: RunLike) -> tuple[dict[str, SessionRunLike], list[SessionRunLike]]:
    """The run's finished session runs by session id, and the unfinished ones."""
    finished: dict[str, SessionRunLike] = {}
    unfinished: list[SessionRunLike] = []
    for session_run in store.session_runs(run.id):
        if session_run.status in FINAL_OUTCOMES:
            finished[session_run.session_id] = session_run
        else:
            unfinished.append(session_run)
    return finished, unfinished
