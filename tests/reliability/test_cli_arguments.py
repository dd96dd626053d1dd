"""CLI edges: every malformed argument is a one-line error with exit code 2 (or 1), never a traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from proactive_bench.testing.stub_server import StubServer
from proactive_bench.testing.stub_zoo import plausible_model
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.reliability.test_run_admission import assert_one_line_failure


def _sweep(tmp_path: Path, *args: str):
    return run_cli("sweep", "--data", str(MINI), "--db", str(tmp_path / "s.db"), *args)


def _rows(db: Path, table: str) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute(f"select count(*) from {table}").fetchone()[0]


@pytest.fixture
def odd_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "binary": tmp_path / "binary.yaml",
        "invalid": tmp_path / "invalid.yaml",
        "folder": tmp_path / "folder.yaml",
        "not_sqlite": tmp_path / "not_sqlite.db",
        "missing": tmp_path / "missing.yaml",
        "list": tmp_path / "list.yaml",
    }
    files["binary"].write_bytes(b"\x00\xff\xfe\x89PNG binary")
    files["invalid"].write_text("models: [unclosed\n")
    files["folder"].mkdir()
    files["not_sqlite"].write_text("this is not an SQLite database\n" * 20)
    files["list"].write_text("- a\n- b\n")
    return files


@pytest.mark.parametrize("kind", ["binary", "invalid", "folder", "missing", "list"])
def test_a_bad_sweep_config_file_is_one_line(tmp_path: Path, odd_files: dict[str, Path], kind: str) -> None:
    message = assert_one_line_failure(_sweep(tmp_path, "--config", str(odd_files[kind])), 2)
    assert str(odd_files[kind]) in message
    assert _rows(tmp_path / "s.db", "sweep") == 0


@pytest.mark.parametrize("kind", ["binary", "invalid", "folder", "missing", "list"])
def test_a_bad_price_file_fails_before_the_sweep_starts(tmp_path: Path, odd_files: dict[str, Path], kind: str) -> None:
    message = assert_one_line_failure(_sweep(tmp_path, "--models", "scripted:passive", "--prices", str(odd_files[kind])), 2)
    assert str(odd_files[kind]) in message
    assert _rows(tmp_path / "s.db", "sweep") == 0  # today: a sweep row left 'running'


def _db_cases(tmp_path: Path, odd_files: dict[str, Path]) -> dict[str, Path]:
    return {
        "folder": odd_files["folder"],
        "not_sqlite": odd_files["not_sqlite"],
        "binary": odd_files["binary"],
        "under_a_file": odd_files["binary"] / "results.db",
    }


@pytest.mark.parametrize("kind", ["folder", "not_sqlite", "binary", "under_a_file"])
@pytest.mark.parametrize("command", ["episode", "sweep", "results", "resume", "report", "audit"])
def test_a_bad_results_database_is_one_line(tmp_path: Path, odd_files: dict[str, Path], kind: str, command: str) -> None:
    db = str(_db_cases(tmp_path, odd_files)[kind])
    argv = {
        "episode": ["episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", db],
        "sweep": ["sweep", "--data", str(MINI), "--models", "scripted:passive", "--db", db],
        "results": ["results", "x", "--db", db],
        "resume": ["resume", "x", "--db", db],
        "report": ["report", "x", "--db", db, "--out", str(tmp_path / "r.html")],
        "audit": ["audit", "show", "x", "--db", db],
    }[command]
    message = assert_one_line_failure(run_cli(*argv), 2)
    assert db in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_results_database_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "locked.db"
    sqlite3.connect(db).close()
    db.chmod(0)
    assert_one_line_failure(run_cli("results", "x", "--db", str(db)), 2)


@pytest.mark.parametrize(
    "models",
    ["scripted:nope", "openai:", "nosuchprovider:model", "scripted:passive,scripted:nope", "nosuch.module:Agent", "missing_file.py:Agent"],
)
def test_a_sweep_with_an_unusable_model_fails_before_creating_rows(tmp_path: Path, models: str) -> None:
    assert_one_line_failure(_sweep(tmp_path, "--models", models), 2)
    assert not (tmp_path / "s.db").exists()  # today: exit 0, every run failed


@pytest.mark.parametrize(
    ("option", "value"),
    [("--model", "scripted:nope"), ("--model", "openai:"), ("--judge-model", "openai:"), ("--base-url", "localhost:8000")],
)
def test_an_episode_with_an_unusable_model_fails_before_creating_its_run(tmp_path: Path, option: str, value: str) -> None:
    args = {"--model": "scripted:passive", option: value}
    result = run_cli(
        "episode", "--data", str(MINI), "--persona", "mini", "--db", str(tmp_path / "e.db"), *(x for pair in args.items() for x in pair)
    )
    assert_one_line_failure(result, 2)
    assert not (tmp_path / "e.db").exists()  # today: a run row marked failed


@pytest.mark.parametrize(
    ("source", "model", "reason"),
    [
        ("def broken(:\n", "agent.py:Agent", "cannot import scaffold module"),
        ("raise RuntimeError('bug at import')\n", "agent.py:Agent", "bug at import"),
        (
            "class Agent:\n    def __init__(self, options):\n        raise KeyError('no_key')\n",
            "agent.py:Agent",
            "building scaffold 'agent.py:Agent' failed: agent.py:3: KeyError: 'no_key'",
        ),
        ("", "os.path:join", "building scaffold 'os.path:join' failed: TypeError"),
        ("", "agent\x00.py:Agent", "embedded null byte"),
    ],
)
def test_a_scaffold_that_cannot_be_built_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, model: str, reason: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(source)
    result = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--agent", model, "--db", str(tmp_path / "e.db"))
    assert reason in assert_one_line_failure(result, 2)
    assert not (tmp_path / "e.db").exists()


def test_a_sweep_with_an_unusable_judge_or_user_model_fails_before_creating_rows(tmp_path: Path) -> None:
    assert_one_line_failure(_sweep(tmp_path, "--models", "scripted:passive", "--judge-model", "openai:"), 2)
    assert_one_line_failure(_sweep(tmp_path, "--models", "scripted:passive", "--user", "llm", "--user-model", "scripted:x"), 2)
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("max_cost", ["-1", "0"])
def test_resume_checks_a_new_budget_like_the_sweep_does(tmp_path: Path, max_cost: str) -> None:
    from proactive_bench.campaign.sweep import SweepConfig, create_sweep
    from proactive_bench.store import Store

    sweep, _runs = create_sweep(Store(tmp_path / "s.db"), SweepConfig(models=["scripted:passive"], data=MINI), tmp_path)
    result = run_cli("resume", sweep.id, "--db", str(tmp_path / "s.db"), "--max-cost", max_cost)
    assert "max_cost_usd: Input should be greater than 0" in assert_one_line_failure(result, 2)
    assert [r.status for r in Store(tmp_path / "s.db").runs(sweep.id)] == ["created"]  # today: runs with a budget of $-1


@pytest.mark.parametrize(
    "spec", [",,", ",", "3-1", "0", "abc", "1-", "-1", "4", "1-4", "1,,2", "", " ", "a1,", "1--2", "0-2", "99999999999999999999"]
)
def test_the_sessions_grammar_is_strict(tmp_path: Path, spec: str) -> None:
    result = run_cli(
        "episode",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:passive",
        "--db",
        str(tmp_path / "e.db"),
        "--sessions",
        spec,
    )
    assert_one_line_failure(result, 2).startswith("error: --sessions")
    assert "error: --sessions" in result.output
    assert not (tmp_path / "e.db").exists()


@pytest.mark.parametrize(("spec", "chosen"), [("1-2", ["a1", "a2"]), ("3,1", ["a1", "a3"]), ("a2, 1", ["a1", "a2"]), ("2-2,2", ["a2"])])
def test_the_sessions_grammar_accepts_positions_ranges_and_ids(spec: str, chosen: list[str]) -> None:
    from proactive_bench.dataset import load_episode, pick_sessions

    sessions = load_episode(MINI, "mini").sessions
    assert [s.id for s in pick_sessions(spec, sessions)] == chosen


GARBAGE = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=string.punctuation + string.digits + "-,:/.\\ \x00", max_size=12),
    st.sampled_from(
        ["", "-", "--", "-1", "0", "nan", "inf", "1e999", "/", "/dev/null", "/etc/passwd", "..", "~", "::", "openai:", "scripted:"]
    ),
)
OPTIONS = {  # option -> the command it belongs to (each run stops at the first bad argument)
    "--sessions": "episode",
    "--model": "episode",
    "--user": "episode",
    "--user-model": "episode",
    "--judge-model": "episode",
    "--max-turns": "episode",
    "--agent-option": "episode",
    "--base-url": "episode",
    "--persona": "episode",
    "--data": "episode",
    "--db": "episode",
    "--models": "sweep",
    "--personas": "sweep",
    "--runs": "sweep",
    "--ablation": "sweep",
    "--config": "sweep",
    "--concurrency": "sweep",
    "--workers": "sweep",
    "--rps": "sweep",
    "--max-cost": "sweep",
    "--prices": "sweep",
    "--format": "results",
    "--out": "report",
    "--sample": "audit export",
    "--seed": "audit export",
    "--source": "audit import",
    "RUN_ID": "results",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A results database holding one short run, and its id."""
    db = tmp_path_factory.mktemp("recorded") / "r.db"
    result = run_cli(
        "episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--sessions", "a3", "--db", str(db), "--json"
    )
    assert result.exit_code == 0, result.output
    return db, json.loads(result.stdout)["run_id"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(option=st.sampled_from(sorted(OPTIONS)), value=GARBAGE)
def test_garbage_in_any_option_is_never_a_traceback(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    recorded: tuple[Path, str],
    option: str,
    value: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # a garbage --db, --data or --out is relative to here
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a garbage --model never reaches a real server
    prices = tmp_path / "prices.yaml"
    prices.write_text("some-model: {input: -1, output: 1}\n")  # an accepted sweep stops at its prices, before any run
    audit = tmp_path / "audit.csv"
    audit.write_text("session_run_id,kind,item_id,judged,audited\n")
    db, run_id = recorded
    command = OPTIONS[option]
    base = {
        "episode": {
            "--persona": "mini",
            "--model": "scripted:passive",
            "--sessions": "a3",
            "--data": str(MINI),
            "--db": str(tmp_path / "g.db"),
        },
        "sweep": {
            "--models": "scripted:passive",
            "--personas": "mini",
            "--data": str(MINI),
            "--db": str(tmp_path / "g.db"),
            "--prices": str(prices),
        },
        "results": {"RUN_ID": run_id, "--db": str(db)},
        "report": {"RUN_ID": run_id, "--db": str(db), "--out": str(tmp_path / "r.html")},
        "audit export": {"RUN_ID": run_id, "--db": str(db), "--out": str(tmp_path / "a.csv")},
        "audit import": {"RUN_ID": str(audit), "--db": str(db), "--source": "human:x"},
    }[command]
    args = {**base, option: value}
    argv = [*command.split(), args.pop("RUN_ID", "")] if "RUN_ID" in args else command.split()
    argv += [part for pair in args.items() for part in pair]
    result = run_cli(*argv)
    assert result.exception is None or isinstance(result.exception, SystemExit), f"{argv}: {result.exception!r}"
    assert "Traceback" not in result.output


def test_an_unknown_react_option_is_one_line_naming_the_known_ones(tmp_path: Path) -> None:
    """On a server that is there (a dead one is named first, before the agent loads), the agent's option typo is one
    line before any row is written."""
    with StubServer(plausible_model) as server:
        result = run_cli(
            "episode", "--data", str(MINI), "--persona", "mini", "--agent", "react", "--agent-option", "max_step=3",
            "--model", "openai:stub", "--base-url", server.base_url, "--no-probe", "--db", str(tmp_path / "e.db"),
        )  # fmt: skip
    assert "react has no option 'max_step'; its options: context_tokens, max_retries, max_steps" in assert_one_line_failure(result, 2)
    assert not (tmp_path / "e.db").exists()


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("episode", "--bogus"), "error: No such option: --bogus"),
        (("episode", "--max-turns", "many"), "error: Invalid value for '--max-turns'"),
        (("nosuch",), "error: No such command 'nosuch'"),
        (("episode", "--persona"), "error: Option '--persona' requires an argument"),
    ],
)
def test_typer_usage_errors_are_one_line_like_pbench_errors(args: tuple[str, ...], reason: str) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert result.output.startswith(reason) and "--help)" in result.output, result.output
