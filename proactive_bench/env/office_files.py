"""Office files in and out of the workspace for the office tools: jailed, bounded reads, library errors as tool errors.

Every read goes through :meth:`Workspace.read_bytes` (the jail: no absolute
path, ``..``, link leaving the workspace, special or hard-linked file) with a
size limit, and a DOCX or XLSX (a zip archive) is refused when it would unpack
to more than :data:`UNPACKED_LIMIT`, so a small "zip bomb" cannot fill memory.
The library then parses the bytes in memory; whatever it raises for a damaged
file becomes a :class:`ToolError` naming the file. Writes build the file in
memory and store it with :meth:`Workspace.write_bytes`.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from proactive_bench.env.apps.base import env_now
from proactive_bench.env.toolbox import ToolEnv, ToolError

FILE_LIMIT = 20 * 2**20
"""The largest office file the tools read (bytes)."""
UNPACKED_LIMIT = 64 * 2**20
"""The most a DOCX or XLSX may unpack to (bytes)."""
ZIP_FORMATS = (".docx", ".xlsx")
T = TypeVar("T")


def require_suffix(path: str, suffix: str) -> str:
    """The path, when it names a ``suffix`` file; else a ToolError."""
    if not path.lower().endswith(suffix):
        raise ToolError(f"{path}: expected a {suffix} file")
    return path


def load(env: ToolEnv, path: str, suffix: str, parse: Callable[[io.BytesIO], T]) -> T:
    """Parse a workspace file of type ``suffix`` with ``parse`` (a library's reader of a binary stream)."""
    data = env.workspace.read_bytes(require_suffix(path, suffix), FILE_LIMIT)
    kind = suffix.lstrip(".").upper()
    if suffix in ZIP_FORMATS:
        try:
            unpacked = sum(info.file_size for info in zipfile.ZipFile(io.BytesIO(data)).infolist())
        except (zipfile.BadZipFile, ValueError) as exc:
            raise ToolError(f"{path}: not a valid {kind} file ({exc})") from None
        if unpacked > UNPACKED_LIMIT:
            raise ToolError(f"{path}: unpacks to {unpacked} bytes, more than the {UNPACKED_LIMIT} allowed")
    try:
        return parse(io.BytesIO(data))
    except Exception as exc:  # the libraries raise many types (KeyError, XML errors, ...) for a damaged file
        raise ToolError(f"{path}: cannot read as {kind}: {type(exc).__name__}: {exc}") from None


def save(env: ToolEnv, path: str, write: Callable[[io.BytesIO], object]) -> int:
    """Store what ``write`` puts into a stream at a workspace path (parent folders created); the size in bytes."""
    buffer = io.BytesIO()
    write(buffer)
    env.workspace.write_bytes(path, buffer.getvalue())
    return buffer.tell()


def save_office(env: ToolEnv, path: str, write: Callable[[io.BytesIO], object], modified: bool) -> int:
    """:func:`save` for a DOCX or XLSX, with the machine's time its library wrote replaced by the world's simulated time
    (:func:`env_now`): every zip entry's and, with ``modified``, the modified property (openpyxl's; python-docx keeps
    fixed dates). The same content saved at the same simulated time gives the same bytes and the same size."""
    written = io.BytesIO()
    write(written)
    data = _stamped(written.getvalue(), env_now(env), _MODIFIED_TIME if modified else None)
    env.workspace.write_bytes(path, data)
    return len(data)


def require_new(env: ToolEnv, path: str, overwrite: bool) -> None:
    """Refuse to replace an existing file unless ``overwrite`` is set."""
    target = env.workspace.resolve(path)
    if target.is_dir():
        raise ToolError(f"{path} is a folder")
    if target.exists() and not overwrite:
        raise ToolError(f"{path} already exists; pass overwrite=true to replace it")


_CORE_TIMES = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")
_MODIFIED_TIME = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:)")
CORE_PROPERTIES = "docProps/core.xml"


def stable_office_bytes(archive: bytes, when: datetime) -> bytes:
    """An Office file (docx, xlsx, pptx: a zip archive) with every entry time and its created/modified
    properties set to ``when``, so the same content always gives the same bytes."""
    return _stamped(archive, when, _CORE_TIMES)


def _stamped(archive: bytes, when: datetime, properties: re.Pattern[bytes] | None) -> bytes:
    """``archive`` rewritten with every entry's time, and the core properties ``properties`` matches, set to ``when``."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if properties is not None and info.filename == CORE_PROPERTIES:
                data = properties.sub(rb"\g<1>" + stamp + rb"\g<2>", data)
            fixed = zipfile.ZipInfo(info.filename, date_time=when.timetuple()[:6])
            fixed.compress_type, fixed.external_attr = zipfile.ZIP_DEFLATED, info.external_attr
            target.writestr(fixed, data)
    return out.getvalue()
