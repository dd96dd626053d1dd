"""``pbench generate agentif``: the synthesis pipeline end to end against the stub server on 127.0.0.1."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.suites.agentif import index_corpus
from proactive_bench.suites.agentif.attachments import main as check_attachments
from proactive_bench.suites.agentif.generation import Kind
from proactive_bench.suites.agentif.generation_corpus import KINDS, pick_attachments
from proactive_bench.testing import StubServer, error_reply, prompt_text, structured_reply, text_reply
from tests.helpers.cli import run_cli

SEED = DEFAULT_DATA_ROOT / "agentif" / "aif_work_latent_01_expense_claim"
NEW_ID = "aif_life_latent_gen_expense_claim"
WORKFLOW = {
    "summary": "Apply the conventions of a past, accepted statement to this month's items and write the new statement as a CSV.",
    "steps": [
        {"action": "Read this month's items", "inputs": ["bills"], "output": "the items and amounts"},
        {"action": "Read the past statement and find its conventions", "inputs": ["past split"], "output": "the shares"},
        {"action": "Compute each person's part and write the CSV", "inputs": ["items", "shares"], "output": "out/*.csv"},
    ],
    "attachments": [
        {"kind": "spreadsheet", "role": "the household bills of the month to split"},
        {"kind": "document", "role": "last month's split between the flatmates showing the shares"},
    ],
    "latent_rules": ["the share each person pays, as in the past split"],
    "deliverables": ["a CSV statement"],
}
ELECTRICITY = r"(?m)^electricity,120(\.00)?,72(\.00)?,48(\.00)?\r?$"
DRAFT: dict[str, Any] = {
    "title": "Split the May bills the way we split April",
    "user": {"name": "Lene Aas", "role": "Shares a flat in Bergen with her friend Tor."},
    "now": "2025-06-02T18:00:00",
    "request": "Could you split the bills in inbox/may_bills.csv between Tor and me? Save it as out/may_split.csv with the columns "
    "item,total,lene,tor. How we split April is in inbox/april_split.md.",
    "rules": [
        {
            "id": "r1",
            "text": "Lene pays 60 % and Tor 40 % of each bill, as in April.",
            "source": "inbox/april_split.md",
            "cue": r"60 ?%",
            "evidence": {"file_matches": {"path": "out/may_split.csv", "pattern": ELECTRICITY}},
            "ask": ["share|percent|split"],
            "question": "What share of each bill do you and Tor pay?",
            "reveal": "I pay 60 percent and Tor 40, like in April.",
        }
    ],
    "followups": [],
    "rubric": [
        {
            "id": "b1",
            "text": "Electricity (120.00) is split 72.00 / 48.00",
            "polarity": "bonus",
            "points": 3,
            "category": "content",
            "grader": "rule",
            "rule": "r1",
            "check": {"file_matches": {"path": "out/may_split.csv", "pattern": ELECTRICITY}},
        },
        {
            "id": "b2",
            "text": "Internet (50.00) is split 30.00 / 20.00",
            "polarity": "bonus",
            "points": 2,
            "category": "content",
            "grader": "rule",
            "rule": "r1",
            "check": {"file_matches": {"path": "out/may_split.csv", "pattern": r"(?m)^internet,50(\.00)?,30(\.00)?,20(\.00)?\r?$"}},
        },
        {
            "id": "b3",
            "text": "The file has the columns item,total,lene,tor",
            "polarity": "bonus",
            "points": 1,
            "category": "form",
            "grader": "rule",
            "check": {"file_matches": {"path": "out/may_split.csv", "pattern": r"\Aitem,total,lene,tor\r?$"}},
        },
        {
            "id": "p1",
            "text": "The May split mentions April's rent",
            "polarity": "penalty",
            "points": 2,
            "category": "content",
            "grader": "rule",
            "check": {"file_matches": {"path": "out/may_split.csv", "pattern": r"(?i)\brent\b"}},
        },
    ],
    "reference": [
        {"tool": "read_file", "args": {"path": "inbox/may_bills.csv"}},
        {"tool": "read_file", "args": {"path": "inbox/april_split.md"}},
        {
            "tool": "write_file",
            "rules": ["r1"],
            "args": {
                "path": "out/may_split.csv",
                "content": "item,total,lene,tor\nelectricity,120.00,72.00,48.00\ninternet,50.00,30.00,20.00\n",
            },
        },
        {"say": "The May split is in out/may_split.csv: 60/40 like April."},
    ],
}


def verdict(passed: bool, feedback: str = "") -> dict[str, Any]:
    return {
        "passed": passed,
        "feedback": feedback,
        "workflow_preserved": True,
        "grounded": passed,
        "verifiable": True,
        "time_independent": True,
        "safe": True,
        "rubric_aligned": True,
    }


def role_of(body: dict[str, Any]) -> str:
    prompt = prompt_text(body)
    if "## What to extract" in prompt:
        return "extractor"
    return "verifier" if "You are a strict reviewer of a generated benchmark task" in prompt else "writer"


def scripted(drafts: Callable[[int], Any], verdicts: Callable[[int], dict[str, Any]]) -> Callable[[dict[str, Any]], Any]:
    """The extractor answers the workflow; the writer ``drafts(n)`` for its n-th request, the verifier ``verdicts(n)``."""
    counts = {"extractor": 0, "writer": 0, "verifier": 0}

    def answer(body: dict[str, Any]) -> Any:
        role = role_of(body)
        counts[role] += 1
        payload = WORKFLOW if role == "extractor" else (verdicts if role == "verifier" else drafts)(counts[role])
        return structured_reply(body, payload) if isinstance(payload, dict) else payload

    return answer


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Two task folders' attachments plus decoys of the same kinds."""
    root = tmp_path / "corpus"
    files = {
        "home/workspace/inbox/may_bills.csv": "item,total\nelectricity,120.00\ninternet,50.00\n",
        "home/workspace/inbox/april_split.md": "# April split\n\n| item | total | Lene (60 %) | Tor (40 %) |\n| rent | 900.00 | 540.00 | 360.00 |\n",
        "home/task.yaml": "not part of the corpus: only workspace/ files are",
        "club/workspace/inbox/match_fixtures.csv": "date,opponent\n2025-05-03,Brann\n",
        "club/workspace/inbox/kit_notes.md": "# Kit\nWash the shirts at 40 degrees.\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def generate(server: StubServer, corpus: Path, out: Path, *more: str) -> Any:
    """The command on the seed, domain life; without the oracle unless ``--oracle`` is among ``more``."""
    oracle = () if "--oracle" in more else ("--no-oracle",)
    return run_cli(
        "generate",
        "agentif",
        "--from",
        str(SEED),
        "--model",
        "openai:gen",
        "--base-url",
        server.base_url,
        "--corpus",
        str(corpus),
        "--domain",
        "life",
        "--out",
        str(out),
        *oracle,
        *more,
    )


def writer_prompts(server: StubServer) -> list[str]:
    return [p for p in map(prompt_text, server.requests) if "You write a new everyday task" in p]


def test_a_task_approved_in_round_two_after_a_malformed_reply_is_a_valid_review_folder(corpus: Path, tmp_path: Path) -> None:
    replies = {"writer": 0}

    def draft(n: int) -> Any:
        replies["writer"] += 1
        return text_reply("Sure! Here is a lovely task about bills.") if n == 1 else DRAFT

    answer = scripted(draft, lambda n: verdict(n >= 2, "The request must say which month's bills."))
    out = tmp_path / "generated" / "agentif" / NEW_ID
    with StubServer(answer) as server:
        result = generate(server, corpus, out, "--json", "--oracle")
        prompts = writer_prompts(server)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["status"] == "approved" and shown["task"] == NEW_ID and [r["passed"] for r in shown["rounds"]] == [False, True]
    assert len(prompts) == 3 and "## Your previous attempt" not in prompts[1]  # prose, then its retry, then round 2
    assert "Reviewer: The request must say which month's bills." in prompts[2]
    assert "inbox/may_bills.csv" in prompts[0] and "Lene (60 %)" in prompts[0]  # the picked attachments and their text
    text = (out / "task.yaml").read_text()
    assert text.startswith("# Generated by `pbench generate agentif` from aif_work_latent_01_expense_claim")
    task = yaml.safe_load(text)
    assert task["id"] == NEW_ID and task["category"] == "latent" and task["domain"] == "life"
    assert task["attachments"] == ["inbox/may_bills.csv", "inbox/april_split.md"]
    assert [c["source"] for c in task["attachments_from"]] == ["home/workspace/inbox/may_bills.csv", "home/workspace/inbox/april_split.md"]
    assert (out / "workspace" / "inbox" / "april_split.md").read_bytes() == (corpus / "home/workspace/inbox/april_split.md").read_bytes()
    report = yaml.safe_load((out / "generation.yaml").read_text())
    assert report["status"] == "approved" and report["workflow"]["summary"] == WORKFLOW["summary"]
    assert (
        report["rounds"][0]["verdict"]["feedback"] == "The request must say which month's bills." and report["rounds"][1]["problems"] == []
    )
    assert report["model_calls"]["failed_attempts"] == 1 and report["model_calls"]["attempts"] == 6
    assert {report[role]["prompt_hash"] for role in ("extractor", "generator", "verifier")} != {None}
    checked = run_cli("validate", "--data", str(tmp_path / "generated"), "--strict", "--json")
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["tasks"] == 1


def test_a_verifier_that_keeps_rejecting_ends_with_a_clear_failure_and_no_task(corpus: Path, tmp_path: Path) -> None:
    answer = scripted(lambda n: DRAFT, lambda n: verdict(False, f"Not grounded enough (review {n})."))
    out = tmp_path / "generated" / "agentif" / NEW_ID
    with StubServer(answer) as server:
        result = generate(server, corpus, out, "--max-rounds", "2")
        assert len(writer_prompts(server)) == 2
    assert result.exit_code == 1
    assert f"task {NEW_ID}: not approved after 2 round(s); no task written" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["generation.yaml"]
    report = yaml.safe_load((out / "generation.yaml").read_text())
    assert report["status"] == "rejected" and len(report["rounds"]) == 2 and report["last_attempt"]["title"] == DRAFT["title"]
    assert not list(out.parent.glob(".*partial"))


def test_a_reference_that_misses_a_bonus_is_sent_back_by_the_oracle(corpus: Path, tmp_path: Path) -> None:
    short = copy.deepcopy(DRAFT)
    short["reference"][2]["args"]["content"] = "item,total,lene,tor\nelectricity,120.00,72.00,48.00\n"
    answer = scripted(lambda n: short if n == 1 else DRAFT, lambda n: verdict(True))
    with StubServer(answer) as server:
        result = generate(server, corpus, tmp_path / "gen", "--json", "--oracle")
        prompts = writer_prompts(server)
    assert result.exit_code == 0, result.output
    rounds = json.loads(result.stdout)["rounds"]
    assert [r["passed"] for r in rounds] == [False, True]
    assert any("scripted:reference" in p and "misses the bar" in p for p in rounds[0]["problems"]), rounds[0]["problems"]
    assert "Check: oracle scripted:reference" in prompts[1]


def test_a_task_breaking_the_suite_rules_is_sent_back_whatever_the_verifier_says(corpus: Path, tmp_path: Path) -> None:
    stated = copy.deepcopy(DRAFT)
    stated["request"] += " I pay 60 % of everything."
    stated["rubric"][3]["points"] = 5  # penalty share 5/11: outside the band
    stated["request"] += " Finance imports a CSV, so please save it as out/october_claim.csv."  # the seed's words
    answer = scripted(lambda n: stated if n == 1 else DRAFT, lambda n: verdict(True))
    out = tmp_path / "gen"
    with StubServer(answer) as server:
        result = generate(server, corpus, out, "--json")
        prompts = writer_prompts(server)
    assert result.exit_code == 0, result.output
    first = json.loads(result.stdout)["rounds"][0]
    assert first["verdict"]["passed"] is True and first["passed"] is False
    problems = " | ".join(first["problems"])
    assert "rules[0].cue: '60 ?%' matches the request: rule 'r1' is stated, not latent" in problems
    assert "warning: rubric: penalty points are 45% of all points" in problems
    assert "request: repeats 10 words in a row of the seed's request" in problems
    assert "Check: rules[0].cue" in prompts[1]


def test_a_refinement_task_needs_its_follow_ups_and_gets_the_chosen_category(corpus: Path, tmp_path: Path) -> None:
    refined = copy.deepcopy(DRAFT)
    refined["followups"] = [{"id": "f1", "text": "Thanks! Add a total line at the end.", "after": {"file_exists": "out/may_split.csv"}}]
    refined["rubric"].append(
        {
            "id": "b4",
            "text": "A total line 170.00 / 102.00 / 68.00 ends the file",
            "polarity": "bonus",
            "points": 1,
            "category": "content",
            "grader": "rule",
            "followup": "f1",
            "check": {"file_matches": {"path": "out/may_split.csv", "pattern": r"(?m)^total,170(\.00)?,102(\.00)?,68(\.00)?\s*\Z"}},
        }
    )
    refined["reference"].insert(
        3,
        {
            "tool": "edit_file",
            "followup": "f1",
            "args": {
                "path": "out/may_split.csv",
                "old": "internet,50.00,30.00,20.00\n",
                "new": "internet,50.00,30.00,20.00\ntotal,170.00,102.00,68.00\n",
            },
        },
    )
    answer = scripted(lambda n: DRAFT if n == 1 else refined, lambda n: verdict(True))
    with StubServer(answer) as server:
        result = generate(server, corpus, tmp_path / "gen", "--category", "refinement", "--json", "--oracle")
        prompts = writer_prompts(server)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["task"] == "aif_life_refinement_gen_expense_claim"
    assert "a refinement task needs at least one follow-up" in " | ".join(shown["rounds"][0]["problems"])
    assert "Category: refinement (iterative refinement" in prompts[0]
    task = yaml.safe_load((tmp_path / "gen" / "task.yaml").read_text())
    assert task["category"] == "refinement" and task["followups"][0]["id"] == "f1"


def test_a_failing_server_is_a_one_line_failure_with_a_report(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("proactive_bench.llm.transport.FIRST_BACKOFF_S", 0.001)  # the retries still happen, without the waits
    out = tmp_path / "gen"
    with StubServer(lambda body: error_reply(500, "internal error")) as server:
        result = generate(server, corpus, out)
    assert result.exit_code == 1
    assert "workflow extraction: the generator openai:gen gave no valid workflow" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["generation.yaml"]
    assert yaml.safe_load((out / "generation.yaml").read_text())["status"] == "failed"


def test_a_server_without_json_schema_falls_back_and_a_malformed_verdict_is_retried(corpus: Path, tmp_path: Path) -> None:
    malformed = text_reply(json.dumps({"passed": "perhaps", "grounded": True}))
    answer = scripted(lambda n: DRAFT, lambda n: malformed if n == 1 else verdict(True))

    def no_schema(body: dict[str, Any]) -> Any:
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return error_reply(400, "response_format json_schema is not supported")
        return answer(body)

    out = tmp_path / "gen"
    with StubServer(no_schema) as server:
        result = generate(server, corpus, out)
        assert result.exit_code == 0, result.output
    assert (out / "task.yaml").is_file()
    report = yaml.safe_load((out / "generation.yaml").read_text())
    assert len(report["rounds"]) == 1 and report["rounds"][0]["passed"]
    assert report["model_calls"]["failed_attempts"] == 3  # json_schema refused once per model (then dropped); one bad verdict
    assert sum((body.get("response_format") or {}).get("type") == "json_schema" for body in server.requests) == 2


def test_a_needed_kind_missing_from_the_corpus_fails_before_any_writing(corpus: Path, tmp_path: Path) -> None:
    workflow = copy.deepcopy(WORKFLOW)
    workflow["attachments"].append({"kind": "slides", "role": "a slide template"})

    def answer(body: dict[str, Any]) -> Any:
        assert role_of(body) == "extractor"
        return structured_reply(body, workflow)

    with StubServer(answer) as server:
        result = generate(server, corpus, tmp_path / "gen")
    assert result.exit_code == 1 and "attachment picking: no unused slides file in the corpus" in result.output
    assert not (tmp_path / "gen" / "task.yaml").exists()


def test_the_workflow_schema_names_exactly_the_corpus_kinds() -> None:
    assert set(get_args(Kind)) == set(KINDS)


def test_picking_is_deterministic_by_kind_and_relevance_and_skips_the_seed() -> None:
    corpus = index_corpus(DEFAULT_DATA_ROOT / "agentif", exclude=SEED)
    assert not any(f.source.startswith(SEED.name) for f in corpus)
    needs = [("spreadsheet", "expense claim mileage per km travel receipts"), ("subtitles", "lecture subtitles")]
    first, unmet = pick_attachments(corpus, needs)
    assert unmet == [] and [p.file.kind for p in first] == ["spreadsheet", "subtitles"]
    assert [p.file.source for p in first] == [p.file.source for p in pick_attachments(corpus, needs)[0]]
    assert first[0].score > 0 and first[0].path.startswith("inbox/")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda folder: (folder / "task.yaml").unlink(), "task.yaml: no such file (give an agentif task folder)"),
        (
            lambda folder: (folder / "task.yaml").write_text(
                (folder / "task.yaml").read_text().replace("category: latent", "category: cooking")
            ),
            "task.yaml: category: Input should be 'workflow', 'latent' or 'refinement'",
        ),
        (lambda folder: (folder / "task.yaml").write_text("id: [unclosed\n"), "task.yaml"),
    ],
)
def test_a_bad_seed_folder_is_a_one_line_error(tmp_path: Path, change: Callable[[Path], Any], message: str) -> None:
    folder = tmp_path / "agentif" / SEED.name
    shutil.copytree(SEED, folder)
    change(folder)
    result = run_cli("generate", "agentif", "--from", str(folder), "--model", "openai:gen", "--out", str(tmp_path / "o"))
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_a_missing_or_empty_corpus_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for corpus, message in ((tmp_path / "nowhere", "is not a folder"), (tmp_path / "empty", "holds no attachment of a known kind")):
        result = run_cli("generate", "agentif", "--from", str(SEED), "--model", "openai:gen", "--corpus", str(corpus))
        assert result.exit_code == 2 and f"--corpus: {corpus} {message}" in result.output


