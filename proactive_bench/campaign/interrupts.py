"""Stopping on Ctrl-C (SIGINT) and SIGTERM: unwind once, save what finished, never a traceback.

:func:`stop_on_signals` installs one handler for both signals in the main
thread. The first signal stops the work: inside :func:`run_event_loop` (``run_fast``) it
cancels the main task, so every ``finally`` runs on the event loop (a
finished session waiting to be saved is saved) and :class:`Interrupted` is
raised once the loop is done; in plain code it raises :class:`Interrupted` at
once. Later signals are ignored, so a second Ctrl-C cannot break the
clean-up that the first one started (marking runs, stopping workers,
releasing the lease).

Sweep workers never act on SIGINT themselves (a terminal's Ctrl-C reaches the
whole process group; the parent decides) and stop like the parent on SIGTERM,
which the parent sends them: :func:`as_worker`. :func:`signals_held` keeps
both signals pending while workers are started, so none arrives before a
worker has its handlers.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The work was stopped by a signal; ``exit_code`` is the shell's 128 + its number (130 for SIGINT, 143 for SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


@dataclass
class _StopState:
    """The signal that stopped this process (None: none yet), and the event loop task a signal cancels."""

    signum: int | None = None
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[Any] | None = None


_STATE = _StopState()


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    if _STATE.signum is not None:  # already stopping: the clean-up must finish
        return
    _STATE.signum = signum
    if _STATE.task is not None and _STATE.loop is not None:
        _STATE.loop.call_soon_threadsafe(_STATE.task.cancel)
        return
    raise Interrupted(signum)


@contextmanager
def stop_on_signals(signals: tuple[int, ...] = STOP_SIGNALS) -> Iterator[None]:
    """Stop the work on the first of ``signals`` (see the module's text); the former handlers come back at exit
    unless a signal came: the process is ending, and later signals are then ignored (SIG_IGN, which
    Python keeps while it shuts down, where it would reset a handler of its own to the default).

    A signal this process was started ignoring (``nohup``, a shell's background job) stays ignored. Outside
    the main thread (a test runner's worker thread) signals cannot be handled: nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    former = {signum: signal.signal(signum, _on_signal) for signum in signals if signal.getsignal(signum) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for signum, handler in former.items():
            signal.signal(signum, handler if _STATE.signum is None else signal.SIG_IGN)


def run_event_loop(runner: asyncio.Runner, main: Coroutine[Any, Any, T]) -> T:
    """``runner.run(main)``, cancelled (its ``finally`` blocks run) by a stop signal, which then raises :class:`Interrupted`."""
    try:
        return runner.run(_cancellable(main))
    except asyncio.CancelledError:
        if _STATE.signum is None:
            raise
        raise Interrupted(_STATE.signum) from None


async def _cancellable(main: Coroutine[Any, Any, T]) -> T:
    _STATE.loop, _STATE.task = asyncio.get_running_loop(), asyncio.current_task()
    try:
        if _STATE.signum is not None:  # the signal came while the loop started
            main.close()
            raise asyncio.CancelledError
        return await main
    finally:
        _STATE.loop = _STATE.task = None


@contextmanager
def signals_held() -> Iterator[None]:
    """Keep SIGINT and SIGTERM pending in this thread (and in processes started meanwhile, until :func:`as_worker`)."""
    held = set(STOP_SIGNALS) - signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


def as_worker() -> None:
    """In a sweep worker: ignore SIGINT, stop on SIGTERM, then take the signals held since it was started."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STATE.signum = None
    signal.signal(signal.SIGTERM, _on_signal)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


@contextmanager
def handlers_kept() -> Iterator[None]:
    """Put SIGINT's and SIGTERM's handlers back after a library call that installs its own (``ray.init``: exit at once on SIGTERM)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in kept.items():
            if handler is not None:
                signal.signal(signum, handler)


def stopped_by(stop: KeyboardInterrupt) -> Interrupted:
    """A stop as :class:`Interrupted` with the signal that caused it (a library may have re-raised ours as a plain KeyboardInterrupt: Ray's blocking calls do)."""
    if isinstance(stop, Interrupted):
        return stop
    return Interrupted(_STATE.signum if _STATE.signum is not None else signal.SIGINT)
