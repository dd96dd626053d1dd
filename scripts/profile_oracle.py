"""pbench's CPU per scripted session played in process, and where it goes: one episode's oracle under cProfile.

The workload of ``pbench validate --oracle`` and of the content tests
(``tests/validation/test_pharmacist_content.py``): every scripted baseline of
the episode's suite in each of its reveal orders (and, on AgentIF, the
dropped-step runs), on one scratch results store, no model call. A warm-up
pass first pays for imports, seeded app images and first-use caches. Printed:

- CPU ms per session: this process's user + system time (every thread) over a
  pass, divided by the sessions it played; the median of ``--rounds`` plain
  passes, then one pass under cProfile (slower: read its shares, not its ms);
- the top frames by own time and by cumulative time, as shares of the profiled
  CPU (every thread counted by its CPU time, as in ``scripts/profile_sessions.py``).

    python scripts/profile_oracle.py [PERSONA] [--data pbench_data] [--suite personas] [--rounds 3] [--top 30] [--no-profile] [--out FILE.prof]
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from profile_sessions import cpu_seconds, print_plain_then_profile

from proactive_bench.dataset import LoadedEpisode
from proactive_bench.logs import configure_logging
from proactive_bench.suites import DEFAULT_SUITE, SUITES, SuiteContext
from proactive_bench.validation.oracle import run_oracle

DATA = Path(__file__).resolve().parent.parent / "pbench_data"


def play(episode: LoadedEpisode, root: Path) -> tuple[float, int]:
    """CPU seconds of one pass of the episode's oracle, and the sessions it played."""
    gc.collect()
    before = cpu_seconds()
    outcomes = run_oracle(episode, root)
    return cpu_seconds() - before, sum(len(o.result.sessions) for o in outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("persona", nargs="?", default="pharmacist", help="The episode (a persona, or a suite's task).")
    parser.add_argument("--data", type=Path, default=DATA, help="The dataset root.")
    parser.add_argument("--suite", default=DEFAULT_SUITE)
    parser.add_argument("--rounds", type=int, default=3, help="Plain (unprofiled) passes; the median is printed.")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-profile", action="store_true", help="Only the plain CPU per session.")
    parser.add_argument("--out", type=Path, help="Also write the profile (pstats format) here.")
    args = parser.parse_args()
    configure_logging()
    episode = SUITES.get(args.suite).load(args.data, args.persona, SuiteContext())
    play(episode, args.data)  # imports, seeded app images, first-use caches
    plain = []
    for n in range(args.rounds):
        cpu, sessions = play(episode, args.data)
        plain.append(1000 * cpu / sessions)
        print(f"plain pass {n + 1}: {sessions} sessions, {1000 * cpu:.0f} ms CPU: {plain[-1]:.2f} ms per session", flush=True)
    print_plain_then_profile(plain, None if args.no_profile else lambda: play(episode, args.data), args)


if __name__ == "__main__":
    main()
