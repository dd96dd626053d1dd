"""pbench's own CPU per mini session, and where it goes: N episodes in this process under cProfile.

The workload of ``scripts/bench_scale.py``: the react agent and the LLM user on
the mini dataset (tests/data/mini, three sessions per episode), every model call
answered by a stub server (in a child process, so its CPU is not counted) after
``--delay`` seconds; N episodes at once in one event loop, as one sweep process
runs them, on a SQLite file. A warm-up episode first pays for imports and client
set-up, then the collector is tuned as the CLI does. Printed:

- CPU ms per session: this process's user + system time (every thread) over the
  measured episodes, divided by their sessions, with and without the profiler
  (a profiled run is slower; ``--no-profile`` measures only the plain run);
  the profile counts each thread's CPU time (``time.thread_time``), not its waits;
- memory per concurrent episode: the growth of this process's resident memory (sampled every 0.05 s) over the
  measured episodes' run, at its peak, divided by N;
- the top frames by own time and by cumulative time, as shares of the profiled
  CPU (the event loop's thread and every thread started during the run, such as
  the store's writing thread).

    python scripts/profile_sessions.py [--episodes 32] [--delay 0.3] [--top 30] [--rounds 1] [--no-profile] [--out FILE.prof]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sweep import RemoteStub

from proactive_bench.campaign.process_tuning import run_fast, tune_for_runs
from proactive_bench.campaign.sweep import SweepConfig, run_episodes
from proactive_bench.dataset.loading import load_episode
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.llm.costs import Budget, PriceTable
from proactive_bench.logs import configure_logging
from proactive_bench.store import Store

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "data" / "mini"


def cpu_seconds() -> float:
    """This process's user + system time, every thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def sweep(store: Store, base_url: str, count: int, results: Path) -> int:
    """``count`` mini episodes at once in one event loop, as a sweep process runs them; the sessions they stored."""
    loaded = load_episode(MINI, "mini")
    spec = RunSpec(persona="mini", model="openai:agent", data_root=str(MINI), user="llm", user_model="openai:user", base_url=base_url)
    runs = [(start_run(store, loaded, spec, results), loaded) for _ in range(count)]
    config = SweepConfig(models=[spec.model], personas=[spec.persona], runs=count, base_url=base_url, concurrency=count)
    run_fast(run_episodes(store, runs, config, Budget(PriceTable())))
    return sum(1 for run, _ in runs for s in store.session_runs(run.id) if s.status == "completed")


