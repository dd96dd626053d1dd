"""Scripted reference agents for the Ray executor's fault tests: one waits to be killed in one session of its first attempt, one is slow.

When ``PBENCH_TEST_PID_DIR`` names a folder, the first process to start
session :data:`KILLED_IN` writes its process id to ``<folder>/<session>.pid``
and sleeps; the test kills that process. A later attempt finds the file and
plays the session like ``scripted:reference``.

pbench gives the reference solution only to its own baselines and to the names a
process grants it (tests/conftest.py), and no test's grant reaches a Ray worker:
these agents read each session of the mini episode from the test data instead.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from functools import cache
from pathlib import Path

from proactive_bench.dataset import Session, load_episode
from proactive_bench.scaffolds.protocol import SessionContext
from proactive_bench.scaffolds.scripted import ScriptedAgent

MINI = Path(__file__).resolve().parent.parent / "data" / "mini"  # loaded from its file in Ray workers: no tests package there


@cache
def mini_sessions() -> dict[str, Session]:
    return {s.id: s for s in load_episode(MINI, "mini").sessions}


class MiniReference(ScriptedAgent):
    """``scripted:reference`` on the mini episode, its sessions read from the test data."""

    def __init__(self) -> None:
        super().__init__("reference")

    def start_session(self, ctx: SessionContext) -> None:
        super().start_session(replace(ctx, reference=mini_sessions()[ctx.session_id]))


PID_DIR_ENV = "PBENCH_TEST_PID_DIR"
KILLED_IN = "a3"
"""The mini episode's third session: by its start the first session is saved (each save waits for the next session)."""
WAIT_S = 120.0


class KilledOnce(MiniReference):
    """``scripted:reference``, except that its first attempt at session :data:`KILLED_IN` announces its pid and waits to be killed."""

    def start_session(self, ctx: SessionContext) -> None:
        folder = os.environ.get(PID_DIR_ENV)
        if folder and ctx.session_id == KILLED_IN:
            marker = Path(folder) / f"{KILLED_IN}.pid"
            if not marker.exists():
                marker.write_text(str(os.getpid()))
                time.sleep(WAIT_S)  # never wakes in the test: the process is killed
        super().start_session(ctx)


PACE_S = 0.4
PACE_ENV = "PBENCH_TEST_PACE_S"
"""Seconds to take instead of PACE_S, where set: a sweep that is not stopped (a reference, a resume) need not be slow."""


class Paced(MiniReference):
    """``scripted:reference`` taking :data:`PACE_S` seconds (or :data:`PACE_ENV`'s) to start each session: a sweep slow enough to
    be stopped at a chosen point."""

    def start_session(self, ctx: SessionContext) -> None:
        time.sleep(float(os.environ.get(PACE_ENV, PACE_S)))
        super().start_session(ctx)
