"""Finding runs: ``pbench runs`` / ``sweeps`` with filters and JSON, ids by unique prefix or ``latest``, ``--version``.

Every listing is read at COLUMNS=80 (and 60), as a new user's terminal would
show it: ids, model names and statuses must come out whole.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path
from typing import NamedTuple

import pytest

from proactive_bench.reporting import parse_since
from proactive_bench.store import IdLookupError, Run, Store, Sweep
from tests.helpers.cli import run_cli
from tests.helpers.paths import HELPERS, MINI

WRITER = f"{HELPERS / 'long_writer_agent.py'}:LongWriter"
"""A custom agent by file path: a model name far longer than a column at 80 characters."""
CUT_MARKS = ("…", "\x1b[")
"""An ellipsis means rich cut a cell; an escape sequence means colour went into a pipe."""
BOX_DRAWING = re.compile(r"[\u2500-\u257f]")


class Recorded(NamedTuple):
    """The database the tests read, and the ids in it."""

    db: Path
    asker: str
    """The first run: scripted:asker, alone."""
    writer: str
    """The second: the long-named custom agent."""
    sweep: str
    sweep_runs: list[str]
    """asker's run, then passive's."""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """Two episode runs (one with a long custom agent path), then a sweep of two scripted models, in one database."""
    db = tmp_path_factory.mktemp("runs") / "pbench.db"
    ids = []
    for model in ("scripted:asker", WRITER):
        result = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", model, "--db", str(db))
        assert result.exit_code in (0, 1), result.output
        ids.append(json.loads(result.stdout)["run_id"])
    swept = run_cli("sweep", "--json", "--data", str(MINI), "--models", "scripted:asker,scripted:passive", "--db", str(db))
    assert swept.exit_code == 0, swept.output
    sweep_id = re.search(r"sweep (\w{12}):", swept.stderr)[1]  # type: ignore[index]
    runs = [row["run_id"] for row in json.loads(swept.stdout)["runs"]]
    return Recorded(db, ids[0], ids[1], sweep_id, runs)


def assert_readable(output: str, *whole: str) -> None:
    for text in whole:
        assert text in output, f"{text!r} is cut or missing in:\n{output}"
    assert not any(mark in output for mark in CUT_MARKS), output
    assert not BOX_DRAWING.search(output), f"box drawing in piped output:\n{output}"


@pytest.mark.parametrize("columns", ["80", "60"])
def test_runs_list_keeps_ids_models_and_statuses_whole_at_narrow_widths(
    recorded: Recorded, columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    listed = run_cli("runs", "--db", str(recorded.db))
    assert listed.exit_code == 0, listed.output
    assert_readable(listed.stdout, recorded.asker, recorded.writer, *recorded.sweep_runs, WRITER, "scripted:passive", "finished", "tester")
    assert max(len(line) for line in listed.stdout.splitlines() if WRITER not in line) <= int(columns)


@pytest.mark.parametrize("columns", ["80", "60"])
def test_sweeps_list_and_sweep_summary_keep_model_names_whole(recorded: Recorded, columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    listed = run_cli("sweeps", "--db", str(recorded.db))
    assert listed.exit_code == 0, listed.output
    assert_readable(listed.stdout, recorded.sweep, "scripted:asker", "scripted:passive", "finished")
    summary = run_cli("results", recorded.sweep, "--db", str(recorded.db))
    assert summary.exit_code == 0, summary.output
    assert_readable(summary.stdout, "scripted:asker", "scripted:passive", "completed", "tester")


def test_a_wide_terminal_gets_one_line_per_run(recorded: Recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    listed = run_cli("runs", "--db", str(recorded.db)).stdout
    line = next(line for line in listed.splitlines() if recorded.writer in line)
    assert WRITER in line and "finished" in line and "tester" in line


def test_runs_json_carries_the_figures_pbench_results_reports(recorded: Recorded) -> None:
    listed = run_cli("runs", "--json", "--db", str(recorded.db))
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert set(rows) == {recorded.asker, recorded.writer, *recorded.sweep_runs}
    result = json.loads(run_cli("results", recorded.asker, "--format", "json", "--db", str(recorded.db)).stdout)["runs"][0]
    row = rows[recorded.asker]
    assert (row["proc"], row["comp"], row["status"]) == (result["proc"], result["comp"], result["status"])
    assert row["sessions_done"] == row["sessions_planned"] == 3 and row["model"] == "scripted:asker" and row["user"] == "rules"
    assert row["ablation"] == "none" and row["sweep_id"] is None and rows[recorded.sweep_runs[0]]["sweep_id"] == recorded.sweep
    assert rows[recorded.asker]["proc"] == 1.0 and rows[recorded.sweep_runs[1]]["proc"] == 0.0  # asker infers everything, passive nothing
    sweeps = json.loads(run_cli("sweeps", "--json", "--db", str(recorded.db)).stdout)
    assert [s["id"] for s in sweeps] == [recorded.sweep]
    arms = {arm["model"]: arm["proc"] for arm in sweeps[0]["arms"]}
    assert arms == {"scripted:asker": 1.0, "scripted:passive": 0.0} and sweeps[0]["sessions_done"] == 6 and sweeps[0]["runs"] == 2


def test_filters_narrow_the_list(recorded: Recorded) -> None:
    def ids(*args: str) -> list[str]:
        result = run_cli("runs", "--json", "--db", str(recorded.db), *args)
        assert result.exit_code == 0, result.output
        return [row["id"] for row in json.loads(result.stdout)]

    every = ids()
    assert every[-1] == recorded.asker and set(every[:2]) == set(recorded.sweep_runs)  # newest first
    assert ids("--model", "passive") == [recorded.sweep_runs[1]]
    assert ids("--model", "long_writer") == [recorded.writer]
    assert ids("--persona", "tester") == ids("--persona", "mini") == every and ids("--persona", "nobody") == []
    assert ids("--status", "finished") == every and ids("--status", "failed") == []
    assert ids("--since", "1h") == every and ids("--since", "2999-01-01") == []
    assert ids("--limit", "1") == every[:1]
    sweeps = run_cli("sweeps", "--json", "--db", str(recorded.db), "--model", "passive", "--status", "finished")
    assert [s["id"] for s in json.loads(sweeps.stdout)] == [recorded.sweep]
    assert json.loads(run_cli("sweeps", "--json", "--db", str(recorded.db), "--model", "long_writer").stdout) == []
    empty = run_cli("runs", "--db", str(recorded.db), "--persona", "nobody")
    assert empty.exit_code == 0 and empty.stdout == "" and "match the filters" in empty.stderr


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--status", "done"], "--status must be one of created, running, finished"),
        (["--since", "yesterday"], "--since: 'yesterday' is neither a duration"),
    ],
)
def test_a_bad_filter_is_one_line(recorded: Recorded, args: list[str], reason: str) -> None:
    result = run_cli("runs", "--db", str(recorded.db), *args)
    assert result.exit_code == 2 and reason in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_since_reads_durations_and_dates() -> None:
    now = parse_since("2026-11-26T12:00+00:00")
    assert parse_since("2h", now).isoformat() == "2026-11-26T10:00:00+00:00"
    assert parse_since("3d", now).day == 23 and parse_since("1w", now).day == 19 and parse_since("30m", now).minute == 30
    assert parse_since("2026-11-24").tzinfo is not None  # a plain date is local time, made comparable
    with pytest.raises(ValueError, match="since: .3 fortnights. is neither"):
        parse_since("3 fortnights")


def test_prefixes_and_latest_resolve_in_every_id_command(recorded: Recorded, tmp_path: Path) -> None:
    db = str(recorded.db)
    latest = json.loads(run_cli("results", "latest", "--json", "--db", db).stdout)
    assert {row["run_id"] for row in latest["runs"]} == set(recorded.sweep_runs)  # the sweep began after both episodes
    by_prefix = json.loads(run_cli("results", recorded.writer[:6], "--format", "json", "--db", db).stdout)
    assert [row["run_id"] for row in by_prefix["runs"]] == [recorded.writer]
    rescored = run_cli("rescore", recorded.asker[:5], "--json", "--db", db)
    assert rescored.exit_code == 0 and json.loads(rescored.stdout)["run_id"] == recorded.asker
    newest_run = json.loads(run_cli("runs", "--json", "--limit", "1", "--db", db).stdout)[0]["id"]
    assert json.loads(run_cli("rescore", "latest", "--json", "--db", db).stdout)["run_id"] == newest_run  # a run command: the newest run
    report = tmp_path / "r.html"
    assert run_cli("report", recorded.sweep[:4], "--db", db, "--out", str(report)).exit_code == 0 and recorded.sweep in report.read_text()
    compared = run_cli("report", "--compare", recorded.asker[:6], "latest", "--db", db, "--out", str(tmp_path / "c.html"))
    assert compared.exit_code == 0 and f"run {recorded.asker} vs run {newest_run}" in (tmp_path / "c.html").read_text()
    audit_file = run_cli("audit", "export", recorded.asker[:7], "--db", db, "--out", str(tmp_path / "a.csv"))
    assert audit_file.exit_code == 0 and recorded.asker in (tmp_path / "a.csv").read_text()
    exported = run_cli("export", recorded.writer[:6], "--db", db)
    assert exported.exit_code == 0 and {json.loads(line)["run_id"] for line in exported.stdout.splitlines()} == {recorded.writer}
    compared = run_cli("results", "--compare", recorded.asker[:6], "latest", "--json", "--db", db)
    assert compared.exit_code == 0, compared.output
    assert (json.loads(compared.stdout)["a"], json.loads(compared.stdout)["b"]) == (recorded.asker, recorded.sweep)  # labelled in full
    shown = run_cli("audit", "show", "latest", "--json", "--db", db)
    assert shown.exit_code == 0 and json.loads(shown.stdout) == []
    resumed = run_cli("resume", recorded.sweep[:5], "--db", db, "--no-validate")  # a finished sweep: nothing left to run
    assert "no sweep or run" not in resumed.output and "ambiguous" not in resumed.output and "Traceback" not in resumed.output


def test_an_ambiguous_prefix_lists_the_candidates_on_one_line(recorded: Recorded, tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    store = Store(db)
    store.add(Sweep(id="abc000000001"), Sweep(id="abc000000002"))
    store.add(Run(id="abd000000003", persona="p", model="m", user_backend="rules", data_root=".", workspace="."))
    for command in (
        ["results", "ab"],
        ["report", "ab"],
        ["audit", "show", "ab"],
        ["resume", "ab"],
        ["export", "ab"],
        ["results", "--compare", "ab", "latest"],
    ):
        result = run_cli(*command, "--db", str(db))
        assert result.exit_code == 2, (command, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "'ab' is ambiguous" in lines[0] and "Traceback" not in result.output, result.output
        assert all(
            f"{kind} {ident}" in lines[0] for kind, ident in (("sweep", "abc000000001"), ("sweep", "abc000000002"), ("run", "abd000000003"))
        )
    missing = run_cli("results", "zz", "--db", str(recorded.db))
    assert missing.exit_code == 2 and "no sweep or run 'zz'" in missing.stderr


def test_store_resolution_rules(tmp_path: Path) -> None:
    store = Store(tmp_path / "pbench.db")
    with pytest.raises(IdLookupError, match="no sweep or run yet"):
        store.resolve("latest")
    store.add(Sweep(id="5a_000000001"), Run(id="5ab000000002", persona="p", model="m", user_backend="rules", data_root=".", workspace="."))
    assert store.resolve("5ab").id == "5ab000000002" and store.resolve("5a_000000001").id == "5a_000000001"
    with pytest.raises(IdLookupError, match="ambiguous"):
        store.resolve("5a")
    with pytest.raises(IdLookupError, match="no sweep or run '5%'"):
        store.resolve("5%")  # LIKE wildcards are taken literally
    assert store.resolve("5a", sweeps=False).id == "5ab000000002" and store.resolve("latest", runs=False).id == "5a_000000001"
    assert store.resolve("latest").id == "5ab000000002"  # a run outside any sweep, newer than the sweep
    with pytest.raises(IdLookupError, match="no run '5a_'"):
        store.resolve("5a_", sweeps=False)


def test_version_prints_the_installed_package_version() -> None:
    result = run_cli("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"pbench {version('pbench')}"
