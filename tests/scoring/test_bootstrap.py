"""Statistics that say what they know: n/a for one run, bootstrap intervals, paired comparisons, left-out dependencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proactive_bench.dataset import left_out_dependencies, load_episode
from proactive_bench.reporting.tables import interval, mean_std
from proactive_bench.scoring import bootstrap_interval, paired_difference, run_stats
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI


def test_an_interval_needs_two_values_and_brackets_the_mean() -> None:
    assert bootstrap_interval([0.4]) is None and bootstrap_interval([]) is None
    values = [0.2, 0.5, 0.4, 0.9, 0.6]
    low, high = bootstrap_interval(values)  # type: ignore[misc]
    assert min(values) <= low < sum(values) / len(values) < high <= max(values)
    assert bootstrap_interval(values) == (low, high)  # seeded: the same figures give the same interval
    assert bootstrap_interval([0.7, 0.7, 0.7]) == pytest.approx((0.7, 0.7))


def test_one_run_shows_n_a_not_a_zero_spread() -> None:
    one = run_stats([0.45])
    assert one["boot95"] is None and one["std"] is None
    assert mean_std(one) == "45.0 ± n/a" and interval(one) == "n/a"
    two = run_stats([0.4, 0.6])
    assert mean_std(two) == "50.0 ± 14.1" and interval(two).startswith("[40.0")
    assert mean_std(run_stats([])) == "—" and interval(run_stats([])) == "—"


def test_a_paired_difference_counts_only_shared_tasks_and_weighs_them() -> None:
    a = {"t1": 0.5, "t2": 0.5, "t3": 1.0, "only_a": 0.0}
    b = {"t1": 0.6, "t2": 0.6, "t3": 1.1, "only_b": 1.0}
    d = paired_difference(a, b)
    assert d is not None and (d.pairs, d.only_a, d.only_b) == (3, 1, 1)
    assert d.difference == pytest.approx(0.1) and d.interval == pytest.approx((0.1, 0.1))
    assert d.share_not_above_zero == 0.0  # B beats A on every resample
    worse = paired_difference(b, a)
    assert worse is not None and worse.share_not_above_zero == 1.0
    weighted = paired_difference({"g": 0.0, "s": 0.0}, {"g": 1.0, "s": 0.0}, weights={"g": 3, "s": 1})
    assert weighted is not None and weighted.difference == pytest.approx(0.75)  # a 3-session group weighs 3
    assert paired_difference({"x": 1.0}, {"y": 1.0}) is None
    single = paired_difference({"x": 0.2}, {"x": 0.5})
    assert single is not None and single.interval is None and single.share_not_above_zero is None


def test_results_compare_pairs_two_agents_task_by_task(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    ids = {}
    for model in ("scripted:reference", "scripted:passive"):
        out = run_cli("sweep", "--json", "--data", str(MINI), "--models", model, "--runs", "2", "--db", str(db))
        assert out.exit_code == 0, out.output
        ids[model] = json.loads(out.stdout)["runs"][0]["sweep_id"]
    result = run_cli("results", ids["scripted:passive"], "--compare", ids["scripted:reference"], "--db", str(db), "--format", "json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert compared["proc"]["mean_a"] == 1.0 and compared["proc"]["mean_b"] == 0.0
    assert compared["proc"]["difference"] == -1.0 and compared["proc"]["share_not_above_zero"] == 1.0
    assert compared["proc"]["pairs"] >= 2 and compared["comp"]["pairs"] == 3
    table = run_cli("results", ids["scripted:passive"], "--compare", ids["scripted:reference"], "--db", str(db))
    assert table.exit_code == 0 and "-100.0" in table.stdout
    three = run_cli("results", ids["scripted:reference"], "--compare", "a", "b", "--db", str(db))  # one baseline, not two
    assert three.exit_code == 2 and "unexpected extra argument" in three.output


def test_sessions_that_leave_out_a_dependency_warn(tmp_path: Path) -> None:
    episode = load_episode(MINI, "mini").episode
    assert left_out_dependencies(episode, ["a2"]) == {"a2": ["a1"]}
    assert left_out_dependencies(episode, ["a1", "a2"]) == {}
    result = run_cli(
        "episode",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:reference",
        "--sessions",
        "a2",
        "--json",
        "--db",
        str(tmp_path / "r.db"),
    )
    assert "warning: --sessions leaves out a1, which a2 depends on" in result.stderr
