"""Episodes marked as admitted in a results folder, as a run after the first finds them: for tests whose subject is not
the checks at the door (``pbench validate`` replaying an episode's references: most of a one-session run's CPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proactive_bench.dataset import load_episode
from proactive_bench.validation import VALIDATED_DIR, dataset_problems
from tests.helpers.once import once_per_run


def admit_unchanged(results: Path, root: Path, personas: list[str], factory: pytest.TempPathFactory) -> None:
    """Mark each persona's episode of ``root`` as having passed the checks in ``results`` (where a run on
    ``results/<db>`` looks). The checks run once per test run and episode, here, and must find no error: the
    markers are those they write, named by the digest of the episode's content and pbench's code."""
    folder = results / VALIDATED_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for persona in personas:

        def check(scratch: Path, persona: str = persona) -> tuple[list[str], list[str]]:
            problems = dataset_problems(load_episode(root, persona), [], scratch)
            return [str(p) for p in problems], sorted(p.name for p in scratch.glob("*.ok"))

        problems, markers = once_per_run(factory, f"admitted-{root.resolve().as_posix().replace('/', '_')}-{persona}", check)
        assert problems == [] and markers, (persona, problems)
        for name in markers:
            (folder / name).touch()