class ThreadProfiles:
    """A profiler in every thread started while it is on (``threading.setprofile``), besides the caller's own."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()

    def _hook(self, *_: Any) -> None:
        profile = cProfile.Profile(time.thread_time)
        with self._lock:
            self.profiles.append(profile)
        profile.enable()  # replaces this hook in the new thread

    def __enter__(self) -> ThreadProfiles:
        main = cProfile.Profile(time.thread_time)
        self.profiles.append(main)
        threading.setprofile(self._hook)
        main.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        self.profiles[0].disable()
        threading.setprofile(None)  # type: ignore[arg-type]  # None turns the hook off

    def stats(self) -> pstats.Stats:
        stats = pstats.Stats(self.profiles[0], stream=io.StringIO())
        for profile in self.profiles[1:]:
            try:
                stats.add(profile)
            except TypeError:  # a thread that never returned to Python after the hook: nothing recorded
                pass
        return stats


def top_frames(stats: pstats.Stats, top: int) -> str:
    """The top frames by own time and by cumulative time, as shares of all profiled time."""
    entries: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]  # pstats keeps its table here
    total = sum(tt for _, _, tt, _, _ in entries.values()) or 1.0

    def name(key: tuple[str, int, str]) -> str:
        path, line, function = key
        short = path.split("site-packages/")[-1].removeprefix(f"{REPO}/")
        return f"{short}:{line}({function})" if line else function

    lines = [f"{'own %':>6} {'cum %':>6} {'calls':>9}  frame"]
    by_own = sorted(entries.items(), key=lambda item: -item[1][2])[:top]
    for key, (_, calls, tt, ct, _) in by_own:
        lines.append(f"{100 * tt / total:6.1f} {100 * ct / total:6.1f} {calls:9d}  {name(key)}")
    lines.append("")
    lines.append(f"{'cum %':>6} {'own %':>6} {'calls':>9}  frame (by cumulative)")
    by_cum = sorted(entries.items(), key=lambda item: -item[1][3])[:top]
    for key, (_, calls, tt, ct, _) in by_cum:
        lines.append(f"{100 * ct / total:6.1f} {100 * tt / total:6.1f} {calls:9d}  {name(key)}")
    return "\n".join(lines)


def print_plain_then_profile(plain: list[float], profiled: Callable[[], tuple[float, int]] | None, args: argparse.Namespace) -> None:
    """Print the plain rounds' median CPU ms per session; then, unless ``profiled`` is None, run it (CPU seconds and
    sessions of one pass) under :class:`ThreadProfiles` and print its top ``args.top`` frames (and write them to ``args.out``)."""
    plain = sorted(plain)
    if plain:
        print(f"CPU per session, plain: median {plain[len(plain) // 2]:.2f} ms (min {plain[0]:.2f}, max {plain[-1]:.2f})")
    if profiled is None:
        return
    with ThreadProfiles() as profiles:
        cpu, sessions = profiled()
    print(f"CPU per session, under cProfile: {1000 * cpu / sessions:.2f} ms ({sessions} sessions)\n")
    stats = profiles.stats()
    if args.out:
        stats.dump_stats(str(args.out))
    print(top_frames(stats, args.top))


def resident_bytes() -> int:
    """This process's resident memory now (/proc/self/statm)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize()


class PeakResident:
    """The highest resident memory seen while the block runs, sampled on a thread."""

    def __init__(self) -> None:
        self.start = self.peak = resident_bytes()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, resident_bytes())

    def __enter__(self) -> PeakResident:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, resident_bytes())


def measure(tmp: Path, base_url: str, count: int, label: str) -> tuple[float, int, float]:
    """CPU seconds and sessions of ``count`` episodes, and the resident memory they added at the peak per episode (bytes)."""
    store = Store(tmp / f"{label}.db")
    gc.collect()
    before = cpu_seconds()
    with PeakResident() as memory:
        sessions = sweep(store, base_url, count, tmp)
    return cpu_seconds() - before, sessions, (memory.peak - memory.start) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1, help="Plain (unprofiled) measurements; the median is printed.")
    parser.add_argument("--no-profile", action="store_true", help="Only the plain CPU per session.")
    parser.add_argument("--out", type=Path, help="Also write the profile (pstats format) here.")
    args = parser.parse_args()
    configure_logging()
    with tempfile.TemporaryDirectory() as tmp_name, RemoteStub(args.delay) as base_url, RemoteStub(0.0) as warm:
        tmp = Path(tmp_name)
        sweep(Store(tmp / "warm.db"), warm, 1, tmp)  # imports, client set-up, first-use caches
        tune_for_runs()
        plain = []
        for n in range(args.rounds):
            started = time.perf_counter()
            cpu, sessions, memory = measure(tmp, base_url, args.episodes, f"plain{n}")
            plain.append(1000 * cpu / sessions)
            print(
                f"plain round {n + 1}: {args.episodes} episodes, {sessions} sessions, {time.perf_counter() - started:.2f} s wall,"
                f" {1000 * cpu:.0f} ms CPU: {plain[-1]:.2f} ms per session; {memory / 1e6:.2f} MB per concurrent episode",
                flush=True,
            )
        print_plain_then_profile(plain, None if args.no_profile else lambda: measure(tmp, base_url, args.episodes, "profiled")[:2], args)


if __name__ == "__main__":
    main()
