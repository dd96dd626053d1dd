"""Plugins from installed distributions: a user backend chosen by ``--user``, an importer under ``pbench import``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from proactive_bench.episode import CallLedger, LaunchError, RunSpec, build_participants
from proactive_bench.importers import IMPORTERS
from proactive_bench.scoring import DEFAULT_JUDGE, JUDGES, RubricJudge
from proactive_bench.user import USERS
from tests.helpers.cli import PBENCH, run_cli, run_episode_json
from tests.helpers.paths import MINI
from tests.helpers.plugins import install_fake_plugin

USER_PLUGIN = '''
from proactive_bench.user import RulesUser, UserOptions

DECISIONS = []


class CountingUser(RulesUser):
    """The rules backend under another name, counting its decisions (proof it was the one used)."""

    name = "counting"

    async def decide(self, view):
        DECISIONS.append(view.turn)
        return await super().decide(view)


def build(options: UserOptions) -> CountingUser:
    return CountingUser()
'''

IMPORTER_PLUGIN = '''
import typer

app = typer.Typer()


@app.command()
def convert(path: str) -> None:
    """Convert a toy suite into a pbench dataset root."""
    print("toy", path)
'''


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "pbench_counting_user.py").write_text(USER_PLUGIN)
    (modules / "pbench_toy_importer.py").write_text(IMPORTER_PLUGIN)
    monkeypatch.syspath_prepend(str(modules))
    yield modules
    USERS.rescan()  # the fake distribution is gone: forget its entry point and the backend loaded from it
    sys.modules.pop("pbench_counting_user", None)


def test_a_plugin_user_backend_is_selected_with_user(plugin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_plugin(tmp_path, monkeypatch, "pbench.users", "counting", "pbench_counting_user:build")
    USERS.rescan()
    args = ["--data", str(MINI), "--persona", "mini", "--model", "scripted:asker"]
    plugin = run_episode_json(*args, "--user", "counting", "--db", str(tmp_path / "plugin.db"))
    rules = run_episode_json(*args, "--db", str(tmp_path / "rules.db"))
    import pbench_counting_user  # loaded from the fake distribution's entry point by the run

    assert pbench_counting_user.DECISIONS  # the plugin backend made the run's decisions
    strip = ("run_id",)
    assert {k: v for k, v in plugin.items() if k not in strip} == {k: v for k, v in rules.items() if k not in strip}


def test_an_unknown_user_backend_is_one_line_naming_the_known_ones(tmp_path: Path) -> None:
    result = run_cli(
        "episode",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:passive",
        "--user",
        "nosuch",
        "--db",
        str(tmp_path / "e.db"),
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == ["error: --user must be 'rules' or 'llm', not 'nosuch'"]
    assert not (tmp_path / "e.db").exists()


def test_a_stored_run_of_a_removed_backend_loads_and_fails_only_when_built() -> None:
    spec = RunSpec.model_validate(
        {"persona": "mini", "model": "scripted:passive", "data_root": str(MINI), "user": "gone", "user_model": "m"}
    )
    assert spec.user_backend == "gone:m"  # reports of old runs still read it
    with pytest.raises(LaunchError, match=r"^user must be 'rules' or 'llm', not 'gone'$"):
        build_participants(spec, CallLedger("r"), None, None)


def test_a_sweep_file_with_an_unknown_user_is_one_line(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"models: [scripted:passive]\ndata: {MINI}\nuser: nosuch\n")
    result = run_cli("sweep", "--config", str(sweep), "--db", str(tmp_path / "s.db"))
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: {sweep}: user: Value error, user must be 'rules' or 'llm', not 'nosuch'"]


def test_a_plugin_importer_is_mounted_under_pbench_import(plugin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = install_fake_plugin(tmp_path, monkeypatch, "pbench.importers", "toy", "pbench_toy_importer:app")
    repo = Path(__file__).parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(plugin_dir), str(repo)])}
    cli = [*PBENCH, "import"]
    listing = subprocess.run([*cli, "--help"], env=env, capture_output=True, text=True, check=True).stdout
    assert "pibench" in listing and "toy" in listing and "Convert a toy suite" in listing
    ran = subprocess.run([*cli, "toy", "somewhere"], env=env, capture_output=True, text=True, check=True).stdout
    assert ran.strip() == "toy somewhere"


def test_a_plugin_importer_that_cannot_load_fails_in_one_line_when_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = install_fake_plugin(tmp_path, monkeypatch, "pbench.importers", "broken", "pbench_no_such_importer_xyz:app")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(Path(__file__).parent.parent)])}
    cli = [*PBENCH, "import"]
    assert "pibench" in subprocess.run([*cli, "--help"], env=env, capture_output=True, text=True, check=True).stdout
    failed = subprocess.run([*cli, "broken", "x"], env=env, capture_output=True, text=True)
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [
        "error: importers 'broken' (entry point pbench_no_such_importer_xyz:app) cannot be loaded: No module named 'pbench_no_such_importer_xyz'"
    ]


def test_the_rubric_judge_is_the_default_and_pibench_a_built_in_importer() -> None:
    assert JUDGES.get(DEFAULT_JUDGE) is RubricJudge and DEFAULT_JUDGE == "rubric"
    assert IMPORTERS.names()[0] == "pibench" and IMPORTERS.get("pibench").registered_commands[0].name == "pibench"
