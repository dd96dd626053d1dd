"""Rule graders for sessions s11-s15 of the law trainee episode."""

from __future__ import annotations

import re
from typing import Any

from .common import app_rows, has_register_row, line_has, lines_of, register_rows

MATTER_NOTES = {1101: "HAL.0009", 1102: "KES.0117", 1103: "BRK.0204"}


def _note(evidence: Any, note_id: int) -> str:
    return next((str(n["content"]) for n in app_rows(evidence, "simple_note_note") if n["id"] == note_id), "")


def _start_note(evidence: Any, note_id: int) -> str:
    return next((str(n["content"]) for n in evidence.apps_at_start.get("simple_note_note", []) if n["id"] == note_id), "")


def s11_three_updated(evidence: Any) -> bool:
    """The Halden, Kestrel and Brook notes all grew this session."""
    return all(len(_note(evidence, i)) > len(_start_note(evidence, i)) for i in MATTER_NOTES)


def s11_newest_first(evidence: Any) -> bool:
    """Each of the three matter notes now starts with a 2025-11-19/20/21 entry."""
    return all(re.match(r"\s*2025-11-(19|20|21)\b", _note(evidence, i)) for i in MATTER_NOTES)


def s11_defence_date(evidence: Any) -> bool:
    """The Brook note corrects 17 December to 3 December on one line, and no 17 December mention stands unflagged."""
    lines = _note(evidence, 1103).splitlines()
    right = line_has(lines, r"defence", r"\b3 ?(dec|/12)", r"17 ?(dec|/12)", r"\bnot\b|wrong|incorrect")
    wrong = [line for line in lines if re.search(r"17 ?(dec|/12)", line, re.IGNORECASE) and not re.search(r"\bnot\b|wrong|incorrect", line, re.IGNORECASE)]
    return right and not wrong


def s11_part36(evidence: Any) -> bool:
    """The Kestrel note flags a Part 36 offer for the 150k counter."""
    return line_has(_note(evidence, 1102).splitlines(), r"part 36|CPR 36", r"150")


def s11_register_done(evidence: Any) -> bool:
    """The AoS and ICO rows are marked done and the other register rows are still there."""
    rows = register_rows(evidence)
    done = {(r["matter_ref"], r["due"]) for r in rows if re.search(r"\bdone\b|filed|sent", r.get("event", "") + r.get("status", ""), re.IGNORECASE)}
    return (
        {("BRK.0204", "2025-11-19"), ("HAL.0009", "2025-11-20")} <= done
        and has_register_row(evidence, "KES.0117", "2026-01-09", r"limitation")
        and has_register_row(evidence, "BRK.0204", "2025-12-03", r"defence")
    )


def s11_no_collateral(evidence: Any) -> bool:
    """The three matter notes were updated, no note was added and the Shopping note is unchanged."""
    start = {n["id"]: n for n in evidence.apps_at_start.get("simple_note_note", [])}
    now = {n["id"]: n for n in app_rows(evidence, "simple_note_note")}
    return s11_three_updated(evidence) and set(now) <= set(start) and now.get(1106, {}).get("content") == start.get(1106, {}).get("content")


SCHEDULE_HEADS = (62400, 48950, 31200, 8350, 21450, 12000)


def s12_schedule(evidence: Any) -> bool:
    """The particulars annex a table with the six loss heads' amounts and a 184,350 total row."""
    rows = [line for line in lines_of(evidence, "matters/KES.0117/drafts/2025-11-24*.md") if line.startswith("|")]
    amounts = {int(m.replace(",", "")) for row in rows for m in re.findall(r"\|\s*(?:GBP |£)?\s*(\d{1,3}(?:,\d{3})+|\d+)\s*\|", row)}
    return set(SCHEDULE_HEADS) <= amounts and line_has(rows, r"total", r"184,?350")


HAL_PLAN = "matters/HAL.0009/2025-11-25*.md"
RAG = {"C1": "green", "C2": "red", "C3": "red", "C4": "amber", "C5": "amber", "C6": "green", "C7": "amber", "C8": "green"}


def s13_rag(evidence: Any) -> bool:
    """Every control id's table row carries its RAG rating and no other rating."""
    rows = [line for line in lines_of(evidence, HAL_PLAN) if line.startswith("|")]
    for control, rating in RAG.items():
        mine = [r for r in rows if re.search(rf"\b{control}\b", r)]
        if not mine or not any(re.search(rf"\b{rating}\b", r, re.IGNORECASE) for r in mine):
            return False
        if any(re.search(rf"\b{other}\b", r, re.IGNORECASE) for r in mine for other in {"red", "amber", "green"} - {rating}):
            return False
    return True


