"""Process settings for running many episodes at once: the event loop and the garbage collector.

Profiling a 64-episode sweep (``scripts/bench_sweep.py``) showed two
process-wide costs that no single module can remove:

- the asyncio event loop itself: ``uvloop`` (installed with pbench where the
  platform has it) runs the same coroutines with about a quarter less CPU;
  :func:`run_fast` uses it when it is importable and the standard loop otherwise;
- the garbage collector: CPython's defaults (a young collection every 700
  net allocations, full ones soon after) suit small heaps; with dozens of
  episodes' messages, models and graphs alive, a quarter of the CPU went to
  re-scanning them. :func:`tune_for_runs` moves everything alive at set-up
  (modules, registries, compiled graphs) out of the collector's sight and
  collects less often; cycles are still collected, in larger batches.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from proactive_bench.campaign.interrupts import run_event_loop
from proactive_bench.garbage_collection import collect_young_less_often

T = TypeVar("T")


def tune_for_runs() -> None:
    """Freeze the objects alive now and collect less often; call once, after imports, before running.

    Before a process's first freeze only the young generations are collected: set-up leaves its garbage there (a full
    collection found none in a scripted episode's child, and scanned every module's objects: ~0.1 s, half the CPU of
    the mini episode's run itself). A later call (runs one after another in one process, as tests run the CLI)
    collects every generation, so an earlier run's garbage is not frozen for good."""
    gc.collect(1 if gc.get_freeze_count() == 0 else 2)
    gc.freeze()
    collect_young_less_often()


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """``uvloop``'s event loop when it is installed, else None (the standard loop)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run_fast(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on the fastest available event loop; a stop signal cancels it (:mod:`~proactive_bench.campaign.interrupts`)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return run_event_loop(runner, main)
