"""Generated files a process keeps: the same data always gives the same bytes, so a file is made once per data.

A picture (pictures.py) or an office file (files.py) is a pure function of its
data; one process may compose the same template and seed again (the tests do,
over and over), so a :class:`KeptBytes` store returns what it made before for
the same data (the same ``repr`` of the arguments: ``1`` and ``1.0``, which may be
written differently, are different data) and keeps the last ``limit()`` made.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec

P = ParamSpec("P")


class KeptBytes:
    """One kind of generated file's store: the least recently used is dropped past ``limit()`` (read at each keeping)."""

    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, make: Callable[P, bytes]) -> Callable[P, bytes]:
        """``make``, but bytes made before from the same data are returned as kept, not made again."""

        @wraps(make)
        def kept(*args: P.args, **kwargs: P.kwargs) -> bytes:
            key = f"{make.__name__}{args!r}{sorted(kwargs.items())!r}"
            with self._lock:
                if (made := self._kept.get(key)) is not None:
                    self._kept.move_to_end(key)
                    return made
            made = make(*args, **kwargs)
            with self._lock:
                self._kept[key] = made
                self._trim()
            return made

        return kept

    def forget(self) -> None:
        """Drop everything kept: the next of each is made anew."""
        with self._lock:
            self._kept.clear()

    @contextmanager
    def forgotten(self) -> Iterator[None]:
        """Within the block everything is made anew (nothing kept before is used); after it, what was kept before is kept
        again, with what the block made (the latest used last)."""
        with self._lock:
            before = OrderedDict(self._kept)
            self._kept.clear()
        try:
            yield
        finally:
            with self._lock:
                made = OrderedDict(self._kept)
                self._kept.clear()
                self._kept.update(before)
                self._kept.update(made)
                self._trim()

    def _trim(self) -> None:
        while len(self._kept) > self._limit():
            self._kept.popitem(last=False)  # the least recently used
