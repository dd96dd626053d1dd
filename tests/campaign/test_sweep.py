"""Sweeps, the ablation, summaries, budgets and re-scoring, on the mini dataset."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.campaign.sweep import start_one_by_one
from proactive_bench.testing.stub_server import Reply, StubServer
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel, agent_model


def sweep_json(*args: str) -> dict[str, Any]:
    result = run_cli("sweep", "--json", "--data", str(MINI), *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sweep_summarises_models_repeats_and_the_ablation(tmp_path: Path) -> None:
    out = sweep_json(
        "--models",
        "scripted:reference,scripted:passive",
        "--runs",
        "2",
        "--ablation",
        "none,no-dependency-history",
        "--db",
        str(tmp_path / "r.db"),
    )
    assert len(out["runs"]) == 8 and all(r["status"] == "finished" for r in out["runs"])
    main = {(r["model"], r["ablation"]): r for r in out["main"]}
    assert main[("scripted:reference", "none")]["proc"] == {"mean": 1.0, "std": 0.0, "ci95": 0.0, "boot95": [1.0, 1.0], "n": 2}
    assert main[("scripted:passive", "none")]["proc"]["mean"] == 0.0
    assert main[("scripted:reference", "none")]["pass^2"] == 1.0
    (ref_ablation,) = [r for r in out["ablation"] if r["model"] == "scripted:reference"]
    assert ref_ablation["sessions"] == ["a2"]  # a2 depends on a1
    assert ref_ablation["proc_with_history"] == 1.0 and ref_ablation["proc_without_history"] == 1.0
    statuses = {(r["model"], r["ablation"]): r for r in out["statuses"]}
    assert statuses[("scripted:passive", "none")]["intents"]["provided"] == 1.0
    assert statuses[("scripted:reference", "no-dependency-history")]["intents"]["provided"] == 0.0  # arms are not mixed
    assert {(r["model"], r["ablation"]) for r in out["turns"]} == {
        (m, a) for m in ("scripted:reference", "scripted:passive") for a in ("none", "no-dependency-history")
    }


def test_results_for_a_sweep_as_csv_and_a_run_as_json(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = sweep_json("--models", "scripted:asker", "--runs", "2", "--db", str(db))
    sweep_id = out["runs"][0]["sweep_id"]
    as_csv = run_cli("results", sweep_id, "--db", str(db), "--format", "csv")
    (row,) = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert (row["model"], row["runs"], float(row["proc_mean"]), row["pass^2"]) == ("scripted:asker", "2", 1.0, "1.0")
    one = run_cli("results", out["runs"][1]["run_id"], "--db", str(db), "--format", "json")
    assert [r["run_id"] for r in json.loads(one.stdout)["runs"]] == [out["runs"][1]["run_id"]]
    assert run_cli("results", "nope", "--db", str(db)).exit_code == 2


def test_a_bad_sweep_file_names_the_file_and_field(tmp_path: Path) -> None:
    config = tmp_path / "sweep.yaml"
    config.write_text("models: [scripted:reference]\nruns: 0\ncolour: blue\n")
    result = run_cli("sweep", "--config", str(config), "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 2
    assert f"{config}: runs:" in result.output and f"{config}: colour: Extra inputs are not permitted" in result.output


def test_a_budget_stops_the_sweep_and_resume_finishes_it(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text('"openai:stub-user": {input: 1000.0, output: 1000.0}\n')
    db = tmp_path / "r.db"
    with StubServer(FakeUserModel()) as server:
        common = ["--user", "llm", "--user-model", "openai:stub-user", "--base-url", server.base_url, "--prices", str(prices)]
        first = run_cli(
            "sweep",
            "--json",
            "--data",
            str(MINI),
            "--models",
            "scripted:reference",
            "--db",
            str(db),
            "--max-cost",
            "0.01",
            "--concurrency",
            "1",
            *common,
        )
        assert first.exit_code == 0, first.output
        stopped = json.loads(first.stdout)
        assert [r["status"] for r in stopped["runs"]] == ["stopped"] and "budget" in first.output
        resumed = run_cli("resume", stopped["runs"][0]["sweep_id"], "--db", str(db), "--max-cost", "1000", "--json")
    assert resumed.exit_code == 0, resumed.output
    out = json.loads(resumed.stdout)
    assert [r["status"] for r in out["runs"]] == ["finished"]
    assert out["main"][0]["proc"]["mean"] == 1.0
    (cost,) = [c for c in out["cost"] if c["role"] == "user"]
    assert cost["cost_usd"] > 0.01 and cost["unpriced_calls"] == 0


def test_concurrent_llm_sweep_finishes_every_run(tmp_path: Path) -> None:
    fake = FakeUserModel()

    def respond(body: dict[str, Any]) -> Reply:
        return fake(body) if body["model"].startswith("stub-") else agent_model(body)

    with StubServer(respond) as server:
        out = sweep_json(
            "--models",
            "openai:agent",
            "--runs",
            "4",
            "--concurrency",
            "4",
            "--user",
            "llm",
            "--user-model",
            "openai:stub-user",
            "--base-url",
            server.base_url,
            "--db",
            str(tmp_path / "r.db"),
        )
    assert [r["status"] for r in out["runs"]] == ["finished"] * 4
    assert out["statuses"][0]["sessions"]["error"] == 0


def test_rescore_grades_saved_state_with_a_judge(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    first = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:reference", "--db", str(db))
    recorded = json.loads(first.stdout)
    assert recorded["comp_basis"]["ungraded_items"] == 1
    with StubServer(FakeUserModel()) as server:
        result = run_cli(
            "rescore", recorded["run_id"], "--db", str(db), "--judge-model", "openai:stub-judge", "--base-url", server.base_url, "--json"
        )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["comp_basis"]["ungraded_items"] == 0 and "rubric" in out["comp_basis"]["graders"]
    assert [s["proc"] for s in out["sessions"]] == [s["proc"] for s in recorded["sessions"]]
    again = run_cli("results", recorded["run_id"], "--db", str(db), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(again.stdout)))
    assert rows[0]["model"] == "scripted:reference" and float(rows[0]["comp_mean"]) == 1.0


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_processes_give_the_same_results_as_one_event_loop(tmp_path: Path, method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import proactive_bench.campaign.workers as sweep_workers

    monkeypatch.setattr(sweep_workers, "start_method", lambda: method)
    args = ("--models", "scripted:reference,scripted:asker", "--runs", "2", "--ablation", "none,no-dependency-history")
    one = sweep_json(*args, "--db", str(tmp_path / "one.db"))
    two = sweep_json(*args, "--workers", "2", "--concurrency", "4", "--db", str(tmp_path / "two.db"))
    assert all(r["status"] == "finished" for r in two["runs"]) and len(two["runs"]) == 8
    for key in ("main", "ablation", "statuses", "turns"):
        assert two[key] == one[key], key


def test_worker_budgets_charge_one_shared_counter() -> None:
    import multiprocessing

    from proactive_bench.campaign.workers import SharedBudget
    from proactive_bench.llm.costs import Price, PriceTable
    from proactive_bench.llm.ledger import LLMCallRecord

    spent = multiprocessing.get_context("spawn").Value("d", 0.0)
    prices = PriceTable({"m": Price(input=1.0, output=1.0)})
    first, second = SharedBudget(prices, 1.0, spent), SharedBudget(prices, 1.0, spent)
    call = LLMCallRecord(
        role="agent", purpose="step", model="m", method="tools", ok=True, latency_ms=1.0, prompt_tokens=300_000, completion_tokens=300_000
    )
    assert first.charge(call) == 0.6 and not second.exhausted
    second.charge(call)
    assert first.exhausted and first.spent_usd == second.spent_usd == spent.value == 1.2


async def test_runs_start_one_by_one_each_getting_going_before_the_next() -> None:
    events: list[str] = []

    async def run(n: int) -> None:
        events.append(f"set up {n}")
        await asyncio.sleep(0)  # its first request is on its way
        events.append(f"waiting {n}")

    await start_one_by_one(run(n) for n in range(3))
    assert events == ["set up 0", "waiting 0", "set up 1", "waiting 1", "set up 2", "waiting 2"]


async def test_a_run_that_crashes_cancels_the_others_and_the_error_surfaces() -> None:
    cancelled: list[int] = []

    async def run(n: int) -> None:
        try:
            if n == 1:
                raise RuntimeError("boom")
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(n)
            raise

    with pytest.raises(RuntimeError, match="boom"):
        await start_one_by_one(run(n) for n in range(3))
    await asyncio.sleep(0)
    assert sorted(cancelled) == [0, 2]
