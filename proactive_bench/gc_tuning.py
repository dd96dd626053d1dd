"""Garbage-collector settings for processes that run many episodes at once.

CPython's default thresholds (a young collection every 700 net allocations,
full ones soon after) suit small heaps. A sweep keeps dozens of episodes'
messages, models and graphs alive, and at the defaults a quarter of its CPU
went to re-scanning them (``scripts/bench_sweep.py``). Everything alive
once the program is set up (modules, registries, compiled graphs) is moved
out of the collector's sight, and collections run less often. Memory stays
bounded: cycles are still collected, only in larger batches.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Net allocations between young collections (CPython's default: 700)."""


def tune_for_runs() -> None:
    """Freeze the objects alive now and collect less often; call once, after imports, before running."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
