"""Workspace checkpoints of earlier formats become manifests, so pbench keeps one checkpoint reader.

Revision ``0006`` (no schema change). Versions before the manifest
(``episode/checkpoints.py``) saved a session's workspace as a tar archive in
``workspacearchive``; earlier ones beside the workspaces, as
``checkpoints/<run>/<position>.tar`` files or ``<position>`` folders (found
from ``run.workspace``, ``<root>/workspaces/<run>``). Each becomes a full
manifest plus its file contents, stored as this revision's pbench stores them;
a checkpoint the database already holds wins over a file. The tar archives no
checkpoint names any more stay until ``pbench gc``, and the files on disk stay
where they are. Only rows without a codec can be tar archives (versions that
compressed archives, revision ``0003`` on, wrote manifests only).

A checkpoint that cannot be converted (an unreadable archive, a name that
leaves the workspace, a hard link to nothing) is refused with one line naming
the run, the session position and what to do, and nothing is changed.
"""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import stat
import tarfile
import zlib
from pathlib import Path

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Connection

from proactive_bench.store.codec import compress_if_smaller
from proactive_bench.store.migration import StoreSchemaError

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

MANIFEST_MAGIC = b"pbench-workspace/2\n"
"""The format ``episode/checkpoints.py`` writes, frozen here as of this revision (the store imports no layer above it)."""


class Unconvertible(ValueError):
    """A legacy checkpoint that cannot become a manifest; the message says why."""


def upgrade() -> None:
    db = op.get_bind()
    stored = db.execute(
        sa.text(
            "SELECT c.run_id, c.position, c.sha256 FROM checkpoint c JOIN workspacearchive a ON a.sha256 = c.sha256 "
            "WHERE a.codec IS NULL AND substr(a.data, 1, :n) <> :magic ORDER BY c.run_id, c.position"
        ),
        {"n": len(MANIFEST_MAGIC), "magic": MANIFEST_MAGIC},
    ).all()
    for run_id, position, digest in stored:
        data = db.execute(sa.text("SELECT data FROM workspacearchive WHERE sha256 = :d"), {"d": digest}).scalar_one()
        manifest = _converted(db, run_id, position, data)
        db.execute(
            sa.text("UPDATE checkpoint SET sha256 = :m WHERE run_id = :r AND position = :p"), {"m": manifest, "r": run_id, "p": position}
        )
    for run_id, workspace in db.execute(sa.text("SELECT id, workspace FROM run WHERE workspace <> '' ORDER BY id")).all():
        folder = Path(workspace).parent.parent / "checkpoints" / run_id
        if not folder.is_dir():
            continue
        saved = set(db.execute(sa.text("SELECT position FROM checkpoint WHERE run_id = :r"), {"r": run_id}).scalars())
        for position, path in _checkpoint_files(folder):
            if position not in saved:
                manifest = _converted(db, run_id, position, path)
                db.execute(
                    sa.text("INSERT INTO checkpoint (run_id, position, sha256) VALUES (:r, :p, :m)"),
                    {"r": run_id, "p": position, "m": manifest},
                )
                saved.add(position)


def downgrade() -> None:
    """Nothing to undo: the manifests are checkpoints every later version reads."""


def _checkpoint_files(folder: Path) -> list[tuple[int, Path]]:
    """A run's checkpoint files and folders by position (``<position>.tar`` before a ``<position>`` folder, as they were read)."""
    found = [(int(p.name[:-4]), 0, p) for p in folder.glob("*.tar") if p.is_file() and p.name[:-4].isdigit()]
    found += [(int(p.name), 1, p) for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and p.name.isdigit()]
    return [(position, path) for position, _, path in sorted(found)]


def _converted(db: Connection, run_id: str, position: int, saved: bytes | Path) -> str:
    """Store the manifest and file contents of one legacy checkpoint (a stored tar archive, a tar file or a folder); the manifest's
    sha256, or StoreSchemaError naming the run."""
    where = f"{saved}" if isinstance(saved, Path) else "a tar archive in the database"
    try:
        tar = saved if isinstance(saved, bytes) else saved.read_bytes() if saved.is_file() else _tar_of_folder(saved)
        manifest, contents = _manifest_of_tar(tar)
    except (Unconvertible, tarfile.TarError, OSError, KeyError, UnicodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StoreSchemaError(
            f"run {run_id}: its workspace checkpoint after session {position} ({where}, a format of earlier pbench versions) "
            f"cannot be converted: {reason}; delete that run with the pbench that wrote it (pbench gc --runs {run_id}) "
            "or move the file away, then open the database again"
        ) from None
    archived = {hashlib.sha256(manifest).hexdigest(): manifest, **contents}
    known = sa.text("SELECT sha256 FROM workspacearchive WHERE sha256 IN :d").bindparams(sa.bindparam("d", expanding=True))
    digests = list(archived)
    present = {found for start in range(0, len(digests), 500) for found in db.execute(known, {"d": digests[start : start + 500]}).scalars()}
    rows = [
        {"sha256": digest, **dict(zip(("data", "codec"), compress_if_smaller(data), strict=True))}
        for digest, data in archived.items()
        if digest not in present
    ]
    if rows:
        db.execute(sa.text("INSERT INTO workspacearchive (sha256, data, codec) VALUES (:sha256, :data, :codec)"), rows)
    return next(iter(archived))


def _manifest_of_tar(data: bytes) -> tuple[bytes, dict[str, bytes]]:
    """A full manifest of the workspace a tar archive holds, and its file contents by sha256."""
    entries: dict[str, list[object]] = {}
    contents: dict[str, bytes] = {}
    cut: list[str] = []
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            path = _inside(member.name)
            if path is None:
                continue
            for parent in _parents(path):
                entries.setdefault(parent, [parent, "dir", 0o755, ""])
            mode = stat.S_IMODE(member.mode)
            if member.isdir():
                entries[path] = [path, "dir", mode, ""]
            elif member.issym():
                entries[path] = [path, "link", mode, member.linkname]
            elif member.isfile() or member.islnk():  # a hard link becomes a copy, as a workspace's pack never shares data
                extracted = archive.extractfile(member)
                if extracted is None:
                    raise Unconvertible(f"{member.name}: no data")
                content = extracted.read()
                digest = hashlib.sha256(content).hexdigest()
                contents[digest] = content
                entries[path] = [path, "file", mode, digest]
            else:
                cut.append(f"{path}: special file (left out when converted)")
    body = {"base": None, "entries": [entries[path] for path in sorted(entries)], "removed": [], "cut": cut}
    text = json.dumps(body, ensure_ascii=True, separators=(",", ":"))
    return MANIFEST_MAGIC + zlib.compress(text.encode("ascii"), 6), contents


def _inside(name: str) -> str | None:
    """A member's workspace-relative path (None: the workspace itself); Unconvertible when it would leave the workspace."""
    path = posixpath.normpath(name)
    if name.startswith("/") or path == ".." or path.startswith("../"):
        raise Unconvertible(f"{name!r} names a place outside the workspace")
    return None if path == "." else path


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


def _tar_of_folder(folder: Path) -> bytes:
    """A checkpoint folder as a tar archive (links stay links), so folders and archives convert the one way."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.add(folder, arcname=".")
    return buffer.getvalue()
