"""Exceptions raised by code pbench runs but does not own (an agent, a plugin), told briefly.

:class:`ErrorTrace` keeps an exception's type, message and the frames of its
traceback that are not pbench's own: frames in this package are cut away, and
so is the machinery (standard library, ``<frozen ...>``) between pbench's call
and the first frame of the other code. :func:`located` is the one-line form
of an error at import: ``file:line: Type: message``, no traceback.

This module imports nothing from pbench: any layer may use it.
"""

from __future__ import annotations

import sysconfig
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

_PBENCH = str(Path(__file__).resolve().parent)
_LIBRARIES = tuple(sorted({str(Path(sysconfig.get_paths()[key]).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")}))


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a traceback: where, in which function, and the line of source (empty when unknown)."""

    file: str
    line: int
    function: str
    code: str

    @property
    def place(self) -> str:
        """``file.py:42 in respond`` (the file's name only)."""
        return f"{Path(self.file).name}:{self.line} in {self.function}"


@dataclass(frozen=True, slots=True)
class ErrorTrace:
    """An exception as it is stored and shown: its type, its message and the frames outside pbench (outermost first)."""

    type: str
    message: str
    frames: tuple[Frame, ...]

    @classmethod
    def of(cls, exc: BaseException) -> ErrorTrace:
        return cls(_type_name(exc), str(exc), tuple(foreign_frames(exc)))

    @classmethod
    def from_stored(cls, type_name: str, message: str, frames: list[dict[str, Any]]) -> ErrorTrace:
        return cls(type_name, message, tuple(Frame(**frame) for frame in frames))

    def frame_dicts(self) -> list[dict[str, Any]]:
        """The frames as JSON-ready dicts (what the store keeps)."""
        return [asdict(frame) for frame in self.frames]

    @property
    def summary(self) -> str:
        """``ValueError: message (agent.py:42 in respond)``: the innermost frame of the other code itself, not of a library it called."""
        own = [f for f in self.frames if not _is_library(f.file)] or list(self.frames)
        return f"{self.type}: {self.message}" + (f" ({own[-1].place})" if own else "")

    def lines(self) -> list[str]:
        """The frames as a short traceback, outermost first: ``file:line in function`` then the source line."""
        out = []
        for frame in self.frames:
            out.append(f"  {frame.file}:{frame.line} in {frame.function}")
            if frame.code:
                out.append(f"    {frame.code}")
        return out


def foreign_frames(exc: BaseException) -> list[Frame]:
    """The traceback's frames that are not pbench's, from the first frame of other code that is not machinery on.

    When every frame is pbench's (a built-in agent), the innermost one is kept, so there is always a place to show.
    """
    summary = traceback.extract_tb(exc.__traceback__)
    frames = [Frame(f.filename, f.lineno or 0, f.name, (f.line or "").strip()) for f in summary]
    kept = [f for f in frames if not f.file.startswith(_PBENCH)]
    first = next((n for n, f in enumerate(kept) if not _is_machinery(f.file)), len(kept))
    return kept[first:] or frames[-1:]


def located(exc: BaseException) -> str:
    """``file:line: Type: message`` for an error raised while importing other code (a syntax error: its own place)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{_short(exc.filename)}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
    frames = [f for f in foreign_frames(exc) if not _is_machinery(f.file)]
    where = f"{_short(frames[-1].file)}:{frames[-1].line}: " if frames else ""
    return f"{where}{_type_name(exc)}: {exc}"


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _is_machinery(file: str) -> bool:
    """Frames between pbench's call and the other code: the standard library and importlib's frozen modules."""
    return file.startswith("<") or (_is_library(file) and "-packages" not in file)


def _is_library(file: str) -> bool:
    return file.startswith("<") or str(Path(file).resolve()).startswith(_LIBRARIES)


def _short(file: str) -> str:
    """A path relative to the working directory when it lies below it."""
    path = Path(file)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return file
