"""A value computed once per test run and shared by every xdist worker: a slow reference several tests compare against."""

from __future__ import annotations

import fcntl
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def once_per_run(factory: pytest.TempPathFactory, name: str, compute: Callable[[Path], T]) -> T:
    """``compute(folder)`` (``folder``: a new empty folder) the first time any worker of this run asks for
    ``name``; a worker asking meanwhile waits for it, and later ones read the pickled value.

    The files live in the run's own temporary folder (the workers' common parent under xdist), so each run
    computes afresh and nothing outlives it. The value must not depend on which test asked first."""
    base = factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    stored = shared / f"once-{name}.pickle"
    with (shared / f"once-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if stored.exists():
            value: T = pickle.loads(stored.read_bytes())
            return value
        value = compute(Path(tempfile.mkdtemp(prefix=f"once-{name}-", dir=shared)))
        stored.write_bytes(pickle.dumps(value))
        return value
