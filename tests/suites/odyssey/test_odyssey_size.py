"""OdysseyBench's size and shape (issue 38, item 3): the statistics script's odyssey section and the acceptance figures
on the shipped tasks - at least 150 tasks in the paper's 1/2/3-app proportions, both splits, histories of the paper's
length."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from tests.helpers.paths import DATA, REPO

PAPER_SHARES = {"1-app": 153 / 602, "2-app": 166 / 602, "3-app": 283 / 602}


def _stats_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("suite_stats", REPO / "scripts" / "suite_stats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_stats_script_prints_the_odyssey_section_beside_the_paper(capsys: pytest.CaptureFixture[str]) -> None:
    stats = _stats_script()
    figures = stats.odyssey_stats(DATA)
    assert sum(figures["by_group"].values()) == figures["tasks"] == sum(figures["by_split"].values())
    assert figures["history"]["all"]["tasks"] == figures["tasks"]
    assert stats.main(["--suite", "odyssey"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("OdysseyBench") and "paper 602" in printed and "histories, neo" in printed and "histories, plus" in printed


def test_the_suite_has_the_papers_shape_issue_38s_acceptance_figures() -> None:
    """At least 150 tasks, each app group within 3 points of the paper's share, both splits, mean history >= 3.5k tokens
    and every history >= 100 turns; neo histories are exactly 5 sessions, plus ones many."""
    figures = _stats_script().odyssey_stats(DATA)
    total = figures["tasks"]
    assert total >= 150
    for group, share in PAPER_SHARES.items():
        assert abs(figures["by_group"][group] / total - share) <= 0.03, (group, figures["by_group"])
    assert figures["by_split"]["plus"] >= 60 and figures["by_split"]["neo"] >= 60
    history = figures["history"]
    assert history["all"]["tokens_mean"] >= 3_500 and history["all"]["turns_min"] >= 100
    assert history["neo"]["sessions"] == 5 and history["plus"]["sessions"] >= 20
