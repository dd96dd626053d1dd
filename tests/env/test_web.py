"""web_search and web_fetch over an episode's offline corpus."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.web import html_to_text, normalize_url
from proactive_bench.env.workspace import Workspace

DOSING_HTML = """<html><head><title>Paracetamol dosing | Health</title><style>p {color: red}</style></head>
<body><script>var tracking = 1;</script><h1>Paracetamol for adults</h1>
<p>Take 500 mg to 1 g   every 4-6 hours.</p><ul><li>At most 4 g a day</li><li>Ask a pharmacist</li></ul></body></html>"""


@pytest.fixture
def web(tmp_path: Path) -> Path:
    root = tmp_path / "web"
    (root / "nhs").mkdir(parents=True)
    (root / "nhs" / "dosing.html").write_text(DOSING_HTML)
    (root / "interactions.md").write_text("# Ibuprofen interactions\n\nIbuprofen with aspirin may reduce aspirin's effect.\n")
    (root / "notes.txt").write_text("Opening hours of the pharmacy: 9 to 18.\n")
    (root / "index.yaml").write_text(
        "https://www.nhs.uk/medicines/paracetamol/: {file: nhs/dosing.html}\nhttps://example.org/ibu: {file: interactions.md, title: Ibuprofen and friends}\n"
    )
    return root


@pytest.fixture
def box(tmp_path: Path, web: Path) -> ToolBox:
    env = ToolEnv(Workspace(tmp_path / "ws"), Memory(), web_root=web)
    return ToolBox(env, resolve_tool_names(["web"]))


def test_html_to_text_drops_markup_scripts_and_styles() -> None:
    title, text = html_to_text(DOSING_HTML)
    assert title == "Paracetamol dosing | Health"
    assert text == "Paracetamol for adults\nTake 500 mg to 1 g every 4-6 hours.\nAt most 4 g a day\nAsk a pharmacist"


def test_search_ranks_by_term_overlap_with_title_weighted(box: ToolBox) -> None:
    results = box.call("web_search", {"query": "paracetamol pharmacy"}).result["response"]
    assert [r["url"] for r in results] == ["https://www.nhs.uk/medicines/paracetamol", "https://notes.txt"]
    assert results[0]["title"] == "Paracetamol dosing | Health" and results[0]["snippet"].startswith("Paracetamol for adults")
    # a title word (x3 + body) outweighs three body words; ties go by url
    ranked = box.call("web_search", {"query": "ibuprofen opening hours pharmacy"}).result["response"]
    assert [r["url"] for r in ranked] == ["https://example.org/ibu", "https://notes.txt", "https://www.nhs.uk/medicines/paracetamol"]
    ibu = box.call("web_search", {"query": "Ibuprofen aspirin", "max_results": 1}).result["response"]
    assert ibu == [
        {
            "title": "Ibuprofen and friends",
            "url": "https://example.org/ibu",
            "snippet": "# Ibuprofen interactions Ibuprofen with aspirin may reduce aspirin's effect.",
        }
    ]
    assert box.call("web_search", {"query": "zebra"}).result == {"response": []}
    assert "no words" in box.call("web_search", {"query": "?!"}).result["error"]


def test_fetch_returns_readable_text(box: ToolBox) -> None:
    page = box.call("web_fetch", {"url": "https://www.nhs.uk/medicines/paracetamol/#dose"}).result["response"]
    assert page["url"] == "https://www.nhs.uk/medicines/paracetamol" and page["text"].startswith("Paracetamol for adults\nTake 500 mg")
    assert box.call("web_fetch", {"url": "notes.txt"}).result["response"]["text"] == "Opening hours of the pharmacy: 9 to 18."
    assert box.call("web_fetch", {"url": "https://example.org/ibu"}).result["response"]["title"] == "Ibuprofen and friends"


def test_unknown_urls_are_not_reachable(box: ToolBox) -> None:
    for url in ["https://www.google.com", "https://nhs/dosing.html", "file:///etc/passwd"]:
        record = box.call("web_fetch", {"url": url})
        assert not record.ok and "not in this offline corpus" in record.result["error"]


def test_a_run_without_corpus_finds_nothing(tmp_path: Path) -> None:
    box = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory()), resolve_tool_names(["web"]))
    assert box.call("web_search", {"query": "anything"}).result == {"response": []}
    assert not box.call("web_fetch", {"url": "https://a.b"}).ok


def test_broken_index_entries_are_errors(box: ToolBox, web: Path) -> None:
    (web / "index.yaml").write_text("https://x.org: {file: missing.md}\n")
    assert "no file 'missing.md'" in box.call("web_search", {"query": "x"}).result["error"]
    (web / "index.yaml").write_text("- just a list\n")
    assert "must map URLs" in box.call("web_search", {"query": "x"}).result["error"]
    (web / "index.yaml").write_text("https://x.org: {file: a.md}\nhttps://x.org: {file: b.md}\n")
    assert "duplicate key 'https://x.org'" in box.call("web_search", {"query": "x"}).result["error"]


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("example.org/a/", "https://example.org/a"),
        ("HTTPS://example.org", "https://example.org"),
        ("https://a.b/x?u=http://c#frag", "https://a.b/x?u=http://c"),
    ],
)
def test_normalize_url(url: str, normal: str) -> None:
    assert normalize_url(url) == normal


def test_a_page_edited_in_place_is_read_again(box: ToolBox, web: Path) -> None:
    """Parsed pages are kept by their text, not by a file stamp: an edit of the same size with the old mtime is read."""
    page = web / "nhs" / "dosing.html"
    stamp = page.stat()
    first = box.call("web_fetch", {"url": "https://www.nhs.uk/medicines/paracetamol"}).result["response"]["text"]
    page.write_text(DOSING_HTML.replace("500 mg", "250 mg"))
    os.utime(page, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # a stamp of path, size and mtime would not see the edit
    again = box.call("web_fetch", {"url": "https://www.nhs.uk/medicines/paracetamol"}).result["response"]["text"]
    assert "Take 500 mg" in first and "Take 250 mg" in again and page.stat().st_size == stamp.st_size
    assert html_to_text(DOSING_HTML)[1] == first  # and the first text is still the first page's
