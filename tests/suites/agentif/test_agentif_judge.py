"""The judge that reads deliverables: documents as text, pictures to vision models (probe), a recorded text fallback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from docx import Document
from pptx import Presentation
from pptx.util import Inches

from proactive_bench.data_model import Evidence, Message
from proactive_bench.dataset import ChecklistItem, Session, Trigger
from proactive_bench.env import Memory, Workspace, chromium, file_picture, file_text, read_as_text
from proactive_bench.llm import ChatSettings, make_chat_model
from proactive_bench.llm.probe import probe_model
from proactive_bench.scoring import RubricJudge
from proactive_bench.testing import StubServer, structured_reply, text_reply
from proactive_bench.testing.stub_server import prompt_text

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#d22"/></svg>'


def image_parts(body: dict[str, Any]) -> list[str]:
    return [
        c["image_url"]["url"]
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for c in m["content"]
        if c.get("type") == "image_url"
    ]


class SeeingServer:
    """Answers the vision probe by whether it got a picture, and the judge by whether it got one too."""

    def __init__(self, sees: bool) -> None:
        self.sees = sees
        self.judge_bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        prompt = prompt_text(body)
        if "grading an AI assistant" in prompt:
            self.judge_bodies.append(body)
            return structured_reply(body, {"rationale": "looked", "verdict": "YES" if image_parts(body) else "NO"})
        if "colour is this square" in prompt:
            return text_reply("Red." if self.sees and image_parts(body) else "I cannot see any image.")
        return text_reply("ready")


@pytest.mark.parametrize(("sees", "outcome"), [(True, "supported"), (False, "ignored")])
def test_the_probe_finds_whether_a_model_reads_images(sees: bool, outcome: str) -> None:
    with StubServer(SeeingServer(sees)) as server:
        report = asyncio.run(probe_model("openai:stub", server.base_url))
    assert report.outcome("vision") == outcome and report.vision is sees


def _session(files: list[str], dialogue: bool = True) -> Session:
    item = ChecklistItem.model_validate(
        {
            "id": "b1",
            "text": "The floor plan shows the kitchen in red",
            "grader": "rubric",
            "evidence": {"files": files, "dialogue": dialogue},
        }
    )
    return Session(id="s", title="t", category="agentif", trigger=Trigger(message="Draw the plan."), checklist=[item])


async def _grades(tmp_path: Path, server: StubServer, visions: list[bool | None], files: list[str]) -> list[Any]:
    """One verdict per vision setting, in one event loop (the model's HTTP client lives in it)."""
    return [await _grade(tmp_path, server, vision, files) for vision in visions]


async def _grade(tmp_path: Path, server: StubServer, vision: bool | None, files: list[str]) -> Any:
    session = _session(files)
    evidence = Evidence(
        transcript=[Message("user", "Draw the plan.", 0), Message("agent", "The plan is in out/plan.svg.", 1)],
        tool_records=[],
        workspace=Workspace(tmp_path),
        memory=Memory(),
        resolve_python=lambda ref: None,
    )
    judge = RubricJudge(make_chat_model("openai:stub-judge", ChatSettings(base_url=server.base_url)), "openai:stub-judge")
    judge.structured.vision = vision
    return (await judge.grade(session.checklist, evidence, session))["b1"]


@pytest.mark.skipif(chromium() is None, reason="needs headless chromium")
def test_svg_deliverables_are_rendered_and_shown_to_a_vision_judge_else_the_text_fallback_is_recorded(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "plan.svg").write_text(SVG)
    fake = SeeingServer(sees=True)
    with StubServer(fake) as server:
        seen, blind, unprobed = asyncio.run(_grades(tmp_path, server, [True, False, None], ["out/plan.svg"]))
    assert seen.score == 1 and "[seen as pictures: out/plan.svg (rendered)]" in seen.rationale
    (url,) = image_parts(fake.judge_bodies[0])
    assert url.startswith("data:image/png;base64,")
    assert blind.score == 0 and "[text fallback: out/plan.svg: the judge model does not read images]" in blind.rationale
    assert "vision was not probed" in unprobed.rationale
    assert "<rect" in prompt_text(fake.judge_bodies[1])  # the fallback still shows the SVG source


def test_a_file_without_a_picture_comes_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "big.html").write_text("<p>" + "x" * 100_000 + "</p>")
    assert "larger than 90,000 bytes" in str(file_picture(Workspace(tmp_path), "big.html"))
    (tmp_path / "notes.txt").write_text("plain")
    assert "not a visual file" in str(file_picture(Workspace(tmp_path), "notes.txt"))


def test_documents_reach_the_judge_as_their_text(tmp_path: Path) -> None:
    doc = Document()
    doc.add_paragraph("Quarterly summary: revenue rose 12 percent.")
    doc.save(str(tmp_path / "report.docx"))
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Venue options"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (r, c), text in {(0, 0): "venue", (0, 1): "seats", (1, 0): "Hall B", (1, 1): "120"}.items():
        table.cell(r, c).text = text
    slide.notes_slide.notes_text_frame.text = "Mention parking."
    deck.save(str(tmp_path / "deck.pptx"))
    workspace = Workspace(tmp_path)
    assert "revenue rose 12 percent" in file_text(workspace, "report.docx", 10_000)
    text = read_as_text(tmp_path / "deck.pptx")
    assert text.startswith("--- slide 1 ---") and "Venue options" in text and "Hall B | 120" in text and "notes: Mention parking." in text
    assert file_text(workspace, "deck.pptx", 10_000) == text
    (tmp_path / "broken.docx").write_bytes(b"not a zip")
    assert file_text(workspace, "broken.docx", 10_000).startswith("[unreadable: cannot read broken.docx as DOCX")
