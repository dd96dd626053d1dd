"""Every table and figure of the π-Bench paper's evaluation section from one sweep, checked against figures worked out by hand.

The synthetic release ``tests/data/pibench_golden`` (two personas, five tasks, one dependency group) is
imported, then swept as the paper did (``pbench sweep --runs 3``) under ``--protocol pibench`` and under
the default protocol, with the stub model server as the simulated user and the judge and two scripted
agents (``tests/helpers/golden_agent.py``): ``Attentive`` meets, claims and asks about different hidden
intents in each of its three runs, and crashes once; ``Quiet`` never does anything. The expected numbers
below follow the official formulas (docs/metrics.md, docs/pibench-protocol.md), with the arithmetic in
the comments: table 1 (per persona and Average, mean and sample std over the three runs), table 7 and
figure 4 (one row / point per model), table 8 (the release's categories, ``unavailable`` where it gives
none) and table 6 (``pbench audit``); in ``pbench results`` (JSON and terminal) and in the HTML report.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from statistics import mean, stdev
from typing import Any

import pytest

from proactive_bench.reporting.html import render_report
from proactive_bench.store import Store
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    error_reply,
    open_requirement_ids,
    prompt_section,
    prompt_text,
    structured_reply,
    text_reply,
)
from tests.helpers.cli import run_cli
from tests.helpers.golden_agent import Attentive
from tests.helpers.paths import REPO

GOLDEN = REPO / "tests" / "data" / "pibench_golden"
ATTENTIVE, QUIET = "tests.helpers.golden_agent:Attentive", "tests.helpers.golden_agent:Quiet"


class GoldenModels:
    """The user and the judge, reading the agent's markers.

    - Completion: an open intent ``hN`` is met when ``[hN] done`` (the notes file) or ``handled [hN]`` (the reply) is in
      what that user's completion check reads: under
      ``pibench`` the latest message and the task's files (so a claim in the reply counts), by default the turn's tool
      calls and changed files (so only the work counts).
    - Targeting: ``[hN]?`` in the questions the user may count (by default the screened ones; under ``pibench`` the
      latest message).
    - The rubric judge: YES when the criterion's ``[kN]`` marker is in the files it is shown.
    """

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        ids = open_requirement_ids(prompt)
        if "already satisfied" in prompt:
            if "## The task's files (current contents)" in prompt:
                seen = prompt_section(prompt, "The assistant's latest message") + prompt_section(
                    prompt, "The task's files (current contents)"
                )
            else:
                seen = prompt_section(prompt, "Tool calls in the latest assistant turn") + prompt_section(
                    prompt, "Files created or changed in the latest turn"
                )
            met = [i for i in ids if f"[{i}] done" in seen or f"handled [{i}]" in seen]
            return structured_reply(body, {"findings": [{"intent_id": i, "completed": i in met, "evidence": "marker"} for i in ids]})
        if "asks a question that targets" in prompt:
            questions = prompt_section(prompt, "Questions that may count") or prompt_section(prompt, "The assistant's latest message")
            findings = [{"intent_id": i, "targeted": f"[{i}]?" in questions, "question": f"Should I also handle [{i}]?"} for i in ids]
            return structured_reply(body, {"findings": findings, "relevance_order": ids})
        if "role-playing the user" in prompt:
            return text_reply("Here is one more thing I need.")
        if "grading an AI assistant" in prompt:
            marker = re.search(r"\[k\d\]", prompt_section(prompt, "Checklist item"))
            met = marker is not None and marker.group(0) in prompt_section(prompt, "Files")
            return structured_reply(body, {"rationale": "marker", "verdict": "YES" if met else "NO"})
        return error_reply(400, "unexpected prompt")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("golden") / "imported"
    result = run_cli("import", "pibench", str(GOLDEN), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def sweep(release: Path, db: Path, *protocol: str) -> str:
    """``pbench sweep --runs 3`` of both agents over both personas, one episode at a time; the sweep's id."""
    Attentive.starts.clear()
    with StubServer(GoldenModels()) as server:
        result = run_cli(
            "sweep",
            "--data",
            str(release),
            "--models",
            f"{ATTENTIVE},{QUIET}",
            "--runs",
            "3",
            "--concurrency",
            "1",
            "--user",
            "llm",
            "--user-model",
            "openai:stub-user",
            "--judge-model",
            "openai:stub-judge",
            "--base-url",
            server.base_url,
            "--db",
            str(db),
            "--json",
            *protocol,
        )
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["runs"][0]["sweep_id"])