def test_an_existing_folder_is_replaced_only_with_force_and_only_if_generated(corpus: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    base = ("generate", "agentif", "--from", str(SEED), "--model", "openai:gen", "--corpus", str(corpus))
    refused = run_cli(*base, "--out", str(mine), "--force")
    assert refused.exit_code == 2 and "is not a folder `pbench generate agentif` wrote" in refused.output
    assert (mine / "notes.txt").read_text() == "keep me"
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "generation.yaml").write_text("status: failed\n")
    result = run_cli(*base, "--out", str(earlier))
    assert result.exit_code == 2 and "exists; --force replaces it" in result.output


def test_validate_finds_an_edited_copy_and_a_copy_without_provenance(corpus: Path, tmp_path: Path) -> None:
    answer = scripted(lambda n: DRAFT, lambda n: verdict(True))
    out = tmp_path / "data" / "agentif" / NEW_ID
    with StubServer(answer) as server:
        assert generate(server, corpus, out).exit_code == 0
    assert check_attachments(["--root", str(tmp_path / "data"), "--check"]) == 0
    (out / "workspace" / "inbox" / "may_bills.csv").write_text("item,total\nelectricity,999.00\n")
    assert check_attachments(["--root", str(tmp_path / "data"), "--check"]) == 1
    result = run_cli("validate", "--data", str(tmp_path / "data"), "--json")
    reasons = [p["field"] + ": " + p["reason"] for p in json.loads(result.stdout)["problems"]]
    assert result.exit_code == 1
    assert (
        "attachments_from[0].sha256: workspace/inbox/may_bills.csv is not the copy of home/workspace/inbox/may_bills.csv recorded (edited afterwards?)"
        in reasons
    )
    task = yaml.safe_load((out / "task.yaml").read_text())
    task["attachments_from"] = task["attachments_from"][1:]
    (out / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    reasons = [p["reason"] for p in json.loads(run_cli("validate", "--data", str(tmp_path / "data"), "--json").stdout)["problems"]]
    assert any(r.startswith("no make_attachments.py beside the task") for r in reasons)
    assert hashlib.sha256((out / "workspace/inbox/april_split.md").read_bytes()).hexdigest() == task["attachments_from"][0]["sha256"]
