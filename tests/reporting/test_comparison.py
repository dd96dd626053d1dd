"""``pbench results B --compare A``: the difference, interval and p-value against a computation written out here,
the tasks only one side has, and flip rates between repeats as the noise floor."""

from __future__ import annotations

import csv
import json
from itertools import product
from pathlib import Path
from statistics import mean, quantiles

import numpy as np
import pytest

from proactive_bench.store import Store
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.helpers.stored_runs import Played, StoredRuns

DEPENDS_ON = {"s2": ["s1"]}
# Two repeats a side. s7 has no intents (Comp only); s8 only A played, s9 only B.
SIDE_A = [
    {
        "s1": Played("CP", "pf"),
        "s2": Played("C", "p"),
        "s3": Played("CI", "pp"),
        "s4": Played("P", "f"),
        "s5": Played("CP", "pp"),
        "s6": Played("-C", "pf"),
        "s7": Played("", "pf"),
        "s8": Played("C", "p"),
    },
    {
        "s1": Played("CC", "pp"),
        "s2": Played("P", "p"),
        "s3": Played("CI", "pf"),
        "s4": Played("P", "f"),
        "s5": Played("CP", "pp"),
        "s6": Played("CC", "pp"),
        "s7": Played("", "pp"),
        "s8": Played("C", "p"),
    },
]
SIDE_B = [
    {
        "s1": Played("CC", "pp"),
        "s2": Played("C", "p"),
        "s3": Played("CC", "pp"),
        "s4": Played("C", "p"),
        "s5": Played("PP", "ff"),
        "s6": Played("CC", "pp"),
        "s7": Played("", "pp"),
        "s9": Played("C", "p"),
    },
    {
        "s1": Played("CC", "pp"),
        "s2": Played("C", "p"),
        "s3": Played("CC", "pp"),
        "s4": Played("P", "p"),
        "s5": Played("CP", "pf"),
        "s6": Played("CC", "pp"),
        "s7": Played("", "pp"),
        "s9": Played("C", "p"),
    },
]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("compare") / "r.db"
    runs = StoredRuns(Store(db), DEPENDS_ON)
    for sweep, model, side in (("sweep-a", "alpha", SIDE_A), ("sweep-b", "beta", SIDE_B)):
        runs.sweep(sweep)
        for sessions in side:
            runs.run(model, sessions, sweep_id=sweep)
    return db


# ---- the figures computed here, from the sessions above (docs/metrics.md) ----


def proactive(labels: str) -> int:
    return sum(c in "CI" for c in labels)


def task_figures(run: dict[str, Played]) -> dict[str, dict[str, tuple[float, int]]]:
    """Per figure, each task's value and weight in one run: Proc pools a task's trajectory (s2 with s1, weight 2)."""
    depended_on = {d for deps in DEPENDS_ON.values() for d in deps}
    proc, comp = {}, {}
    for sid, played in run.items():
        trajectory = [*DEPENDS_ON.get(sid, []), sid]
        intents = sum(len(run[t].labels) for t in trajectory)
        if sid not in depended_on and intents:
            proc[sid] = (sum(proactive(run[t].labels) for t in trajectory) / intents, len(trajectory))
        if played.items:
            comp[sid] = (played.items.count("p") / len(played.items), 1)
    return {"proc": proc, "comp": comp}


def side_figures(side: list[dict[str, Played]], figure: str) -> tuple[dict[str, float], dict[str, int]]:
    """Each task's mean over the side's runs, and its weight."""
    per_run = [task_figures(run)[figure] for run in side]
    tasks = list(dict.fromkeys(sid for figures in per_run for sid in figures))
    return {t: mean(f[t][0] for f in per_run) for t in tasks}, {t: per_run[0][t][1] for t in tasks}


