"""One settings model (issue 36, item 2): the core run settings, each suite's ``settings_model``, the sweep built from
them plus the grid, and the CLI options generated from (and checked against) the models."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from proactive_bench.campaign import SweepConfig, sweep_run_spec, validate_sweep_config
from proactive_bench.cli import app
from proactive_bench.episode import RunSettings, RunSpec, run_spec
from proactive_bench.episode.settings import STORED
from proactive_bench.store import Run, Store
from proactive_bench.suites import (
    SUITES,
    SuiteContext,
    settings_grid,
    settings_model,
    suite_settings_model,
    suite_settings_problem,
)
from proactive_bench.suites.base import BUILTIN_SETTINGS
from proactive_bench.suites.trainee.settings import TraineeOptions
from proactive_bench.suites.trainee.suite import scenario_settings
from tests.helpers.cli import PBENCH, run_python
from tests.helpers.paths import MINI, ODYSSEY_MINI, REPO
from tests.helpers.plugins import install_fake_plugin

SETTING_OF_OPTION = {
    "no_probe": "probe",
    "agent_option": "agent_options",
    "rps": "requests_per_second",
    "max_cost": "max_cost_usd",
    "ablation": "ablations",
    "agent_base_url": "role_base_urls",
    "user_base_url": "role_base_urls",
    "judge_base_url": "role_base_urls",
    "agent_key_env": "role_key_envs",
    "user_key_env": "role_key_envs",
    "judge_key_env": "role_key_envs",
    "task": "personas",
    "tasks": "personas",
    "data": "data_root",
}
"""A command's option and the settings field it sets, where their names differ (the sweep's ``data`` is its ``data``)."""

NOT_SETTINGS = {"db", "as_json", "no_validate", "verbose", "config", "otel"}
"""Options that are not run settings: where results go, how they print, whether the data is checked, a file of settings,
whether the process exports traces (--otel, like OTEL_EXPORTER_OTLP_ENDPOINT: how a run is watched, not what it is)."""

NOT_OPTIONS = {
    "suite_settings": "given as the suites' own options (--memory, --days, a plug-in's)",
    "summaries_db": "set by pbench to the results database",
    "pause_after": "a sweep file's setting only",
    "ablation": "episode runs the whole episode; sweeps take --ablation",
    "repeat": "set by the sweep",
    "sweep_id": "set by the sweep",
    "replay_of": "set by pbench replay",
    "answers_from": "set by the pytest plugin (a test reuses its last run's answers) or run_episode(answers_from=...)",
    "structured_methods": "found by the probe",
    "model_contexts": "found by the probe",
    "memory_tokens": "set when the run starts",
    "depends_on": "set when the run starts, from the episode (reports read it without the dataset)",
    "categories": "set when the run starts, from the episode",
}
"""Settings fields no option of ``episode`` or ``sweep`` sets, and why."""


def _options(command: str) -> set[str]:
    group: Any = get_command(app)
    return {p.name for p in group.commands[command].params if p.name}


def _field(option: str, command: str) -> str:
    named = SETTING_OF_OPTION.get(option, option)
    if command == "episode" and named == "personas":
        return "persona"  # one run per task, each RunSpec.persona
    return "data" if command == "sweep" and named == "data_root" else named


def _suite_fields() -> set[str]:
    return {f for name in SUITES.names() for f in settings_model(SUITES.get(name)).model_fields}


@pytest.mark.parametrize(("command", "model"), [("episode", RunSpec), ("sweep", SweepConfig)])
def test_every_option_sets_a_settings_field_and_every_field_has_an_option(command: str, model: type[Any]) -> None:
    options = _options(command) - NOT_SETTINGS
    fields = set(model.model_fields) | _suite_fields()
    assert not {o for o in options if _field(o, command) not in fields}, "options of no settings field"
    covered = {_field(o, command) for o in options}
    missing = set(model.model_fields) - covered - set(NOT_OPTIONS)
    if command == "episode":
        missing -= set(SweepConfig.model_fields) - set(RunSettings.model_fields)  # a sweep's own settings
    assert not missing, f"settings fields without a {command} option: {sorted(missing)}"
    assert _suite_fields() <= covered  # every suite's setting is an option of both commands


def test_the_core_settings_are_declared_once_and_a_sweeps_run_copies_them_by_the_model() -> None:
    assert issubclass(RunSpec, RunSettings) and issubclass(SweepConfig, RunSettings)
    config = validate_sweep_config(
        {
            "models": ["openai:m"],
            "base_url": "http://127.0.0.1:9/v1",
            "judge_model": "openai:j",
            "call_timeout": 7.5,
            "max_turns": 3,
            "role_key_envs": {"user": "KEY"},
            "suite": "trainee",
            "hints": ["none", "both"],
            "days": 2,
        },
        "test",
    )
    specs = [sweep_run_spec(config, config.arms()[0], "s3-n3", settings=point) for point in config.settings()]
    for spec in specs:
        assert spec.core() == config.core() | {"suite_settings": spec.suite_settings}  # every core field, none copied by name
    assert [s.suite_settings for s in specs] == [{"days": 2, "hints": "none"}, {"days": 2, "hints": "both"}]
    tasks = validate_sweep_config({"models": ["scripted:reference"], "suite": "trainee", "tasks": ["s3-n3"]}, "test")
    assert tasks.personas == ["s3-n3"]  # a suite of tasks may say tasks
    with pytest.raises(ValueError, match="give personas or tasks, not both"):
        validate_sweep_config({"models": ["scripted:reference"], "personas": ["a"], "tasks": ["b"]}, "test")


def test_suite_settings_are_checked_by_the_suites_models() -> None:
    assert suite_settings_problem("odyssey", {"memory": "rag:summary-chunk"}) == (
        "--memory rag:summary-chunk needs --summary-model (the chat model that summarises each history once)"
    )
    assert suite_settings_problem("personas", {"days": 2}) == "--days applies to the trainee suite only, not personas"
    assert suite_settings_problem("trainee", {"days": 2, "hints": "data"}) is None
    with pytest.raises(ValueError, match=r"--top-k: Input should be a valid integer"):
        validate_sweep_config(
            {"models": ["scripted:reference"], "suite": "odyssey", "memory": ["rag:raw-session"], "top_k": ["two"]}, "flags"
        )
    grid = settings_grid(SUITES.get("odyssey"), {"memory": ["none", "rag:raw-session"], "top_k": [1, 3]})
    assert [(p["memory"], p["top_k"]) for p in grid] == [("none", None), ("rag:raw-session", 1), ("rag:raw-session", 3)]


def test_settings_stored_before_the_suite_settings_model_load_unchanged() -> None:
    stored = {
        "persona": "t1",
        "model": "scripted:reference",
        "data_root": "d",
        "suite": "odyssey",
        "memory": "rag:raw-session",
        "top_k": 2,
        "days": None,
    }
    for spec in (RunSpec.model_validate(stored), RunSpec.model_validate(stored, context=STORED)):
        assert spec.suite_settings == {"memory": "rag:raw-session", "top_k": 2}
        assert spec.settings == SuiteContext.of({"memory": "rag:raw-session", "top_k": 2})
        assert RunSpec.model_validate(spec.model_dump(mode="json")) == spec


def test_a_run_stored_before_0_2_loads_from_its_database_with_each_suites_settings(tmp_path: Path) -> None:
    """Old-shape configs (each built-in suite's settings as top-level keys, the agent in ``model``) read back through the store."""
    store = Store(tmp_path / "old.db")
    old_shape = {
        "persona": "s3-n3",
        "model": "scripted:reference",
        "data_root": "d",
        "suite": "trainee",
        "days": 2,
        "hints": "both",
        "npc": None,
        "memory": None,
        "top_k": None,
    }
    personas = {"persona": "mini", "model": "openai:m", "data_root": "d", "memory": None, "top_k": None, "days": None}
    rows = [
        Run(persona=config["persona"], model=config["model"], user_backend="rules", data_root="d", workspace=str(tmp_path), config=config)
        for config in (old_shape, personas)
    ]
    store.add(*rows)
    trainee, persona = (run_spec(store.run(row.id) or row) for row in rows)
    assert (trainee.suite, trainee.agent, trainee.suite_settings) == ("trainee", "scripted:reference", {"days": 2, "hints": "both"})
    assert scenario_settings(trainee.settings.parsed(TraineeOptions)).days == 2
    assert (persona.suite, persona.agent, persona.model, persona.suite_settings) == ("personas", "react", "openai:m", {})
    assert "suite_settings" in trainee.model_dump(mode="json")  # stored again, it is read without its suite


def test_no_suite_setting_is_known_to_pbench_by_name() -> None:
    """The core settings and what a suite's load gets name no suite's setting: each lives in its suite's model only."""
    suite_fields = _suite_fields()
    assert {"memory", "top_k", "days", "hints"} <= suite_fields
    assert not suite_fields & set(RunSpec.model_fields)
    assert not suite_fields & {f.name for f in fields(SuiteContext)}
    source = "\n".join(
        (REPO / "proactive_bench" / path).read_text()
        for path in ("episode/settings.py", "suites/base.py", "api.py", "campaign/sweep.py", "cli/options.py")
    )
    for name in sorted(suite_fields - {"greeting"}):
        assert not re.search(rf"[\"'.]{name}\b(?!_)", source), f"{name} is named outside its suite's model"


def test_the_0_1_suite_settings_still_resolve_with_a_warning_and_load_a_suite() -> None:
    import proactive_bench as pb
    import proactive_bench.suites as suites

    with pytest.warns(DeprecationWarning, match="use SuiteContext"):
        legacy = suites.SuiteSettings
    with pytest.warns(DeprecationWarning, match="use SuiteContext"):
        assert pb.SuiteSettings is legacy
    old = legacy(memory="none", extra=(("greeting", "Hi"),), base_url="http://x")
    assert isinstance(old, SuiteContext) and old.memory == "none" and old.top_k is None and old.value("greeting") == "Hi"
    assert old.values() == {"greeting": "Hi", "memory": "none"} and old.base_url == "http://x"
    loaded = SUITES.get("odyssey").load(ODYSSEY_MINI, "od_test_vendor_meeting", legacy(memory="none"))
    assert loaded.memory_tokens == 0
    with pytest.raises(ValueError, match=r"^--top-k: Input should be a valid integer"):
        SuiteContext.of({"top_k": "two"}).parsed(settings_model(SUITES.get("odyssey")))


def _pbench(site: Path, *args: str, log: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "PBENCH_GREETING_LOG": str(log), "COLUMNS": "250"}
    return subprocess.run([*PBENCH, *args], env=env, capture_output=True, text=True)


def test_a_plugin_suite_adds_a_setting_and_its_option_without_touching_pbench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = install_fake_plugin(tmp_path, monkeypatch, "pbench.suites", "greeting", "tests.helpers.greeting_suite:SUITE")
    log, db = tmp_path / "greetings.log", tmp_path / "r.db"
    shown = _pbench(site, "episode", "--help", log=log)
    assert "--greeting" in shown.stdout and "Greeting: the word each session" in shown.stdout, shown.stdout + shown.stderr
    common = ("--suite", "greeting", "--task", "mini", "--data", str(MINI), "--db", str(db), "--no-validate")
    episode = _pbench(site, "episode", *common, "--model", "scripted:reference", "--greeting", "Ahoy", log=log)
    assert episode.returncode == 0, episode.stderr
    sweep = _pbench(site, "sweep", *common, "--models", "scripted:passive", "--greeting", "Hi,Howdy", log=log)
    assert sweep.returncode == 0, sweep.stderr
    assert set(log.read_text().split("\n")) - {""} == {"mini Ahoy", "mini Hi", "mini Howdy"}  # what each run's suite loaded
    with sqlite3.connect(db) as conn:
        stored = sorted(conn.execute("select json_extract(config, '$.suite_settings.greeting') from run").fetchall())
    assert stored == [("Ahoy",), ("Hi",), ("Howdy",)]
    bad = _pbench(site, "episode", *common, "--model", "scripted:reference", "--greeting", "h1", log=log)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "error: flags: config: Value error, --greeting: a greeting is one word of letters, not 'h1'"
    ]
    elsewhere = _pbench(
        site,
        "episode",
        "--persona",
        "mini",
        "--data",
        str(MINI),
        "--model",
        "scripted:reference",
        "--greeting",
        "Ahoy",
        "--db",
        str(db),
        log=log,
    )
    assert elsewhere.returncode == 2 and elsewhere.stderr.strip() == "error: --greeting applies to the greeting suite only, not personas"


