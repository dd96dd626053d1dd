"""``pbench report``: an index and one page per run for a scripted sweep, checked in headless Chromium."""

from __future__ import annotations

import json
import os
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from proactive_bench.dataset import CATEGORY_NAMES
from proactive_bench.reporting.html import render_report
from proactive_bench.reporting.html.browser import (
    chromium,
    contrast,
    dump_dom,
    layout_probe,
    screenshot,
)
from proactive_bench.reporting.html.diffs import (
    MAX_DIFF_LINES,
    app_diff,
    workspace_diff,
)
from proactive_bench.reporting.html.readable import readable
from proactive_bench.store import (
    Grade,
    LLMCall,
    MessageRow,
    SessionRun,
    Store,
    ToolCallRow,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI, REPO

BROKEN_AGENT = """
class Broken:
    def start_session(self, ctx): pass
    def respond(self, message): raise KeyError("missing")
    def end_session(self): pass
"""
MODELS = ("scripted:reference", "scripted:passive", "scripted:asker")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """An 8-run sweep on the mini dataset: 3 scripted models and an agent file that always raises (a long model
    name, errored sessions), each with and without dependency history."""
    work = tmp_path_factory.mktemp("sweep")
    agent = work / "an_agent_file_with_a_long_name_that_must_wrap_in_narrow_columns.py"
    agent.write_text(BROKEN_AGENT, encoding="utf-8")
    result = run_cli(
        "sweep",
        "--json",
        "--data",
        str(MINI),
        "--models",
        ",".join((*MODELS, f"{agent}:Broken")),
        "--runs",
        "1",
        "--ablation",
        "none,no-dependency-history",
        "--db",
        str(work / "r.db"),
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert len(out["runs"]) == 8
    return work / "r.db", out


@pytest.fixture(scope="module")
def folder(sweep: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sweep's report written as a folder: index.html and runs/."""
    db, out = sweep
    target = tmp_path_factory.mktemp("report") / "report"
    report(out["runs"][0]["sweep_id"], "--db", str(db), "--out", str(target))
    return target


@pytest.fixture
def browser() -> None:
    if chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install chromium)")


class Elements(HTMLParser):
    """Every start tag of a page with its attributes, in order."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def filtered(self, tag: str, **data: str) -> list[dict[str, str | None]]:
        """Filterable elements of ``tag`` whose ``data-*`` attributes equal ``data``."""
        return [a for t, a in self.tags if t == tag and "data-f" in a and all(a.get(f"data-{k}") == v for k, v in data.items())]


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


def test_the_index_lists_every_run_and_its_matrix_links_resolve(
    sweep: tuple[Path, dict[str, Any]], folder: Path, tmp_path: Path, browser: None
) -> None:
    db, out = sweep
    dom = dump_dom(folder / "index.html", tmp_path / "profile")
    for anchor in ("table-1", "figures", "ablation", "table-7", "table-8", "table-6", "cost", "runs", "matrix"):
        assert f'id="{anchor}"' in dom, anchor
    table_1 = dom[dom.index('id="table-1"') : dom.index('id="figures"')].replace("<wbr>", "")  # long names may wrap after : / _ . -
    assert all(model in table_1 for model in MODELS) and "100.0 ± n/a" in table_1
    # Proc vs Comp per model (figure 3 d), per category (3 a-c) and per persona, turns vs Proc per model (figure 4) and per
    # persona, Proc vs burden, the ablation
    assert dom.count("<svg") == 7
    assert "<section" not in dom  # trajectories live on the run pages
    for run in out["runs"]:  # each run: a row of the run list that links to its page
        assert f'<tr id="run-{run["run_id"]}"' in dom and f'href="runs/{run["run_id"]}.html"' in dom
        assert (folder / "runs" / f"{run['run_id']}.html").is_file()
    matrix = dom[dom.index('id="matrix"') :]
    links = re.findall(r'href="(runs/[0-9a-f]+\.html)#(session-\d+)"', matrix)
    assert len(links) == sum(len(Store(db).session_runs(r["run_id"])) for r in out["runs"]) == 16  # 4 models × (3 + the ablated final)
    pages = {page: (folder / page).read_text(encoding="utf-8") for page, _ in links}
    assert all(f'id="{anchor}"' in pages[page] for page, anchor in links)
    passive_a1 = session_run(db, run_id(out, "scripted:passive"), "a1")
    assert (f"runs/{passive_a1.run_id}.html", f"session-{passive_a1.id}") in links
    assert "Financial model validation and governance (D)" in matrix and "Tool-mediated administrative workflows (R)" in matrix
    assert matrix.count('class="tag error"') == 4  # the raising agent's sessions (3 and the ablated final), marked in their cells


def test_a_run_page_shows_trajectories_with_intent_tags_and_diffs(
    sweep: tuple[Path, dict[str, Any]], folder: Path, tmp_path: Path, browser: None
) -> None:
    db, out = sweep
    passive = run_id(out, "scripted:passive")
    dom = dump_dom(folder / "runs" / f"{passive}.html", tmp_path / "profile")
    assert 'href="../index.html"' in dom and f'id="run-{passive}"' in dom
    passive_a1 = session_run(db, passive, "a1")
    assert f'href="#session-{passive_a1.id}"' in dom  # the run's session list links to the session
    html = section(dom, f"session-{passive_a1.id}")
    assert "Can you summarise notes/batch.csv for me?" in html
    assert html.count('class="tag provided"') == 4  # each intent: in the summary and tagged at its turn
    assert 'data-intent="units"' in html and 'data-intent="mean"' in html
    reference = run_id(out, "scripted:reference")
    reference_dom = dump_dom(folder / "runs" / f"{reference}.html", tmp_path / "profile")
    reference_a1 = section(reference_dom, f"session-{session_run(db, reference, 'a1').id}")
    assert 'class="tag completed"' in reference_a1 and "evidence predicate holds after the turn" in reference_a1
    assert "out/summary.md" in reference_a1 and "+Units: mg/L." in reference_a1  # the workspace diff
    assert "against the run&#39;s starting workspace" in reference_a1 or "against the run's starting workspace" in reference_a1
    assert "<details" in reference_a1 and "write_file" in reference_a1  # tool calls, collapsed
    assert "content:\n# Batch summary\n" in reference_a1.replace("  ", "")  # a file's content with its own line breaks
    assert "\\n" not in reference_a1


def test_the_filter_hides_rows_that_do_not_match(sweep: tuple[Path, dict[str, Any]], folder: Path, tmp_path: Path, browser: None) -> None:
    db, out = sweep
    index = folder / "index.html"
    raw = Elements(index.read_text(encoding="utf-8"))
    assert [a for t, a in raw.tags if "hidden" in a] == [{"id": "filter", "class": "filter", "hidden": None}]  # without JS all shows
    assert len(raw.filtered("tr", persona="tester")) == 3 + 8  # matrix rows and run list rows
    broken = next(r["model"] for r in out["runs"] if r["model"].endswith(":Broken"))

    @cache
    def dom(query: str) -> str:
        """The index's DOM with this query string, dumped once per query (a Chromium start is ~0.6 s of CPU)."""
        return dump_dom(index, tmp_path / "profile", query=query)

    def shown(query: dict[str, str], tag: str, **data: str) -> list[dict[str, str | None]]:
        page = Elements(dom(urlencode(query)))
        return [a for a in page.filtered(tag, **data) if "hidden" not in a]

    assert len(shown({}, "tr")) == 11 and len(shown({}, "a")) == 16
    by_model = {"model": "scripted:passive"}
    assert {a["data-model"] for a in shown(by_model, "tr") if "id" in a} == {"scripted:passive"}  # the run list
    assert {a["data-model"] for a in shown(by_model, "th")} == {"scripted:passive"}  # the matrix's columns
    assert len(shown(by_model, "a")) == 4  # 3 sessions and the ablated final
    by_category = {"category": "R"}
    assert [a["data-category"] for a in shown(by_category, "tr", persona="tester") if "data-category" in a] == ["R"]  # one session left
    errored = shown({"status": "error"}, "a")
    assert len(errored) == 4 and {a["data-model"] for a in errored} == {broken}
    assert {a["id"] for a in shown({"status": "error"}, "tr") if "id" in a} == {
        f"run-{run_id(out, broken, ab)}" for ab in ("none", "no-dependency-history")
    }
    assert "showing 1 of 3" in dom(urlencode(by_category))
    run_page = folder / "runs" / f"{run_id(out, 'scripted:passive')}.html"
    by_category_on_run = Elements(dump_dom(run_page, tmp_path / "profile", query="category=D"))
    assert [a["data-category"] for a in by_category_on_run.filtered("section") if "hidden" not in a] == ["D", "D"]


def test_no_overflow_at_1400_px_readable_tags_and_a_bounded_index(
    sweep: tuple[Path, dict[str, Any]], folder: Path, tmp_path: Path, browser: None
) -> None:
    db, out = sweep
    broken = next(r["run_id"] for r in out["runs"] if r["model"].endswith(":Broken") and r["ablation"] == "none")
    pages = [folder / "index.html", folder / "runs" / f"{run_id(out, 'scripted:reference')}.html", folder / "runs" / f"{broken}.html"]
    probes = [layout_probe(page, tmp_path / "profile", width=1400) for page in pages]
    for page, probe in zip(pages, probes, strict=True):
        assert probe["width"] == 1400
        assert probe["wide"] == [] and probe["scrollWidth"] <= probe["width"], page
    colours = [colour for probe in probes for colour in probe["colours"]]
    assert 2_000 < probes[0]["height"] < 8_000  # the index: was one 277,000-pixel page for a sweep like this
    assert {c[0] for c in colours} >= {"tag error", "tag completed", "tag pass", "error"}
    low = [(name, round(contrast(fg, bg), 2)) for name, fg, bg in colours if contrast(fg, bg) < 4.5]
    assert low == []  # WCAG AA for normal text
    for page, name in ((pages[0], "index"), (pages[2], "run")):
        shot = tmp_path / f"{name}.png"
        screenshot(page, tmp_path / "profile", shot, (1400, 2000))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_out_as_an_html_file_and_a_comparison_of_two(sweep: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db, out = sweep
    reference, passive = run_id(out, "scripted:reference"), run_id(out, "scripted:passive")
    written = report(passive, "--db", str(db), "--out", str(tmp_path / "one.html"))
    assert str(tmp_path / "one.html") in written.output
    one = (tmp_path / "one.html").read_text()
    assert "1 run(s) · 3 session(s)" in one and f'href="runs/{passive}.html"' in one and f'id="run-{reference}"' not in one
    page = (tmp_path / "runs" / f"{passive}.html").read_text()
    assert 'href="../one.html"' in page and page.count('<section class="session"') == 3
    report("--compare", reference, passive, "--db", str(db), "--out", str(tmp_path / "compare.html"))
    compared = (tmp_path / "compare.html").read_text()
    changes = compared[compared.index('id="changes"') : compared.index('id="sessions"')]
    assert '<b>units</b>: <span class="tag completed">completed</span> → <span class="tag provided">provided</span>' in changes
    assert "-100.0" in changes  # Δ Proc of a1
    assert compared.count('class="pair"') == 3
    (tmp_path / "file").write_text("x")
    blocked = run_cli("report", passive, "--db", str(db), "--out", str(tmp_path / "file" / "report"))
    assert blocked.exit_code == 2 and "cannot write" in blocked.output and "Traceback" not in blocked.output


def test_bad_ids_are_one_line_errors(sweep: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db, out = sweep
    missing = run_cli("report", "nope", "--db", str(db))
    assert missing.exit_code == 2 and "no sweep or run 'nope'" in missing.output and "Traceback" not in missing.output
    assert run_cli("report", "--db", str(db)).exit_code == 2
    assert run_cli("report", "--compare", run_id(out, "scripted:passive"), "nope", "--db", str(db)).exit_code == 2
    assert run_cli("report", "x", "--db", str(tmp_path / "none.db")).exit_code == 2


def test_a_single_episode_run_with_model_calls_and_hostile_output(tmp_path: Path, browser: None) -> None:
    db = tmp_path / "r.db"
    episode = run_cli(
        "episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--sessions", "1", "--db", str(db)
    )
    run = json.loads(episode.stdout)["run_id"]
    store = Store(db)
    (first,) = store.session_runs(run)
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    store.add(
        MessageRow(session_run_id=first.id, turn=1, role="agent", content=hostile),
        ToolCallRow(session_run_id=first.id, turn=1, seq=9, tool_name="<b>tool</b>", call={"path": hostile}, result={}, ok=False),
        ToolCallRow(
            session_run_id=first.id,
            turn=1,
            seq=10,
            tool_name="read_file",
            call={"path": "x" * 400},
            result={"content": "first line\nsecond line", "rows": [{"id": "y" * 300}]},
            ok=True,
        ),
        Grade(session_run_id=first.id, item_id="c9", grader="rubric", weight=1.0, score=0, rationale=hostile),
        LLMCall(
            run_id=run,
            session_run_id=first.id,
            role="judge",
            purpose="rubric",
            model="m",
            method="json_schema",
            ok=True,
            attempt=1,
            latency_ms=5.0,
            prompt_tokens=100,
            completion_tokens=20,
            cost_usd=0.25,
        ),
    )
    pages = render_report(store, run).pages()
    assert set(pages) == {"index.html", f"runs/{run}.html"}
    for html in pages.values():
        assert "<img" not in html and "<b>tool</b>" not in html  # model output is escaped everywhere
        assert "<script>alert" not in html and "<script" not in html.replace("<script>\n", "")  # only the filter's own script
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[f"runs/{run}.html"]
    assert "content:\n  first line\n  second line" in pages[f"runs/{run}.html"]  # real line breaks, not \\n
    cost = pages["index.html"][pages["index.html"].index('id="cost"') : pages["index.html"].index('id="runs"')]
    assert "<td>judge</td>" in cost and "0.2500" in cost
    (tmp_path / "runs").mkdir()
    for name, html in pages.items():
        (tmp_path / name).write_text(html, encoding="utf-8")
    probe = layout_probe(tmp_path / "runs" / f"{run}.html", tmp_path / "profile", width=1400)
    assert probe["wide"] == [] and probe["scrollWidth"] <= 1400  # a 400-character path and a 300-character id wrap


def test_readable_keeps_line_breaks_and_nesting() -> None:
    value = {"path": "a.csv", "content": "x,y\n1,2", "n": 3, "empty": "", "none": None, "rows": [{"id": 1, "tags": []}, "two\nlines"]}
    assert readable(value).split("\n") == [
        "path: a.csv",
        "content:",
        "  x,y",
        "  1,2",
        "n: 3",
        'empty: ""',
        "none: null",
        "rows:",
        "  -",
        "    id: 1",
        "    tags: []",
        "  -",
        "    two",
        "    lines",
    ]
    assert readable("plain\ntext") == "plain\ntext" and readable([]) == "[]"


def test_category_names_match_the_taxonomy_document() -> None:
    text = (REPO / "docs" / "taxonomy.md").read_text(encoding="utf-8")
    assert dict(re.findall(r"^\| ([A-Z]) \| ([^|]+?) \|", text, re.MULTILINE)) == CATEGORY_NAMES


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
    assert [(p, d.change) for p, d in diffs.items()] == [
        ("big.txt", "added"),
        ("blob.bin", "modified"),
        ("edit.md", "modified"),
        ("gone.txt", "removed"),
    ]
    assert [(line.kind, line.text) for line in diffs["edit.md"].lines] == [
        ("hunk", "@@ -1,2 +1,2 @@"),
        ("same", " one"),
        ("del", "-two"),
        ("add", "+three"),
    ]
    assert "9 → 10 bytes" in diffs["blob.bin"].note and not diffs["blob.bin"].lines
    assert len(diffs["big.txt"].lines) == MAX_DIFF_LINES and diffs["big.txt"].hidden == 51  # hunk header + 450 lines
    assert [line.text for line in diffs["gone.txt"].lines] == ["@@ -1 +0,0 @@", "-y"]


def test_app_diff_lists_rows_added_changed_and_removed_by_id() -> None:
    before = {
        "gmail_draft": [{"id": 1, "subject": "Old", "body": "x"}, {"id": 2, "subject": "Gone", "body": ""}],
        "app_clock": [{"id": 1, "now": "a"}],
    }
    after = {
        "gmail_draft": [{"id": 1, "subject": "New", "body": "x"}, {"id": 3, "subject": "Fresh", "body": ""}],
        "app_clock": [{"id": 1, "now": "b"}],
        "todoist_task_label": [{"task_id": 7, "label_id": 2}],
    }
    drafts, labels = app_diff(before, after)  # the simulated clock is bookkeeping, not a change
    assert [r.key for r in drafts.added] == ["id 3"] and [r.key for r in drafts.removed] == ["id 2"]
    assert drafts.changed[0].fields == {"subject": ["Old", "New"]}
    assert labels.table == "todoist_task_label" and labels.added[0].fields == {"task_id": 7, "label_id": 2}
