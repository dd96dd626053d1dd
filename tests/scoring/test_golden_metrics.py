"""Golden figures: a synthetic sweep whose every figure is worked out by hand from docs/metrics.md.

Two personas (alpha: groups of 1, 2 and 3 sessions; beta: groups of 1 and 2),
two ablation arms, two repeats, one errored session, one truncated session and
one partial run. The sessions' labels, grades and follow-up turns are written
to a real results database; ``pbench results`` must print exactly the figures
computed below, under the default and the π-Bench scoring.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import stdev
from typing import Any

import pytest
import yaml

from proactive_bench.data_model.trace import clipped_note
from proactive_bench.episode.launch import RunSpec
from proactive_bench.reporting.summary import summarize
from proactive_bench.scoring.metrics import PIBENCH_SCORING, t_975
from proactive_bench.store import (
    Grade,
    IntentEvent,
    MessageRow,
    Run,
    SessionRun,
    Store,
    Sweep,
    pending_row,
)
from tests.helpers.cli import run_cli

# persona -> session -> (category, depends_on, intents, items as (id, weight))
EPISODES: dict[str, dict[str, tuple[str, list[str], int, list[tuple[str, float]]]]] = {
    "alpha": {
        "A1": ("A", [], 2, [("a", 2.0), ("b", 1.0)]),
        "B1": ("A", [], 1, [("a", 1.0)]),
        "B2": ("B", ["B1"], 3, [("a", 1.0), ("b", 1.0), ("c", 2.0)]),
        "C1": ("B", [], 2, [("a", 1.0), ("b", 1.0)]),
        "C2": ("B", ["C1"], 2, [("a", 1.0)]),
        "C3": ("C", ["C2"], 1, [("a", 1.0), ("b", 1.0)]),
    },
    "beta": {
        "D1": ("A", [], 1, [("a", 1.0)]),
        "E1": ("A", [], 2, [("a", 1.0)]),
        "E2": ("B", ["E1"], 2, [("a", 1.0), ("b", 3.0)]),
    },
}

P, F, U, E = "pass", "fail", "ungraded", "error"
# One run: session -> (status, labels, grades by item, follow-up turns). Labels: C completed, I inferred, P provided.
Plan = dict[str, tuple[str, str, dict[str, str], int]]
ALL_PASS = {"a": P, "b": P, "c": P}
RUNS: list[tuple[str, str, str, Plan]] = [  # persona, ablation, run status, sessions
    (
        "alpha",
        "none",
        "finished",
        {
            "A1": ("completed", "CC", {"a": P, "b": F}, 0),
            "B1": ("completed", "I", {"a": P}, 1),
            "B2": ("completed", "CPP", {"a": P, "b": P, "c": F}, 2),
            "C1": ("completed", "CC", {"a": P, "b": U}, 0),
            "C2": ("error", "C", {}, 0),  # the label before the crash counts under π-Bench only; no grades stored
            "C3": ("completed", "C", {"a": P, "b": E}, 0),
        },
    ),
    (
        "alpha",
        "none",
        "finished",
        {
            "A1": ("completed", "CC", ALL_PASS, 0),
            "B1": ("completed", "C", ALL_PASS, 0),
            "B2": ("truncated", "CP", {"a": P, "b": F, "c": F}, 1),  # one intent never labelled
            "C1": ("completed", "CC", ALL_PASS, 0),
            "C2": ("completed", "CC", ALL_PASS, 0),
            "C3": ("completed", "C", ALL_PASS, 0),
        },
    ),
    ("alpha", "none", "stopped", {"A1": ("completed", "PP", {"a": F, "b": F}, 2)}),  # partial: left out
    (
        "alpha",
        "no-dependency-history",
        "finished",
        {
            "A1": ("completed", "CC", ALL_PASS, 0),
            "B2": ("completed", "CCC", ALL_PASS, 0),
            "C3": ("completed", "P", ALL_PASS, 1),
        },
    ),
    (
        "beta",
        "none",
        "finished",
        {
            "D1": ("completed", "I", {"a": P}, 1),
            "E1": ("completed", "PP", {"a": F}, 2),
            "E2": ("completed", "CC", {"a": P, "b": F}, 0),
        },
    ),
    (
        "beta",
        "none",
        "finished",
        {
            "D1": ("completed", "C", ALL_PASS, 0),
            "E1": ("completed", "CC", ALL_PASS, 0),
            "E2": ("completed", "CC", ALL_PASS, 0),
        },
    ),
    (
        "beta",
        "no-dependency-history",
        "finished",
        {
            "D1": ("completed", "P", ALL_PASS, 1),
            "E2": ("completed", "CC", ALL_PASS, 0),
        },
    ),
]
LABEL = {"C": "completed", "I": "inferred", "P": "provided"}
CLIPPED = (0, "B2")  # run 0, session B2: a long file was clipped for the user and the judge (first label, first item)
SWEEP = "golden"


def write_dataset(root: Path) -> None:
    (root / "personas").mkdir(parents=True)
    (root / "personas" / "tester.yaml").write_text("id: tester\nname: Robin Vale\nrole: A tester.\nvoice: Short.\n")
    for persona, sessions in EPISODES.items():
        folder = root / "episodes" / persona
        (folder / "sessions").mkdir(parents=True)
        (folder / "workspace").mkdir()
        entries = [{"id": sid, "depends_on": deps} for sid, (_, deps, _, _) in sessions.items()]
        (folder / "episode.yaml").write_text(yaml.safe_dump({"id": persona, "persona": "tester", "sessions": entries}))
        for sid, (category, _, intents, items) in sessions.items():
            session = {
                "id": sid,
                "title": f"task {sid}",
                "category": category,
                "trigger": {"type": "user", "message": f"Please do {sid}."},
                "intents": [{"id": f"i{n}", "text": f"requirement {n}"} for n in range(intents)],
                "checklist": [{"id": item, "text": f"item {item}", "grader": "rubric", "weight": weight} for item, weight in items],
            }
            (folder / "sessions" / f"{sid}.yaml").write_text(yaml.safe_dump(session))


def write_runs(store: Store, data: Path) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    store.add(Sweep(id=SWEEP, status="finished"))
    for n, (persona, ablation, status, plan) in enumerate(RUNS):
        episode = EPISODES[persona]
        planned = list(plan) if status == "finished" else list(RUNS[0][3])  # the stopped run meant to play all six
        spec = RunSpec(persona=persona, model="m", data_root=str(data), sessions=planned, ablation=ablation)  # type: ignore[arg-type]
        units = [[sid] for sid in planned]  # not read: the dataset gives the dependencies
        run = Run(
            persona=persona,
            model="m",
            user_backend="rules",
            data_root=str(data),
            workspace="",
            config=spec.model_dump(mode="json"),
            units=units,
            status=status,
            created=start + timedelta(minutes=n),
            sweep_id=SWEEP,
        )
        store.add(run)
        for position, (sid, (outcome, labels, grades, follow_ups)) in enumerate(plan.items(), start=1):
            rows = [pending_row(MessageRow, turn=0, role="user", content="opening")]
            rows += [pending_row(MessageRow, turn=t + 1, role="user", content="more") for t in range(follow_ups)]
            note = clipped_note([5000]) if (n, sid) == CLIPPED else ""
            rows += [
                pending_row(
                    IntentEvent,
                    intent_id=f"i{k}",
                    status=LABEL[c],
                    stage="s",
                    turn=1,
                    evidence=note if k == 0 else "",
                    decided_by="rules",
                    prompt_hash="",
                )
                for k, c in enumerate(labels)
            ]
            weights = dict(episode[sid][3])
            rows += [
                pending_row(
                    Grade,
                    item_id=item,
                    grader="rubric",
                    weight=weights[item],
                    score={P: 1, F: 0}.get(g),
                    rationale=note if item == "a" else "",
                    error="judge failed" if g == E else None,
                )
                for item, g in grades.items()
                if item in weights
            ]
            store.save_session(
                SessionRun(run_id=run.id, session_id=sid, position=position, intents=episode[sid][2], status=outcome, turns=1), rows, {}
            )


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden")
    write_dataset(root / "data")
    store = Store(root / "r.db")
    write_runs(store, root / "data")
    return root / "r.db"


# ---- the figures by hand (docs/metrics.md) ----
# alpha run 1: scored tasks A1 (T={A1}), B2 (T={B1,B2}), C3 (T={C1,C2,C3}); C2 errored: its 2 intents are not proactive
ALPHA1_PROC = (1 * (2 / 2) + 2 * ((1 + 1) / (1 + 3)) + 3 * ((2 + 0 + 1) / (2 + 2 + 1))) / (1 + 2 + 3)
# π-Bench scoring: the errored C2 is scored on what it left, its one completed label
ALPHA1_PROC_PI = (1 * (2 / 2) + 2 * ((1 + 1) / (1 + 3)) + 3 * ((2 + 1 + 1) / (2 + 2 + 1))) / (1 + 2 + 3)
# alpha run 2: B2 truncated with 1 of 3 intents proactive
ALPHA2_PROC = (1 * 1 + 2 * ((1 + 1) / (1 + 3)) + 3 * 1) / 6
# Comp, default: weighted items, errored items left out, ungraded left out, errored session 0, every task once
ALPHA1_COMP = ((2 / 3) + 1 + (2 / 4) + 1 + 0 + 1) / 6
ALPHA2_COMP = (1 + 1 + (1 / 4) + 1 + 1 + 1) / 6
BETA1_PROC = (1 * 1 + 2 * ((0 + 2) / (2 + 2))) / 3
BETA2_PROC = 1.0
BETA1_COMP = (1 + 0 + (1 / 4)) / 3
BETA2_COMP = 1.0
# π-Bench scoring: unweighted items, errored items 0, tasks weighed by trajectory size (A1 1, B1 1, B2 2, C1 1, C2 2, C3 3);
# the errored C2 left no grades (a session graded under π-Bench would have them): 0
ALPHA1_COMP_PI = (1 * (1 / 2) + 1 * 1 + 2 * (2 / 3) + 1 * 1 + 2 * 0 + 3 * (1 / 2)) / 10
ALPHA2_COMP_PI = (1 + 1 + 2 * (1 / 3) + 1 + 2 + 3) / 10
BETA1_COMP_PI = (1 * 1 + 1 * 0 + 2 * (1 / 2)) / 4


def stats(values: list[float]) -> Any:
    """The expected figures over runs. With two runs the bootstrap means are a, (a+b)/2 or b with
    probabilities 1/4, 1/2, 1/4, so its 2.5 % and 97.5 % quantiles over 2,000 resamples are the two runs."""
    s = stdev(values)
    expected = approx(
        {"mean": sum(values) / len(values), "std": s, "ci95": t_975(len(values) - 1) * s / len(values) ** 0.5, "n": len(values)}
    )
    boot = approx([min(values), max(values)]) if len(values) == 2 else None

    class Matches:
        def __eq__(self, actual: object) -> bool:
            assert isinstance(actual, dict)
            rest = {k: v for k, v in actual.items() if k != "boot95"}
            return bool(rest == expected) and (boot is None or actual["boot95"] == boot)

        def __repr__(self) -> str:
            return f"{expected!r} with boot95 {boot!r}"

    return Matches()


def approx(value: Any) -> Any:
    return pytest.approx(value, rel=1e-12, abs=1e-12)


@pytest.fixture(scope="module")
def default(db: Path) -> dict[str, Any]:
    store = Store(db)
    return summarize(store, store.runs(SWEEP)).as_dict()


def test_main_table_default(default: dict[str, Any]) -> None:
    main = {(r["persona"], r["ablation"]): r for r in default["main"]}
    alpha = main[("alpha", "none")]
    assert alpha["runs"] == 2 and alpha["partial_runs_left_out"] == 1
    assert alpha["failures"] == {"error": 1, "truncated": 1, "not_run": 0}
    assert alpha["clipped"] == {"intents": 1, "items": 1} and main[("beta", "none")]["clipped"] == {"intents": 0, "items": 0}
    assert alpha["proc"] == stats([ALPHA1_PROC, ALPHA2_PROC])
    assert alpha["comp"] == stats([ALPHA1_COMP, ALPHA2_COMP])
    # pass^k over the six sessions: passes in runs 1/2: A1 0/1, B1 1/1, B2 0/0, C1 1/1 (ungraded left out), C2 0/1 (error), C3 0/1 (errored item)
    assert alpha["pass^1"] == approx((0.5 + 1 + 0 + 1 + 0.5 + 0.5) / 6)
    assert alpha["pass^2"] == approx(2 / 6)
    beta = main[("beta", "none")]
    assert beta["failures"] == {"error": 0, "truncated": 0, "not_run": 0}
    assert beta["proc"] == stats([BETA1_PROC, BETA2_PROC]) and beta["comp"] == stats([BETA1_COMP, BETA2_COMP])
    # ablated runs: every trajectory is one session
    assert main[("alpha", "no-dependency-history")]["proc"] == {
        "mean": approx((1 + 1 + 0) / 3),
        "std": None,
        "ci95": None,
        "boot95": None,
        "n": 1,
    }
    assert main[("beta", "no-dependency-history")]["proc"]["mean"] == approx((0 + 1) / 2)
    assert main[("alpha", "no-dependency-history")]["comp"]["mean"] == 1.0


def test_table_1_average_pools_every_task_of_each_repeat(default: dict[str, Any]) -> None:
    (row,) = [r for r in default["overall"] if r["ablation"] == "none"]
    assert set(row["personas"]) == {"alpha", "beta"}
    avg_proc = [(6 * ALPHA1_PROC + 3 * BETA1_PROC) / 9, (6 * ALPHA2_PROC + 3 * BETA2_PROC) / 9]
    avg_comp = [(6 * ALPHA1_COMP + 3 * BETA1_COMP) / 9, (6 * ALPHA2_COMP + 3 * BETA2_COMP) / 9]
    assert row["average"]["proc"] == stats(avg_proc) and row["average"]["comp"] == stats(avg_comp)
    assert row["average"]["failures"] == {"error": 1, "truncated": 1, "not_run": 0}


def test_statuses_and_turns_are_split_by_persona_and_arm(default: dict[str, Any]) -> None:
    statuses = {(r["persona"], r["ablation"]): r for r in default["statuses"]}
    alpha = statuses[("alpha", "none")]
    # 22 intents over two runs: completed 6 + 9, inferred 1, provided 2 + 1, unresolved 2 (errored C2) + 1 (truncated B2)
    assert alpha["intents"] == approx({"completed": 15 / 22, "inferred": 1 / 22, "provided": 3 / 22, "unresolved": 3 / 22})
    assert alpha["sessions"] == {"completed": 10, "truncated": 1, "error": 1, "not_run": 0}
    assert statuses[("alpha", "no-dependency-history")]["intents"]["provided"] == approx(1 / 6)
    turns = {(r["persona"], r["ablation"]): r for r in default["turns"]}
    follow_ups = [0, 1, 2, 0, 0] + [0, 0, 1, 0, 0, 0]  # the errored session is left out
    assert turns[("alpha", "none")] == {
        "model": "m",
        "persona": "alpha",
        "ablation": "none",
        "sessions": len(follow_ups),
        "mean": approx(sum(follow_ups) / len(follow_ups)),
        "median": 0,
        "max": 2,
        "histogram": {0: 8, 1: 2, 2: 1},
    }


def test_ablation_compares_final_sessions_own_figures(default: dict[str, Any]) -> None:
    alpha = next(r for r in default["ablation"] if r["persona"] == "alpha")
    assert alpha["sessions"] == ["B2", "C3"]
    assert alpha["proc_with_history"] == approx((1 / 3 + 1 + 1 / 3 + 1) / 4) and alpha["proc_without_history"] == approx((1 + 0) / 2)
    assert alpha["proc_delta"] == approx(0.5 - 2 / 3)
    assert alpha["comp_with_history"] == approx((2 / 4 + 1 + 1 / 4 + 1) / 4) and alpha["comp_without_history"] == 1.0
    assert alpha["failures"] == {"error": 0, "truncated": 1, "not_run": 0}  # B2 of run 2


def test_categories_average_tasks_and_add_up_to_the_headline(default: dict[str, Any]) -> None:
    cells = {r["category"]: r for r in default["categories"] if r["ablation"] == "none"}
    # A: A1 and D1 are scored for Proc (weight 1 each, Proc 1 in every run); B1, E1 enter through B2, E2
    assert cells["A"]["proc"] == 1.0 and cells["A"]["tasks"] == 8
    assert cells["A"]["comp"] == approx((2 / 3 + 1 + 1 + 0 + 1 + 1 + 1 + 1) / 8)
    assert cells["B"]["proc"] == approx((2 * 0.5 + 2 * 0.5 + 2 * 0.5 + 2 * 1) / 8)
    assert cells["B"]["comp"] == approx((0.5 + 1 + 0 + 0.25 + 0.25 + 1 + 1 + 1) / 8)
    assert cells["C"]["proc"] == approx((3 * 0.6 + 3 * 1) / 6) and cells["C"]["comp"] == 1.0
    assert cells["B"]["failures"] == {"error": 1, "truncated": 1, "not_run": 0} and cells["A"]["failures"]["error"] == 0


def test_pibench_scoring_changes_comp_and_the_errored_session_s_proc(db: Path) -> None:
    store = Store(db)
    summary = summarize(store, store.runs(SWEEP), PIBENCH_SCORING).as_dict()
    main = {(r["persona"], r["ablation"]): r for r in summary["main"]}
    assert summary["scoring"] == "pibench"
    assert main[("alpha", "none")]["proc"] == stats([ALPHA1_PROC_PI, ALPHA2_PROC])
    assert main[("beta", "none")]["proc"] == stats([BETA1_PROC, BETA2_PROC])
    assert main[("alpha", "none")]["comp"] == stats([ALPHA1_COMP_PI, ALPHA2_COMP_PI])
    assert main[("beta", "none")]["comp"] == stats([BETA1_COMP_PI, 1.0])


def test_the_cli_prints_the_same_figures(db: Path, default: dict[str, Any]) -> None:
    store = Store(db)
    run_id = next(r.id for r in store.runs(SWEEP) if r.persona == "beta" and r.status == "finished")
    out = run_cli("results", run_id, "--db", str(db), "--format", "json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["main"][0]["proc"]["mean"] == approx(BETA1_PROC)
    by_category = run_cli("results", run_id, "--db", str(db), "--by", "category", "--format", "json")
    assert {r["category"]: r["tasks"] for r in json.loads(by_category.stdout)} == {"A": 2, "B": 1}


def test_the_report_keys_figures_by_model_and_persona_and_marks_failures(db: Path) -> None:
    from proactive_bench.reporting.html import render_report
    from proactive_bench.reporting.html.figures import proc_vs_comp, turns_vs_proc

    store = Store(db)
    summary = summarize(store, store.runs(SWEEP))
    for figure in (proc_vs_comp(summary), turns_vs_proc(summary)):
        assert figure is not None and "m · alpha †" in figure and "m · beta" in figure and "m · beta †" not in figure
    html = render_report(store, SWEEP).pages()["index.html"]
    assert "Average" in html and "partial left out" in html and "1/1/0" in html
    table = run_cli("results", SWEEP, "--db", str(db), "--by", "category")
    assert "62.5 / 62.5 (n=8) †" in " ".join(table.stdout.split())  # category Y, the same figures as in the report
    assert "62.5 / 62.5 †" in html