def expected(figure: str) -> dict[str, object]:
    (a, weights), (b, _) = side_figures(SIDE_A, figure), side_figures(SIDE_B, figure)
    shared = [t for t in a if t in b]  # in session order
    diffs = [b[t] - a[t] for t in shared]
    w = [weights[t] for t in shared]
    observed = sum(x * y for x, y in zip(w, diffs, strict=True)) / sum(w)
    # the permutation p: every sign assignment, enumerated
    flips = [abs(sum(s * x * y for s, x, y in zip(signs, w, diffs, strict=True))) / sum(w) for signs in product((1, -1), repeat=len(diffs))]
    p = sum(f >= abs(observed) - 1e-12 for f in flips) / len(flips)
    # the bootstrap interval: 2,000 resamples of the shared tasks (a seeded generator's index rows), percentiles 2.5 and 97.5
    rows = np.random.default_rng(0).integers(0, len(shared), size=(2000, len(shared)))
    means = sorted(sum(w[i] * diffs[i] for i in row) / sum(w[i] for i in row) for row in rows)
    cuts = quantiles(means, n=40, method="inclusive")
    return {
        "difference": observed,
        "mean_a": sum(x * a[t] for x, t in zip(w, shared, strict=True)) / sum(w),
        "mean_b": sum(x * b[t] for x, t in zip(w, shared, strict=True)) / sum(w),
        "interval": [cuts[0], cuts[-1]],
        "p_value": p,
        "pairs": len(shared),
        "permutations": 2 ** sum(d != 0 for d in diffs),
    }