@pytest.fixture(scope="module")
def swept(release: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Both protocols' sweeps: protocol -> (database, sweep id)."""
    folder = tmp_path_factory.mktemp("sweeps")
    return {
        "pibench": (folder / "pi.db", sweep(release, folder / "pi.db", "--protocol", "pibench")),
        "pbench": (folder / "default.db", sweep(release, folder / "default.db")),
    }


def results(swept: dict[str, tuple[Path, str]], protocol: str) -> dict[str, Any]:
    db, sweep_id = swept[protocol]
    out = run_cli("results", sweep_id, "--db", str(db), "--json")
    assert out.exit_code == 0, out.output
    return dict(json.loads(out.stdout))


def approx(value: Any) -> Any:
    return pytest.approx(value, rel=1e-9, abs=1e-12)


def over_runs(values: list[float]) -> dict[str, Any]:
    """Mean and sample standard deviation (n - 1) over the three runs."""
    return {"mean": approx(mean(values)), "std": approx(stdev(values)), "n": len(values)}


def stats_of(figure: dict[str, Any]) -> dict[str, Any]:
    return {k: figure[k] for k in ("mean", "std", "n")}


# ---- the figures by hand ------------------------------------------------------------------------------------------
# Intents: G1 3, G2 2, G3 2 (G3 depends on G2: one trajectory {G2, G3} of weight 2), B1 3, B2 2.
# Checklist (weight): G1 k1 (2), k2 (1); G3 k1 (1), k2 (1), k3 (2); B1 k1 (1), k2 (3); B2 k1 (1). G2 has none.
# Each turn the user labels open intents: met -> completed; else targeted -> inferred (and answered); else the first
# open one -> provided. Every inferred/provided turn sends one follow-up message, so follow-ups = [asked] + provided.
#
# Attentive, run by run (C/I/P per session; Comp = passed weight / weight by default, passed / items under pibench):
#   r0: G1 do h1, ask h2, pass k1 k2        -> C1 I1 P1, 2 follow-ups, Comp 1
#       G2 do h1                            -> C1 P1, 1
#       G3 do h1, ask h2, pass k1 k2 k3     -> C1 I1, 1, Comp 1
#       B1 do h1 h2 h3, pass k1 k2          -> C3, 0, Comp 1
#       B2 claim h1, ask h2, pass k1        -> pibench C1 I1, 1 follow-up; default (a claim is not work) I1 P1, 2; Comp 1
#   r1: G1 do h1 h2 h3, pass k1             -> C3, 0; Comp default 2/3, pibench 1/2
#       G2 ask h1 h2                        -> I2, 1
#       G3 pass k1                          -> P2, 2; Comp default 1/4, pibench 1/3
#       B1 ask h1, pass k2                  -> I1 P2, 3; Comp default 3/4, pibench 1/2
#       B2 nothing                          -> P2, 2; Comp 0
#   r2: G1 claim h1, pass k2                -> pibench C1 P2, 2 follow-ups; default P3, 3; Comp default 1/3, pibench 1/2
#       G2 nothing                          -> P2, 2
#       G3 do h1 h2, pass k2 k3             -> C2, 0; Comp default 3/4, pibench 2/3
#       B1 do h1, pass k1, crash at turn 2  -> error after turn 1's C1 P1 (h3 unresolved). default: Proc 0, Comp 0;
#                                              pibench: its labels (1/3) and its partial trace graded (k1 of 2: 1/2)
#       B2 do h2, pass k1                   -> C1 P1, 1; Comp 1
# Quiet: every intent provided (follow-ups = intents), no file: Proc 0, Comp 0 in every run.

# Run Proc, Gardener = (1·Proc(G1) + 2·Proc(G2+G3 pooled)) / 3; baker = mean(Proc(B1), Proc(B2)).
GARDENER_PROC = {
    "pibench": [(2 / 3 + 2 * (3 / 4)) / 3, (1 + 2 * (2 / 4)) / 3, (1 / 3 + 2 * (2 / 4)) / 3],  # 13/18, 2/3, 4/9
    "pbench": [(2 / 3 + 2 * (3 / 4)) / 3, (1 + 2 * (2 / 4)) / 3, (0 + 2 * (2 / 4)) / 3],  # 13/18, 2/3, 1/3
}
BAKER_PROC = {
    "pibench": [(1 + 1) / 2, (1 / 3 + 0) / 2, (1 / 3 + 1 / 2) / 2],  # 1, 1/6, 5/12
    "pbench": [(1 + 1 / 2) / 2, (1 / 3 + 0) / 2, (0 + 1 / 2) / 2],  # 3/4, 1/6, 1/4
}
# Run Comp: default = mean over the tasks with a checklist; pibench weighs each by its trajectory (G3: 2).
GARDENER_COMP = {
    "pibench": [(1 + 2 * 1) / 3, (1 / 2 + 2 * (1 / 3)) / 3, (1 / 2 + 2 * (2 / 3)) / 3],  # 1, 7/18, 11/18
    "pbench": [(1 + 1) / 2, (2 / 3 + 1 / 4) / 2, (1 / 3 + 3 / 4) / 2],  # 1, 11/24, 13/24
}
BAKER_COMP = {
    "pibench": [(1 + 1) / 2, (1 / 2 + 0) / 2, (1 / 2 + 1) / 2],  # 1, 1/4, 3/4
    "pbench": [(1 + 1) / 2, (3 / 4 + 0) / 2, (0 + 1) / 2],  # 1, 3/8, 1/2
}
# Table 1 Average of run r: every persona's tasks of run r pooled. Proc: G1 (1), G2+G3 (2), B1 (1), B2 (1) over 5.
AVERAGE_PROC = {
    "pibench": [(2 / 3 + 2 * (3 / 4) + 1 + 1) / 5, (1 + 2 * (1 / 2) + 1 / 3 + 0) / 5, (1 / 3 + 2 * (1 / 2) + 1 / 3 + 1 / 2) / 5],
    "pbench": [(2 / 3 + 2 * (3 / 4) + 1 + 1 / 2) / 5, (1 + 2 * (1 / 2) + 1 / 3 + 0) / 5, (0 + 2 * (1 / 2) + 0 + 1 / 2) / 5],
}  # pibench 5/6, 7/15, 13/30; default 11/15, 7/15, 3/10
AVERAGE_COMP = {
    "pibench": [(1 + 2 * 1 + 1 + 1) / 5, (1 / 2 + 2 * (1 / 3) + 1 / 2 + 0) / 5, (1 / 2 + 2 * (2 / 3) + 1 / 2 + 1) / 5],  # 1, 1/3, 2/3
    "pbench": [(1 + 1 + 1 + 1) / 4, (2 / 3 + 1 / 4 + 3 / 4 + 0) / 4, (1 / 3 + 3 / 4 + 0 + 1) / 4],  # 1, 5/12, 25/48
}
# Table 7, Attentive: 12 intents a run, 36 in all. pibench: r0 C7 I3 P2, r1 C3 I3 P6, r2 C5 I0 P6 + 1 unresolved.
# Default: r0 C6 I3 P3 (B2's claim is not work), r1 the same as pibench, r2 C3 P6 and B1's 3 intents unresolved (error).
STATUSES = {
    "pibench": {"completed": 15 / 36, "inferred": 6 / 36, "provided": 14 / 36, "unresolved": 1 / 36},
    "pbench": {"completed": 12 / 36, "inferred": 6 / 36, "provided": 15 / 36, "unresolved": 3 / 36},
}
# Figure 4, Attentive: follow-ups of the 14 sessions that did not error. pibench r0 2+1+1+0+1, r1 0+1+2+3+2, r2 2+2+0+1;
# default r0 2+1+1+0+2, r1 the same, r2 3+2+0+1. Quiet: 3+2+2+3+2 = 12 a run over 5 sessions.
TURNS = {"pibench": (5 + 8 + 5) / 14, "pbench": (6 + 8 + 6) / 14}
# Table 8, Attentive: each category's tasks over the three runs, Run Proc / Run Comp applied to them.
CATEGORIES = {
    "pibench": {
        "R": (mean([2 / 3, 1, 1 / 3]), mean([1, 1 / 2, 1 / 2]), 3),  # G1
        "Q": (mean([3 / 4, 1 / 2, 1 / 2]), mean([1, 1 / 3, 2 / 3]), 6),  # G3's trajectory (G2 enters through it)
        "unavailable": (mean([1, 1, 1 / 3, 0, 1 / 3, 1 / 2]), mean([1, 1, 1 / 2, 0, 1 / 2, 1]), 6),  # baker: no category
    },
    "pbench": {
        "R": (mean([2 / 3, 1, 0]), mean([1, 2 / 3, 1 / 3]), 3),
        "Q": (mean([3 / 4, 1 / 2, 1 / 2]), mean([1, 1 / 4, 3 / 4]), 6),
        "unavailable": (mean([1, 1 / 2, 1 / 3, 0, 0, 1 / 2]), mean([1, 1, 3 / 4, 0, 0, 1]), 6),
    },
}
PROTOCOLS = ("pibench", "pbench")


def rows_of(rows: list[dict[str, Any]], model: str, **where: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["model"].endswith(model) and all(r[k] == v for k, v in where.items())]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_each_run_and_table_1_per_persona_and_average(swept: dict[str, tuple[Path, str]], protocol: str) -> None:
    out = results(swept, protocol)
    assert out["scoring"] == protocol
    for persona, proc, comp in (("Gardener", GARDENER_PROC, GARDENER_COMP), ("baker", BAKER_PROC, BAKER_COMP)):
        runs = rows_of(out["runs"], ":Attentive", persona=persona)  # in creation order: run r played repeat r
        assert [(r["proc"], r["comp"]) for r in runs] == [approx(pair) for pair in zip(proc[protocol], comp[protocol], strict=True)]
        (main,) = rows_of(out["main"], ":Attentive", persona=persona)
        assert stats_of(main["proc"]) == over_runs(proc[protocol]) and stats_of(main["comp"]) == over_runs(comp[protocol])
    (row,) = rows_of(out["overall"], ":Attentive")
    assert set(row["personas"]) == {"Gardener", "baker"}
    assert stats_of(row["personas"]["Gardener"]["proc"]) == over_runs(GARDENER_PROC[protocol])
    assert stats_of(row["average"]["proc"]) == over_runs(AVERAGE_PROC[protocol])
    assert stats_of(row["average"]["comp"]) == over_runs(AVERAGE_COMP[protocol])
    assert row["average"]["failures"] == {"error": 1, "truncated": 0, "not_run": 0}
    (quiet,) = rows_of(out["overall"], ":Quiet")
    assert (quiet["average"]["proc"]["mean"], quiet["average"]["proc"]["std"], quiet["average"]["comp"]["mean"]) == (0, 0, 0)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_table_7_and_figure_4_have_one_row_per_model(swept: dict[str, tuple[Path, str]], protocol: str) -> None:
    out = results(swept, protocol)
    (attentive,) = rows_of(out["model_statuses"], ":Attentive")
    assert attentive["personas"] == ["Gardener", "baker"] and attentive["intents_total"] == 36
    assert attentive["intents"] == approx(STATUSES[protocol])
    assert attentive["sessions"] == {"completed": 14, "truncated": 0, "error": 1, "not_run": 0}
    (quiet,) = rows_of(out["model_statuses"], ":Quiet")
    assert quiet["intents"] == approx({"completed": 0, "inferred": 0, "provided": 1, "unresolved": 0})
    (point,) = rows_of(out["model_turns"], ":Attentive")
    assert (point["sessions"], point["mean"]) == (14, approx(TURNS[protocol]))
    assert point["proc"]["mean"] == approx(mean(AVERAGE_PROC[protocol]))  # figure 4's y: table 1's Average Proc
    (quiet_point,) = rows_of(out["model_turns"], ":Quiet")
    assert (quiet_point["mean"], quiet_point["proc"]["mean"]) == (approx(12 / 5), 0)
    # the per-persona view is kept below: it adds up to the model's row
    per_persona = rows_of(out["statuses"], ":Attentive")
    assert [r["persona"] for r in per_persona] == ["Gardener", "baker"]
    assert sum(r["intents_total"] for r in per_persona) == 36


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_table_8_uses_the_release_s_categories_and_never_guesses(swept: dict[str, tuple[Path, str]], protocol: str) -> None:
    cells = {r["category"]: r for r in rows_of(results(swept, protocol)["categories"], ":Attentive")}
    assert {c: (cells[c]["proc"], cells[c]["comp"], cells[c]["tasks"]) for c in cells} == {
        c: (approx(p), approx(m), n) for c, (p, m, n) in CATEGORIES[protocol].items()
    }
    assert cells["unavailable"]["failures"]["error"] == 1 and cells["R"]["failures"]["error"] == 0


def audited(swept: dict[str, tuple[Path, str]], tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The Attentive judgments of the pibench sweep, exported for audit."""
    db, sweep_id = swept["pibench"]
    exported = tmp_path / "audit.csv"
    assert run_cli("audit", "export", sweep_id, "--db", str(db), "--out", str(exported)).exit_code == 0
    with exported.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            yield row["model"], row


def test_table_6_in_results_and_the_report(swept: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    db, sweep_id = swept["pibench"]
    rows = [row for model, row in audited(swept, tmp_path) if model.endswith(":Attentive")]
    # 24 checklist judgments (8 items a run: G1 2, G3 3, B1 2 (graded on its partial trace), B2 1) and 35 intent labels
    # (36 less B1's unresolved one). The human flips every verdict on G1's items (2 × 3 runs) and B2's labels (2 × 3).
    assert (sum(r["kind"] == "checklist" for r in rows), sum(r["kind"] == "intent" for r in rows)) == (24, 35)
    flip = {"1": "0", "0": "1", "completed": "provided", "inferred": "provided", "provided": "completed"}
    for source, flips in (("human:ana", True), ("model:second-judge", False)):
        filled = tmp_path / f"{source.replace(':', '_')}.csv"
        with filled.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            for row in rows:
                differs = flips and (row["session_id"], row["kind"]) in {("Gardener_task_001", "checklist"), ("baker_task_002", "intent")}
                writer.writerow(row | {"audited": flip[row["judged"]] if differs else row["judged"]})
        assert run_cli("audit", "import", str(filled), "--source", source, "--db", str(db)).exit_code == 0
    out = results(swept, "pibench")
    table_6 = {a["source"]: (a["checklist_rate"], a["checklist_n"], a["intents_rate"], a["intents_n"]) for a in out["audits"]}
    assert table_6 == {"human:ana": (approx(6 / 24), 24, approx(6 / 35), 35), "model:second-judge": (0, 24, 0, 35)}
    terminal = " ".join(run_cli("results", sweep_id, "--db", str(db)).stdout.split())
    assert "table 6)" in terminal and "human:ana 25.0 (n=24) 17.1 (n=35)" in terminal
    html = render_report(Store(db), sweep_id).pages()["index.html"]
    assert "25.0 <small>(n=24)</small>" in html and "17.1 <small>(n=35)</small>" in html


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_terminal_and_the_report_show_every_table_and_figure(swept: dict[str, tuple[Path, str]], protocol: str) -> None:
    db, sweep_id = swept[protocol]
    terminal = " ".join(run_cli("results", sweep_id, "--db", str(db)).stdout.split())
    average = f"{100 * mean(AVERAGE_PROC[protocol]):.1f} ± {100 * stdev(AVERAGE_PROC[protocol]):.1f}"
    for shown in ("(table 1)", "(table 7)", "(figure 4)", "(table 8)", average, f"{TURNS[protocol]:.2f}"):
        assert shown in terminal, shown
    html = render_report(Store(db), sweep_id).pages()["index.html"]
    assert average in html
    assert "Table 7: how each hidden intent ended, per model" in html and "Figure 4: one point per model" in html
    assert "Figure 3 (d): one point per model" in html and html.count("<svg") >= 5  # figures 3 (d), 3 (a-c), 4 and per persona
    figure_4 = html[: html.index("Figure 4: one point per model")]
    assert "tests.helpers.golden_agent:Attentive †" in figure_4[figure_4.rindex("<svg") :]  # one point per model, its failure marked
    figure_3 = html[: html.index("Figure 3 (a–c)")]
    panels = figure_3[figure_3.rindex("<svg") :]  # one panel per category with a code, one point per model
    assert "Q: " in panels and "R: " in panels and "unavailable" not in panels and "golden_agent:Quiet" in panels
    cell = CATEGORIES[protocol]["unavailable"]
    assert f"{100 * cell[0]:.1f} / {100 * cell[1]:.1f}" in html and "unavailable" in html