def s13_totals(evidence: Any) -> bool:
    """One line gives 2 Red, 3 Amber and 3 Green."""
    return line_has(lines_of(evidence, HAL_PLAN), r"\b2 red\b", r"\b3 amber\b", r"\b3 green\b")


def s13_register(evidence: Any) -> bool:
    """The register has the HAL.0009 training deadline and keeps the Kestrel limitation row."""
    return has_register_row(evidence, "HAL.0009", "2026-02-25", r"training") and has_register_row(evidence, "KES.0117", "2026-01-09", r"limitation")


ORL_V2 = "matters/ORL.0032/drafts/2025-11-26*_v2.md"
ORL_V1 = "matters/ORL.0032/drafts/2025-11-07_reseller-agreement_v1.md"


def s14_issues_table(evidence: Any) -> bool:
    """v2 (or a note beside it) has a table with a Pennine column and a row for each of the five points."""
    rows = [line for line in lines_of(evidence, "matters/ORL.0032/**/2025-11-26*.md") if line.startswith("|")]
    header = line_has(rows, r"pennine", r"orla")
    points = (r"exclusiv", r"notice|renewal", r"minimum", r"scotland|outside the territory", r"data")
    return header and all(line_has(rows, p) for p in points)


def s14_no_stale_note(evidence: Any) -> bool:
    """v2 exists with two months' notice and without the v1 note proposing three months."""
    lines = lines_of(evidence, ORL_V2)
    return line_has(lines, r"(2|two) months'? (prior )?(written )?notice") and not line_has(lines, r"note to JP", r"three months")


def s14_v1_unchanged(evidence: Any) -> bool:
    """The v1 draft is still there with its own header and without v2's two-month notice."""
    ws = evidence.workspace
    return bool(ws.glob_files(ORL_V1)) and ws.read_text(ORL_V1).startswith("DRAFT v1") and "two months" not in ws.read_text(ORL_V1)


def s14_scotland(evidence: Any) -> bool:
    """A line explains that consenting to Scotland would breach the exclusive partner's contract."""
    return line_has(lines_of(evidence, "matters/ORL.0032/**/2025-11-26*.md"), r"scotland", r"consent", r"breach")


def _task(evidence: Any, task_id: int) -> dict[str, Any]:
    return next((t for t in app_rows(evidence, "todoist_task") if t["id"] == task_id), {})


def _new_tasks(evidence: Any, due: str) -> list[dict[str, Any]]:
    start = {t["id"] for t in evidence.apps_at_start.get("todoist_task", [])}
    return [t for t in app_rows(evidence, "todoist_task") if t["id"] not in start and str(t.get("due_date")) == due and not t.get("is_completed")]


def s15_aos_done(evidence: Any) -> bool:
    """The AoS task (351) is completed."""
    return bool(_task(evidence, 351).get("is_completed"))


def s15_ico_done(evidence: Any) -> bool:
    """The ICO answers task (352) still exists and is completed."""
    return bool(_task(evidence, 352).get("is_completed"))


def s15_defence_date(evidence: Any) -> bool:
    """The defence task (353) is due 2025-12-03."""
    return str(_task(evidence, 353).get("due_date")) == "2025-12-03"


def s15_offer_task(evidence: Any) -> bool:
    """A new [KES.0117] task for the offer is due 2025-12-08 in the Pre-action section (313)."""
    return any(
        t["section_id"] == 313 and str(t["title"]).startswith("[KES.0117]") and re.search(r"offer", str(t["title"]), re.IGNORECASE)
        for t in _new_tasks(evidence, "2025-12-08")
    )


def s15_training_task(evidence: Any) -> bool:
    """A new [HAL.0009] task to check Halden's training is due 2026-02-25."""
    return any(str(t["title"]).startswith("[HAL.0009]") and re.search(r"training", str(t["title"]), re.IGNORECASE) for t in _new_tasks(evidence, "2026-02-25"))


def s15_notifications(evidence: Any) -> bool:
    """The overdue reminders 361 and 362 are marked read."""
    read = {n["id"] for n in app_rows(evidence, "todoist_notification") if n.get("is_read")}
    return {361, 362} <= read


def s15_court_section(evidence: Any) -> bool:
    """The defence task sits in Court deadlines (312) and carries the court label (322)."""
    labelled = any(r["task_id"] == 353 and r["label_id"] == 322 for r in app_rows(evidence, "todoist_task_label"))
    return _task(evidence, 353).get("section_id") == 312 and labelled
