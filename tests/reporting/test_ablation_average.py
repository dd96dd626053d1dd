"""Figure 5's Average: the final sessions of every persona's dependency groups pooled per model, in both arms."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from statistics import mean
from typing import Any

from proactive_bench.store import Store
from proactive_bench.testing.stub_server import StubServer
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.helpers.stored_runs import Played, StoredRuns
from tests.helpers.stub_models import FakeUserModel

DEPENDS_ON = {"x2": ["x1"], "y2": ["y1"]}


def proc(labels: str) -> float:
    return sum(c in "CI" for c in labels) / len(labels)


def comp(items: str) -> float:
    return items.count("p") / len(items)


def results(db: Path, ident: str) -> dict[str, Any]:
    out = run_cli("results", ident, "--db", str(db), "--format", "json")
    assert out.exit_code == 0, out.output
    parsed: dict[str, Any] = json.loads(out.stdout)
    return parsed


def test_the_average_pools_every_personas_finals_not_the_persona_means(tmp_path: Path) -> None:
    """Persona p1 has two groups (finals x2, y2), p2 one (x2): the Average weighs each final once, so it is not the mean of
    the two persona rows."""
    db = tmp_path / "r.db"
    runs = StoredRuns(Store(db), DEPENDS_ON)
    sweep = runs.sweep("s1")
    with_history = {
        "p1": {
            "x1": Played("CC", "p"),
            "x2": Played("CP", "pf"),
            "y1": Played("P", "p"),
            "y2": Played("CCCI", "pp"),
            "z": Played("P", "f"),
        },
        "p2": {"x1": Played("C", "p"), "x2": Played("PPP", "ff")},
    }
    without = {"p1": {"x2": Played("PP", "pf"), "y2": Played("CPPP", "fp")}, "p2": {"x2": Played("CPP", "pp")}}
    for persona in ("p1", "p2"):
        runs.run("m", with_history[persona], persona, sweep)
        runs.run("m", without[persona], persona, sweep, ablation="no-dependency-history")
    finals = {"p1": ["x2", "y2"], "p2": ["x2"]}
    expected: dict[str, float] = {}
    for arm, played in (("with_history", with_history), ("without_history", without)):
        expected[f"proc_{arm}"] = mean(proc(played[p][s].labels) for p in finals for s in finals[p])
        expected[f"comp_{arm}"] = mean(comp(played[p][s].items) for p in finals for s in finals[p])
    assert expected["proc_with_history"] == mean([0.5, 1.0, 0.0])  # the hand figure: (1/2 + 4/4 + 0/3) / 3
    out = results(db, sweep)
    per_persona = {r["persona"]: r for r in out["ablation"]}
    assert per_persona["p1"]["sessions"] == ["x2", "y2"] and per_persona["p2"]["proc_with_history"] == 0.0
    assert expected["proc_with_history"] != mean(r["proc_with_history"] for r in per_persona.values())  # the pooling matters here
    (average,) = out["ablation_average"]
    assert (average["model"], average["personas"], average["sessions"]) == ("m", ["p1", "p2"], 3)
    for key, value in expected.items():
        assert abs(average[key] - value) < 1e-12, key
    for metric in ("proc", "comp"):
        assert abs(average[f"{metric}_delta"] - (expected[f"{metric}_without_history"] - expected[f"{metric}_with_history"])) < 1e-12
    text = run_cli("results", sweep, "--db", str(db))
    assert "Average" in text.output and "3 finals" in text.output


def two_personas(root: Path) -> Path:
    """The mini dataset with a second persona whose episode is the first one's (so a sweep has two personas)."""
    data = root / "data"
    shutil.copytree(MINI, data)
    persona = (data / "personas" / "tester.yaml").read_text(encoding="utf-8")
    (data / "personas" / "tester2.yaml").write_text(persona.replace("id: tester", "id: tester2"), encoding="utf-8")
    shutil.copytree(data / "episodes" / "mini", data / "episodes" / "mini2")
    episode = data / "episodes" / "mini2" / "episode.yaml"
    episode.write_text(episode.read_text(encoding="utf-8").replace("id: mini", "id: mini2").replace("persona: tester", "persona: tester2"))
    return data


def test_a_stub_driven_sweep_reports_the_average_its_sessions_give(tmp_path: Path) -> None:
    """Both arms played with the LLM user on a stub server: the ablated runs play only the final (a2), and the Average
    row equals the mean of the final sessions' own figures, read back from the exported sessions."""
    data, db = two_personas(tmp_path), tmp_path / "r.db"
    with StubServer(FakeUserModel()) as server:
        swept = run_cli(
            "sweep",
            "--json",
            "--data",
            str(data),
            "--models",
            "scripted:passive,scripted:reference",
            "--ablation",
            "none,no-dependency-history",
            "--user",
            "llm",
            "--user-model",
            "openai:stub-user",
            "--base-url",
            server.base_url,
            "--db",
            str(db),
        )
    assert swept.exit_code == 0, swept.output
    out = json.loads(swept.stdout)
    assert {r["persona"] for r in out["runs"]} == {"tester", "tester2"} and len(out["runs"]) == 8
    exported = tmp_path / "sessions.jsonl"
    assert run_cli("export", out["runs"][0]["sweep_id"], "--db", str(db), "--out", str(exported)).exit_code == 0
    records = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    ablated = [r for r in records if r["ablation"] == "no-dependency-history"]
    assert sorted({r["session_id"] for r in ablated}) == ["a2"] and len(ablated) == 4  # 2 models × 2 personas, the final only
    averages = {row["model"]: row for row in out["ablation_average"]}
    assert sorted(averages) == ["scripted:passive", "scripted:reference"]
    for model, row in averages.items():
        for arm, ablation in (("with_history", "none"), ("without_history", "no-dependency-history")):
            finals = [r for r in records if (r["model"], r["ablation"], r["session_id"]) == (model, ablation, "a2")]
            assert len(finals) == 2
            for metric in ("proc", "comp"):
                assert row[f"{metric}_{arm}"] == mean(r[metric] for r in finals), (model, metric, arm)
    assert averages["scripted:reference"]["proc_with_history"] == 1.0 and averages["scripted:passive"]["proc_with_history"] == 0.0