def test_difference_interval_and_p_match_the_computation_here(stored: Path) -> None:
    result = run_cli("results", "sweep-b", "--compare", "sweep-a", "--db", str(stored), "--format", "json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert (compared["a"], compared["b"]) == ("sweep-a", "sweep-b") and compared["models"] == {"a": ["alpha"], "b": ["beta"]}
    for figure in ("proc", "comp"):
        want = expected(figure)
        got = compared[figure]
        assert got["p_method"] == "exact"
        for key, value in want.items():
            assert got[key] == pytest.approx(value), (figure, key)
    assert compared["proc"]["pairs"] == 5 and compared["comp"]["pairs"] == 7  # s1 enters Proc through s2 only; s7 has no intents
    assert 0 < compared["proc"]["p_value"] < 1 and compared["proc"]["interval"][0] < compared["proc"]["interval"][1]


def test_tasks_only_one_side_played_are_listed(stored: Path) -> None:
    compared = json.loads(run_cli("results", "sweep-b", "--compare", "sweep-a", "--db", str(stored), "--json").stdout)
    assert compared["tasks_differ"] is True
    assert compared["only_a"] == [{"persona": "tester", "ablation": "none", "session_id": "s8"}]
    assert compared["only_b"] == [{"persona": "tester", "ablation": "none", "session_id": "s9"}]
    assert (compared["proc"]["only_a"], compared["proc"]["only_b"]) == (1, 1)
    table = run_cli("results", "sweep-b", "--compare", "sweep-a", "--db", str(stored)).stdout
    assert "The task sets differ: 1 only in A, 1 only in B" in " ".join(table.split())
    listed = table[table.index("Tasks on one side only") :]
    assert "s8" in listed and "s9" in listed


def test_flip_rates_are_the_noise_floor_and_mark_smaller_differences(stored: Path) -> None:
    compared = json.loads(run_cli("results", "sweep-b", "--compare", "sweep-a", "--db", str(stored), "--json").stdout)
    # alpha: s1, s2, s6 change labels, s1, s3, s6, s7 their verdict: 5 of 8; beta: s4 and s5 change labels, no verdict (s5 fails twice)
    (alpha,) = compared["flips"]["a"]
    (beta,) = compared["flips"]["b"]
    assert (alpha["tasks"], alpha["flipped"], alpha["verdict_flips"], alpha["label_flips"]) == (8, 5, 4, 3)
    assert (beta["tasks"], beta["flipped"], beta["verdict_flips"], beta["label_flips"]) == (8, 2, 0, 2)
    assert compared["noise_floor"] == pytest.approx(5 / 8)
    for figure in ("proc", "comp"):
        assert compared[figure]["below_noise_floor"] == (abs(compared[figure]["difference"]) < 5 / 8)
    assert compared["comp"]["below_noise_floor"] is True
    table = run_cli("results", "sweep-b", "--compare", "sweep-a", "--db", str(stored)).stdout
    assert "(62.5 %); ~ marks |Δ| below it" in " ".join(table.split())
    rows = {line.split()[0]: line for line in table.splitlines() if line.startswith(("Proc ", "Comp "))}
    assert all(("~" in rows[name]) == compared[figure]["below_noise_floor"] for name, figure in (("Proc", "proc"), ("Comp", "comp")))


def test_a_three_repeat_sweep_shows_each_models_flip_rate(tmp_path: Path) -> None:
    runs = StoredRuns(Store(tmp_path / "r.db"), DEPENDS_ON)
    runs.sweep("three")
    plays = {  # per repeat: steady never changes; shaky changes s1's labels once and s3's verdict once
        "steady": [{"s1": Played("CP", "pp"), "s2": Played("C", "p"), "s3": Played("P", "f")}] * 3,
        "shaky": [
            {"s1": Played("CP", "pp"), "s2": Played("C", "p"), "s3": Played("P", "p")},
            {"s1": Played("CC", "pp"), "s2": Played("C", "p"), "s3": Played("P", "p")},
            {"s1": Played("CP", "pp"), "s2": Played("C", "p"), "s3": Played("P", "f")},
        ],
    }
    for model, repeats in plays.items():
        for sessions in repeats:
            runs.run(model, sessions, sweep_id="three")
    result = run_cli("results", "three", "--db", str(tmp_path / "r.db"), "--json")
    flips = {row["model"]: row for row in json.loads(result.stdout)["flips"]}
    assert flips["steady"] == {
        "model": "steady",
        "tasks": 3,
        "flipped": 0,
        "verdict_flips": 0,
        "label_flips": 0,
        "repeats": 3,
        "rate": 0.0,
    }
    assert (flips["shaky"]["flipped"], flips["shaky"]["label_flips"], flips["shaky"]["verdict_flips"]) == (2, 1, 1)
    assert flips["shaky"]["rate"] == pytest.approx(2 / 3)
    table = run_cli("results", "three", "--db", str(tmp_path / "r.db")).stdout
    assert "each model's noise floor" in table and "66.7" in table


def test_a_single_run_has_no_flip_rate(tmp_path: Path) -> None:
    runs = StoredRuns(Store(tmp_path / "r.db"), DEPENDS_ON)
    one = runs.run("solo", {"s1": Played("C", "p")})
    summary = json.loads(run_cli("results", one.id, "--db", str(tmp_path / "r.db"), "--json").stdout)
    assert summary["flips"] == []
    assert "noise floor" not in run_cli("results", one.id, "--db", str(tmp_path / "r.db")).stdout


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """Scripted agents on the mini episode: two 3-repeat sweeps and a run of its first two sessions only."""
    db = tmp_path_factory.mktemp("swept") / "r.db"
    ids = {}
    for model in ("scripted:reference", "scripted:surface"):
        out = run_cli("sweep", "--json", "--data", str(MINI), "--models", model, "--runs", "3", "--db", str(db))
        assert out.exit_code == 0, out.output
        ids[model] = json.loads(out.stdout)["runs"][0]["sweep_id"]
    out = run_cli(
        "episode",
        "--json",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:reference",
        "--sessions",
        "a1,a2",
        "--db",
        str(db),
    )
    assert out.exit_code == 0, out.output
    ids["part"] = json.loads(out.stdout)["run_id"]
    return db, ids


def exported_tasks(db: Path, ident: str, tmp_path: Path) -> tuple[dict[str, dict[str, list[float]]], dict[str, float]]:
    """Per figure, each task's values over the runs of ``ident``, and its Proc weight, read from the exported intents table (CSV)."""
    out = tmp_path / f"{ident}.csv"
    assert run_cli("export", ident, "--table", "intents", "--format", "csv", "-o", str(out), "--db", str(db)).exit_code == 0
    seen: dict[str, dict[str, list[float]]] = {"proc": {}, "comp": {}}
    weights: dict[str, float] = {}
    with out.open() as handle:
        sessions = {(row["run_id"], row["session_id"]): row for row in csv.DictReader(handle)}  # one per session: its figures
    for row in sessions.values():
        if int(row["proc_weight"]) and row["task_proc"]:
            seen["proc"].setdefault(row["session_id"], []).append(float(row["task_proc"]))
            weights[row["session_id"]] = float(row["proc_weight"])
        if row["comp"]:
            seen["comp"].setdefault(row["session_id"], []).append(float(row["comp"]))
    return seen, weights


def test_two_scripted_sweeps_compare_as_their_exports_say(swept: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, ids = swept
    result = run_cli("results", ids["scripted:surface"], "--compare", ids["scripted:reference"], "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    (a, weights), (b, _) = exported_tasks(db, ids["scripted:reference"], tmp_path), exported_tasks(db, ids["scripted:surface"], tmp_path)
    for figure in ("proc", "comp"):
        shared = [t for t in a[figure] if t in b[figure]]
        w = [weights[t] if figure == "proc" else 1.0 for t in shared]
        diffs = [mean(b[figure][t]) - mean(a[figure][t]) for t in shared]
        observed = sum(x * d for x, d in zip(w, diffs, strict=True)) / sum(w)
        flips = [abs(sum(s * x * d for s, x, d in zip(signs, w, diffs, strict=True))) for signs in product((1, -1), repeat=len(diffs))]
        p = sum(f >= abs(observed) * sum(w) - 1e-12 for f in flips) / len(flips)
        assert compared[figure]["difference"] == pytest.approx(observed) and compared[figure]["p_value"] == pytest.approx(p)
        assert compared[figure]["interval"] == pytest.approx([observed, observed])  # the same difference on every task
    assert compared["proc"]["difference"] == pytest.approx(-1.0) and compared["comp"]["difference"] < 0
    assert [f["rate"] for f in compared["flips"]["a"] + compared["flips"]["b"]] == [0.0, 0.0]  # scripts do not waver
    assert compared["noise_floor"] == 0.0 and compared["proc"]["below_noise_floor"] is False and not compared["tasks_differ"]


def test_a_run_of_fewer_sessions_is_compared_on_the_shared_ones(swept: tuple[Path, dict[str, str]]) -> None:
    db, ids = swept
    compared = json.loads(run_cli("results", ids["part"], "--compare", ids["scripted:reference"], "--db", str(db), "--json").stdout)
    assert compared["tasks_differ"] and compared["only_b"] == []
    assert compared["only_a"] == [{"persona": "tester", "ablation": "none", "session_id": "a3"}]
    assert compared["comp"]["pairs"] == 2 and compared["comp"]["only_a"] == 1
    assert compared["flips"]["b"] == [] and compared["noise_floor"] == 0.0  # one run: no repeats on B


def test_the_old_spelling_means_the_same(swept: tuple[Path, dict[str, str]]) -> None:
    db, ids = swept
    new = run_cli("results", ids["scripted:surface"], "--compare", ids["scripted:reference"], "--db", str(db), "--json")
    old = run_cli("results", "--compare", ids["scripted:reference"], ids["scripted:surface"], "--db", str(db), "--json")
    assert old.exit_code == 0 and json.loads(old.stdout) == json.loads(new.stdout)
    assert json.loads(old.stdout)["a"] == ids["scripted:reference"]
    alone = run_cli("results", "--compare", ids["scripted:reference"], "--db", str(db))
    assert alone.exit_code == 2 and "give a sweep or run ID" in alone.stderr
    by = run_cli("results", ids["part"], "--compare", ids["scripted:reference"], "--by", "category", "--db", str(db))
    assert by.exit_code == 2 and "--compare prints a table or JSON" in by.stderr
