"""What validation at the door costs before a run: the full checks, and the cached path.

For each persona of the dataset, prints medians over ``--repeat`` tries of:

- check: :func:`~proactive_bench.validation.admission.dataset_problems` without a cache
  (every check of ``pbench validate``, reference solutions replayed);
- digest: the content digest alone, which is all a run of unchanged data pays
  once the episode has passed (a marker file under ``<results>/validated/``);
- load: loading the episode, which every run pays anyway, for scale.

    python scripts/bench_admission.py [--data DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from proactive_bench.dataset.loading import (
    DEFAULT_DATA_ROOT,
    load_episode,
    persona_names,
)
from proactive_bench.logs import configure_logging
from proactive_bench.validation.admission import dataset_problems, episode_digest


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    configure_logging(False)
    root = args.data.resolve()
    print(f"{'persona':<14} {'sessions':>8} {'load ms':>9} {'check ms':>9} {'digest ms':>10}")
    for name in persona_names(root):
        loaded = load_episode(root, name)
        dataset_problems(loaded, [], None)  # warm imports and caches once
        load = median_ms(partial(load_episode, root, name), args.repeat)
        check = median_ms(partial(dataset_problems, loaded, [], None), args.repeat)
        digest = median_ms(partial(episode_digest, loaded, root), args.repeat)
        print(f"{name:<14} {len(loaded.sessions):>8} {load:>9.1f} {check:>9.1f} {digest:>10.1f}")


if __name__ == "__main__":
    main()
