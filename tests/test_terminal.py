"""Tables at any width: whole columns never cut, stacked when narrow, plain through a pipe; every table command at COLUMNS=80."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from proactive_bench.terminal import TableConsole
from proactive_bench.testing.stub_server import StubServer
from proactive_bench.testing.stub_zoo import model_listing, plausible_model, with_quirk
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI, PIBENCH_MINI

CRASHER = "test:crashing-reference"  # tests/helpers/crashing_agent.py, granted the reference solution in conftest
MODEL = "openai:a-model-name-that-is-much-longer-than-any-column-could-be"
BOX_DRAWING = re.compile(r"[\u2500-\u257f]")


def table() -> Table:
    rows = Table(title="models")
    rows.add_column("model", no_wrap=True)
    rows.add_column("status", no_wrap=True)
    rows.add_column("note")
    rows.add_row(MODEL, "interrupted", "a long note that may wrap wherever it likes, word by word, across as many lines as it needs")
    rows.add_row("scripted:reference", "finished", "short")
    return rows


def printed(width: int, terminal: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    TableConsole(file=out, width=width, force_terminal=terminal, color_system="standard" if terminal else None).print(table())
    return out.getvalue()


def test_a_wide_terminal_gets_a_grid_with_one_line_per_row(monkeypatch: pytest.MonkeyPatch) -> None:
    text = printed(200, True, monkeypatch)
    assert BOX_DRAWING.search(text)  # the header rule
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert any(MODEL in line and "interrupted" in line for line in plain.splitlines())


@pytest.mark.parametrize("width", [80, 60])
def test_a_narrow_width_stacks_rows_and_keeps_whole_columns_whole(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = printed(width, False, monkeypatch)
    lines = text.splitlines()
    assert any(line.endswith(MODEL) for line in lines) and "interrupted" in text and "scripted:reference" in text
    assert "…" not in text and not BOX_DRAWING.search(text) and "\x1b[" not in text
    assert all(len(line) <= width for line in lines if MODEL not in line)  # the wrapping column wrapped
    assert "across as many lines as it needs" in " ".join(text.split())


def test_columns_from_the_environment_win_over_the_console_width(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setenv("COLUMNS", "60")
    TableConsole(file=out, width=300).print(table())
    assert not any(MODEL in line and "interrupted" in line for line in out.getvalue().splitlines())  # stacked at 60


def test_other_output_prints_as_rich_does() -> None:
    out = io.StringIO()
    TableConsole(file=out, width=80).print("[bold]plain[/] words", 3)
    assert out.getvalue() == "plain words 3\n"
    assert Console is TableConsole.__mro__[1]


def test_the_episode_table_keeps_sessions_and_statuses_whole_at_80(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--model", CRASHER, "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 1  # a session errored
    for text in ("a1", "a2", "a3", "completed", "error", CRASHER):
        assert text in result.stdout, result.stdout
    assert "ConnectionError: model endpoint refused the connection" in " ".join(result.stdout.split())  # the error column wraps
    assert "…" not in result.stdout and not BOX_DRAWING.search(result.stdout)


@pytest.mark.xdist_group("shipped-validation")
@pytest.mark.usefixtures("shipped_validation_cache")
def test_tools_and_dataset_stats_print_names_whole_at_80_and_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    names = [tool["name"] for tool in json.loads(run_cli("tools", "--json").stdout)]
    listed = run_cli("tools").stdout
    assert max(map(len, names)) > 15 and all(name in listed for name in names) and "…" not in listed
    stats = run_cli("validate", "--stats")
    assert stats.exit_code == 0 and "pharmacist" in stats.stdout and "…" not in stats.stdout
    as_json = json.loads(run_cli("validate", "--stats", "--json").stdout)
    assert "pharmacist" in {row["persona"] for row in as_json["stats"]}
    assert "stats" not in json.loads(run_cli("validate", "--json").stdout)


def test_the_probe_table_keeps_capabilities_and_outcomes_whole_at_60(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    with StubServer(with_quirk(plausible_model, "reject-format-422"), models=model_listing("reject-format-422")) as server:
        table = run_cli("probe", "--model", "openai:zoo", "--base-url", server.base_url)
    assert table.exit_code == 0, table.output
    for text in ("plain chat", "json_schema", "function_calling", "json_mode", "tool use", "supported", "rejected", "422"):
        assert text in table.stdout, table.stdout
    assert "…" not in table.stdout and not BOX_DRAWING.search(table.stdout)


def test_the_import_counts_print_as_json(tmp_path: Path) -> None:
    result = run_cli("import", "pibench", str(PIBENCH_MINI), "--out", str(tmp_path / "out"), "--json")
    assert result.exit_code == 0, result.output
    counts = {row["persona"]: row for row in json.loads(result.stdout)}
    assert set(counts) == {"Financier", "researcher"} and counts["Financier"]["intents"] == 24
