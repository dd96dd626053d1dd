"""One settings object per run: what start_run stores, and runs stored by earlier versions still resume."""

from __future__ import annotations

import json
from pathlib import Path

from proactive_bench.dataset.ablation import dependency_units, depends_on_map
from proactive_bench.dataset.loading import load_episode
from proactive_bench.episode.launch import RunSpec, run_spec, start_run
from proactive_bench.store import Run, Store
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import MINI


def test_the_run_row_holds_the_settings_with_the_session_list_fixed(tmp_path: Path) -> None:
    loaded = load_episode(MINI, "mini")
    spec = RunSpec(
        persona="mini",
        model="scripted:reference",
        data_root=str(MINI),
        sessions=["a3", "a1"],
        user="llm",
        user_model="openai:u",
        judge_model="openai:j",
        max_turns=7,
        sweep_id="sw1",
    )
    store = Store(tmp_path / "r.db")
    run = start_run(store, loaded, spec, tmp_path)
    stored = store.run(run.id)
    kept = [s.id for s in loaded.sessions if s.id in {"a1", "a3"}]  # dataset order, not the order asked
    assert stored.config["sessions"] == kept and stored.units == dependency_units(loaded.episode, kept)
    assert (stored.model, stored.user_backend, stored.judge_model, stored.sweep_id) == (
        "scripted:reference",
        "llm:openai:u",
        "openai:j",
        "sw1",
    )
    assert stored.workspace == str((tmp_path / "workspaces" / run.id).resolve()) and stored.data_root == str(MINI.resolve())
    shape = {"depends_on": depends_on_map(loaded.episode), "categories": {s.id: s.category for s in loaded.sessions}}
    assert shape["depends_on"] and set(shape["categories"]) == {s.id for s in loaded.sessions}  # what reports read without the dataset
    assert run_spec(stored) == spec.model_copy(update={"sessions": kept, **shape})


def test_a_run_stored_by_an_earlier_version_resumes_to_the_same_result(tmp_path: Path) -> None:
    """A config with only the keys the first versions wrote (no caps, protocol, probe or per-role endpoints)."""
    db = tmp_path / "r.db"
    clean = run_episode_json("--persona", "mini", "--model", "scripted:reference", "--data", str(MINI), "--db", str(db))
    legacy = {
        "persona": "mini",
        "model": "scripted:reference",
        "data_root": str(MINI),
        "sessions": ["a1", "a2", "a3"],
        "user": "rules",
        "max_turns": 30,
    }
    run = Run(persona="mini", model="scripted:reference", user_backend="rules", data_root=str(MINI), workspace="", config=legacy)
    run.workspace = str(tmp_path / "workspaces" / run.id)
    Store(db).add(run)
    resumed = run_cli("resume", run.id, "--db", str(db), "--json")
    assert resumed.exit_code == 0, resumed.output
    out = json.loads(resumed.stdout)
    assert [(s["session_id"], s["status"], s["turns"], s["completed"], s["comp"]) for s in out["sessions"]] == [
        (s["session_id"], s["status"], s["turns"], s["completed"], s["comp"]) for s in clean["sessions"]
    ]
    assert Store(db).run(run.id).status == "finished"


def test_a_run_that_names_no_user_gets_its_protocols() -> None:
    """π-Bench's LLM user under --protocol pibench, the rules user otherwise."""
    common = {"persona": "mini", "model": "scripted:passive", "data_root": str(MINI)}
    assert RunSpec(**common).user == "rules"
    pibench = RunSpec(**common, protocol="pibench", user_model="openai:u", judge_model="openai:j")
    assert (pibench.user, pibench.user_backend) == ("llm", "llm:openai:u")
    assert RunSpec(**common, user=None, protocol="pibench", user_model="openai:u", judge_model="openai:j").user == "llm"
