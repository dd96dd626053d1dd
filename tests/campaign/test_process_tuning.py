"""Process settings for long runs: the event loop run_fast picks, and the collector thresholds."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Iterator

import pytest

from proactive_bench.campaign.process_tuning import run_fast, tune_for_runs
from proactive_bench.garbage_collection import YOUNG_THRESHOLD
from tests.helpers.cli import run_python


async def loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_run_fast_uses_uvloop_when_installed() -> None:
    pytest.importorskip("uvloop")
    assert run_fast(loop_module()).startswith("uvloop")


def test_run_fast_falls_back_to_the_standard_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    assert run_fast(loop_module()).startswith("asyncio")


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tune_for_runs_freezes_and_collects_less_often(restored_gc: None) -> None:
    gc.set_threshold(700, *gc.get_threshold()[1:])  # CPython's default (importing the CLI, as the tests do, sets ours)
    tune_for_runs()
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD and gc.get_freeze_count() > 0


def test_a_first_freeze_collects_the_young_generations_a_later_one_all(restored_gc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process's first freeze spares the full collection (every module's objects scanned, nothing found after imports);
    a later one collects all, so the garbage of the runs before it is not frozen."""
    gc.unfreeze()
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: collected.append(generation) or 0)
    tune_for_runs()
    tune_for_runs()
    assert collected == [1, 2]


def test_a_pbench_command_imports_its_modules_collecting_less_often() -> None:
    """A ``pbench`` process sets the threshold as the CLI module loads, before a command's module and what it imports
    (most of a short command's CPU), not only at a run's start."""
    shown = """
import gc, sys
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "proactive_bench.cli.run":
            print(gc.get_threshold()[0])
sys.meta_path.insert(0, Spy())
from proactive_bench.cli import app
import proactive_bench.cli.run
"""
    assert run_python(shown).split() == [str(YOUNG_THRESHOLD)]
