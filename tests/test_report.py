"""``pbench report``: an HTML report of a scripted sweep, checked in headless Chromium."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import MINI, run_cli

from proactive_bench.reporting.html import render_report
from proactive_bench.reporting.html.browser import chromium, dump_dom, screenshot
from proactive_bench.reporting.html.diffs import (
    MAX_DIFF_LINES,
    app_diff,
    workspace_diff,
)
from proactive_bench.store import (
    Grade,
    LLMCall,
    MessageRow,
    SessionRun,
    Store,
    ToolCallRow,
)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """2 scripted models × 2 runs × with and without dependency history, on the mini dataset."""
    db = tmp_path_factory.mktemp("sweep") / "r.db"
    result = run_cli(
        "sweep", "--json", "--data", str(MINI), "--models", "scripted:reference,scripted:passive", "--runs", "2",
        "--ablation", "none,no-dependency-history", "--db", str(db),
    )
    assert result.exit_code == 0, result.output
    return db, json.loads(result.stdout)


@pytest.fixture
def browser() -> None:
    if chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install chromium)")


def run_id(out: dict[str, Any], model: str, ablation: str = "none") -> str:
    return next(r["run_id"] for r in out["runs"] if r["model"] == model and r["ablation"] == ablation)


def session_run(db: Path, run: str, session_id: str) -> SessionRun:
    return next(sr for sr in Store(db).session_runs(run) if sr.session_id == session_id)


def section(dom: str, anchor: str) -> str:
    """The HTML of one session section of a dumped DOM."""
    start = dom.index(f'id="{anchor}"')
    return dom[start : dom.index("</section>", start)]


def report(*args: str) -> Any:
    result = run_cli("report", *args)
    assert result.exit_code == 0, result.output
    return result


def test_sweep_report_renders_tables_figures_and_intent_tags_in_chromium(sweep: tuple[Path, dict[str, Any]], tmp_path: Path, browser: None) -> None:
    db, out = sweep
    page = tmp_path / "report.html"
    report(out["runs"][0]["sweep_id"], "--db", str(db), "--out", str(page))
    dom = dump_dom(page, tmp_path / "profile")
    for anchor in ("table-1", "figures", "ablation", "table-7", "table-8", "table-6", "cost", "runs"):
        assert f'id="{anchor}"' in dom, anchor
    table_1 = dom[dom.index('id="table-1"') : dom.index('id="figures"')]
    assert "scripted:reference" in table_1 and "scripted:passive" in table_1 and "100.0 ± 0.0" in table_1
    assert dom.count("<svg") == 4  # Proc vs Comp, turns vs Proc, Proc vs burden, the ablation
    assert "No audits recorded" in dom
    passive_a1 = session_run(db, run_id(out, "scripted:passive"), "a1")
    assert f'href="#session-{passive_a1.id}"' in dom  # the run index links to the session
    html = section(dom, f"session-{passive_a1.id}")
    assert "Can you summarise notes/batch.csv for me?" in html
    assert html.count('class="tag provided"') == 4  # each intent: in the summary and tagged at its turn
    assert 'data-intent="units"' in html and 'data-intent="mean"' in html
    reference_a1 = section(dom, f"session-{session_run(db, run_id(out, 'scripted:reference'), 'a1').id}")
    assert 'class="tag completed"' in reference_a1 and "evidence predicate holds after the turn" in reference_a1
    assert "out/summary.md" in reference_a1 and "+Units: mg/L." in reference_a1  # the workspace diff
    assert "against the run&#39;s starting workspace" in reference_a1 or "against the run's starting workspace" in reference_a1
    assert "<details" in reference_a1 and "write_file" in reference_a1  # tool calls, collapsed
    shot = tmp_path / "report.png"
    screenshot(page, tmp_path / "profile", shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_report_of_one_run_and_a_comparison_of_two(sweep: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db, out = sweep
    reference, passive = run_id(out, "scripted:reference"), run_id(out, "scripted:passive")
    report(passive, "--db", str(db), "--out", str(tmp_path / "one.html"))
    one = (tmp_path / "one.html").read_text()
    assert "1 run(s) · 3 session(s)" in one and f'id="run-{passive}"' in one and f'id="run-{reference}"' not in one
    report("--compare", reference, passive, "--db", str(db), "--out", str(tmp_path / "compare.html"))
    compared = (tmp_path / "compare.html").read_text()
    changes = compared[compared.index('id="changes"') : compared.index('id="sessions"')]
    assert "<b>units</b>: <span class=\"tag completed\">completed</span> → <span class=\"tag provided\">provided</span>" in changes
    assert "-100.0" in changes  # Δ Proc of a1
    assert compared.count('class="pair"') == 3


def test_bad_ids_are_one_line_errors(sweep: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db, out = sweep
    missing = run_cli("report", "nope", "--db", str(db))
    assert missing.exit_code == 2 and "no sweep or run 'nope'" in missing.output and "Traceback" not in missing.output
    assert run_cli("report", "--db", str(db)).exit_code == 2
    assert run_cli("report", "--compare", run_id(out, "scripted:passive"), "nope", "--db", str(db)).exit_code == 2
    assert run_cli("report", "x", "--db", str(tmp_path / "none.db")).exit_code == 2


def test_a_single_episode_run_with_model_calls_and_hostile_output(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    episode = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--sessions", "1", "--db", str(db))
    run = json.loads(episode.stdout)["run_id"]
    store = Store(db)
    (first,) = store.session_runs(run)
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    store.add(
        MessageRow(session_run_id=first.id, turn=1, role="agent", content=hostile),
        ToolCallRow(session_run_id=first.id, turn=1, seq=9, tool_name="<b>tool</b>", call={"path": hostile}, result={}, ok=False),
        Grade(session_run_id=first.id, item_id="c9", grader="rubric", weight=1.0, score=0, rationale=hostile),
        LLMCall(run_id=run, session_run_id=first.id, role="judge", purpose="rubric", model="m", method="json_schema", ok=True, attempt=1,
                latency_ms=5.0, prompt_tokens=100, completion_tokens=20, cost_usd=0.25),
    )
    html = render_report(store, run)
    assert "<script" not in html and "<img" not in html and "<b>tool</b>" not in html  # model output is escaped everywhere
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    cost = html[html.index('id="cost"') : html.index('id="runs"')]
    assert "<td>judge</td>" in cost and "0.2500" in cost


def test_workspace_diff_lists_added_removed_and_changed_files() -> None:
    before = {
        "same.txt": {"size": 1, "sha256": "a", "text": "x"},
        "gone.txt": {"size": 1, "sha256": "b", "text": "y"},
        "edit.md": {"size": 2, "sha256": "c", "text": "one\ntwo\n"},
        "blob.bin": {"size": 9, "sha256": "d"},
    }
    after = {
        "same.txt": before["same.txt"],
        "edit.md": {"size": 3, "sha256": "e", "text": "one\nthree\n"},
        "blob.bin": {"size": 10, "sha256": "f"},
        "big.txt": {"size": 1, "sha256": "g", "text": "\n".join(map(str, range(MAX_DIFF_LINES + 50)))},
    }
    diffs = {d.path: d for d in workspace_diff(before, after)}
    assert [(p, d.change) for p, d in diffs.items()] == [("big.txt", "added"), ("blob.bin", "modified"), ("edit.md", "modified"), ("gone.txt", "removed")]
    assert [(line.kind, line.text) for line in diffs["edit.md"].lines] == [("hunk", "@@ -1,2 +1,2 @@"), ("same", " one"), ("del", "-two"), ("add", "+three")]
    assert "9 → 10 bytes" in diffs["blob.bin"].note and not diffs["blob.bin"].lines
    assert len(diffs["big.txt"].lines) == MAX_DIFF_LINES and diffs["big.txt"].hidden == 51  # hunk header + 450 lines
    assert [line.text for line in diffs["gone.txt"].lines] == ["@@ -1 +0,0 @@", "-y"]


def test_app_diff_lists_rows_added_changed_and_removed_by_id() -> None:
    before = {"gmail_draft": [{"id": 1, "subject": "Old", "body": "x"}, {"id": 2, "subject": "Gone", "body": ""}], "app_clock": [{"id": 1, "now": "a"}]}
    after = {"gmail_draft": [{"id": 1, "subject": "New", "body": "x"}, {"id": 3, "subject": "Fresh", "body": ""}], "app_clock": [{"id": 1, "now": "b"}],
             "todoist_task_label": [{"task_id": 7, "label_id": 2}]}
    drafts, labels = app_diff(before, after)  # the simulated clock is bookkeeping, not a change
    assert [r.key for r in drafts.added] == ["id 3"] and [r.key for r in drafts.removed] == ["id 2"]
    assert drafts.changed[0].fields == {"subject": ["Old", "New"]}
    assert labels.table == "todoist_task_label" and labels.added[0].fields == {"task_id": 7, "label_id": 2}