def test_the_0_1_name_of_the_personas_suite_still_resolves_with_a_warning() -> None:
    import proactive_bench.suites as suites

    with pytest.warns(DeprecationWarning, match="use PersonasSuite"):
        assert suites.PibenchSuite is suites.PersonasSuite


def test_a_built_in_suite_s_settings_model_is_its_suite_s_and_loads_without_it() -> None:
    """``suite_settings_model`` answers from the light module ``BUILTIN_SETTINGS`` names: the same class the suite declares."""
    for name in BUILTIN_SETTINGS:
        assert suite_settings_model(name) is settings_model(SUITES.get(name)), name
    code = (
        "import sys; from proactive_bench.suites import SUITES, suite_settings_model;"
        "print(sorted(suite_settings_model(n).__name__ for n in SUITES.names()));"
        "print(sorted(m for m in sys.modules if m.startswith('proactive_bench.suites.') and m.count('.') > 2))"
    )
    out = run_python(code)
    models, loaded = out.splitlines()[:2]
    assert "OdysseySettings" in models and "TraineeOptions" in models
    assert json.loads(loaded.replace("'", '"')) == [
        "proactive_bench.suites.odyssey.memory_docs",
        "proactive_bench.suites.odyssey.settings",
        "proactive_bench.suites.trainee.settings",
    ]
