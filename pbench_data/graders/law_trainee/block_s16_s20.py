"""Rule graders for sessions s16-s20 of the law trainee episode."""

from __future__ import annotations

import re
from typing import Any

from .common import app_rows, has_register_row, line_has, lines_of, whole_texts

BRK_V1 = "matters/BRK.0204/drafts/2025-11-10_defence_v1.md"
BRK_V2 = "matters/BRK.0204/drafts/2025-11-27*_v2.md"


def s16_comment_table(evidence: Any) -> bool:
    """v2 has table rows for each of Joanna's four comments (purported, warranty, mitigation, £)."""
    rows = [line for line in lines_of(evidence, BRK_V2) if line.startswith("|")]
    return all(line_has(rows, p) for p in (r"purported", r"warranty", r"mitigation", r"£|GBP"))


def s16_v1_unchanged(evidence: Any) -> bool:
    """The v1 defence still starts with its own header and keeps 'GBP' (it was not overwritten by v2)."""
    ws = evidence.workspace
    return bool(ws.glob_files(BRK_V1)) and ws.read_text(BRK_V1).startswith("DRAFT v1") and "GBP 14,995" in ws.read_text(BRK_V1)


def s16_no_gbp(evidence: Any) -> bool:
    """v2 gives the price in £ and uses 'GBP' nowhere."""
    texts = [text for _, text in whole_texts(evidence, BRK_V2)]
    return bool(texts) and all("£14,995" in t and "GBP" not in t for t in texts)


MATTERS = ("HAL.0009", "KES.0117", "BRK.0204", "ORL.0032")


def _report_lines(evidence: Any) -> list[str]:
    """Lines of the saved report and of the draft e-mails to Declan."""
    drafts = [str(d["body"]) for d in app_rows(evidence, "gmail_draft") if "declan.hurst@" in " ".join(d.get("recipient_emails") or [])]
    return lines_of(evidence, "reports/2025-11-28*.md") + [line for body in drafts for line in body.splitlines()]


def _row(lines: list[str], matter: str) -> list[str]:
    return [line for line in lines if line.startswith("|") and matter in line]


def s17_any_report(evidence: Any) -> bool:
    """A saved report or a draft to Declan names all four matters."""
    lines = _report_lines(evidence)
    return all(line_has(lines, re.escape(m)) for m in MATTERS)


def s17_matter_table(evidence: Any) -> bool:
    """A table header names status, next date and risk, and each matter has a row."""
    lines = _report_lines(evidence)
    return line_has(lines, r"^\|[^\n]*status[^\n]*\|[^\n]*next[^\n]*\|[^\n]*risk") and all(_row(lines, m) for m in MATTERS)


def s17_next_dates(evidence: Any) -> bool:
    """The matter rows give the register's next dates."""
    lines = _report_lines(evidence)
    return (
        line_has(_row(lines, "BRK.0204"), r"\b3 dec(ember)?|2025-12-03")
        and line_has(_row(lines, "KES.0117"), r"\b8 dec(ember)?|2025-12-08")
        and line_has(_row(lines, "HAL.0009"), r"25 feb(ruary)?|2026-02-25")
    )


def s17_kestrel_red(evidence: Any) -> bool:
    """The Kestrel row is marked red and no other matter's row is."""
    lines = _report_lines(evidence)
    others = [r for m in MATTERS if m != "KES.0117" for r in _row(lines, m)]
    return line_has(_row(lines, "KES.0117"), r"\bred\b") and not line_has(others, r"\bred\b")


def s17_hours(evidence: Any) -> bool:
    """Each matter's row gives its month's hours: 2.6, 7.1, 4.5, 1.8."""
    lines = _report_lines(evidence)
    hours = {"HAL.0009": "2.6", "KES.0117": "7.1", "BRK.0204": "4.5", "ORL.0032": "1.8"}
    return all(line_has(_row(lines, m), rf"(?<![\d.]){re.escape(h)}(?![\d])") for m, h in hours.items())


def s17_part36(evidence: Any) -> bool:
    """The report mentions the Part 36 framing of the 150,000 counter-offer."""
    return line_has(_report_lines(evidence), r"part 36", r"150")


CLIENTS = {"gareth.lumley@": "HAL.0009", "moira.feeney@": "KES.0117", "tariq.anwar@": "BRK.0204", "bethan.cole@": "ORL.0032"}
NEXT_DATES = {
    "gareth.lumley@": (r"25 feb(ruary)? 2026",),
    "moira.feeney@": (r"\b8 dec(ember)?", r"\b9 dec(ember)?"),
    "tariq.anwar@": (r"\b3 dec(ember)?",),
}


def _handover_drafts(evidence: Any) -> dict[str, dict[str, Any]]:
    """The newest draft introducing Priya for each client address."""
    found: dict[str, dict[str, Any]] = {}
    for d in app_rows(evidence, "gmail_draft"):
        to = " ".join(d.get("recipient_emails") or [])
        if re.search(r"priya", str(d.get("body")), re.IGNORECASE):
            for client in CLIENTS:
                if client in to:
                    found[client] = d
    return found


def _all(evidence: Any, test: Any) -> bool:
    drafts = _handover_drafts(evidence)
    return len(drafts) == len(CLIENTS) and all(test(client, d) for client, d in drafts.items())


def s18_four_drafts(evidence: Any) -> bool:
    """One draft per client introduces Priya, and nothing was sent to a client."""
    sent = [e for e in app_rows(evidence, "gmail_email") if str(e.get("sender_email", "")).startswith("ellis.marchetti@")
            and any(c in " ".join(e.get("recipient_emails") or []) for c in CLIENTS)]
    return len(_handover_drafts(evidence)) == len(CLIENTS) and not sent


def s18_cc_jp(evidence: Any) -> bool:
    """Every handover draft copies Joanna."""
    return _all(evidence, lambda _c, d: "joanna.pryce@" in " ".join(d.get("cc_emails") or []))


def s18_cc_priya(evidence: Any) -> bool:
    """Every handover draft copies Priya."""
    return _all(evidence, lambda _c, d: "priya.nair@" in " ".join(d.get("cc_emails") or []))


def s18_subject_ref(evidence: Any) -> bool:
    """Every handover draft's subject carries its client's matter reference."""
    return _all(evidence, lambda c, d: CLIENTS[c] in str(d.get("subject")))


def s18_next_dates(evidence: Any) -> bool:
    """Gareth, Moira and Tariq are each given their own next date(s), and no one gets another client's date."""
    def ok(client: str, d: dict[str, Any]) -> bool:
        body = str(d.get("body"))
        mine = NEXT_DATES.get(client, ())
        theirs = [p for c, ps in NEXT_DATES.items() if c != client for p in ps if p not in mine]
        return all(re.search(p, body, re.IGNORECASE) for p in mine) and not any(re.search(p, body, re.IGNORECASE) for p in theirs)
    return _all(evidence, ok) and all(re.search(NEXT_DATES[c][0], str(d.get("body")), re.IGNORECASE) for c, d in _handover_drafts(evidence).items() if c in NEXT_DATES)


def s18_labels(evidence: Any) -> bool:
    """The four client threads (401, 601, 901, 1401) carry a 'handed over' label."""
    labelled = {s["thread_id"] for s in app_rows(evidence, "gmail_thread_state") if any(re.search(r"handed over", str(x), re.IGNORECASE) for x in s.get("labels") or [])}
    return {401, 601, 901, 1401} <= labelled


MEMO = "notes/handover/2025-11-28*.md"
OPEN_DEADLINES = (
    ("KES.0117", r"\b8 dec(ember)? 2025|2025-12-08"),
    ("KES.0117", r"\b9 dec(ember)? 2025|2025-12-09"),
    ("KES.0117", r"\b9 jan(uary)? 2026|2026-01-09"),
    ("BRK.0204", r"\b3 dec(ember)? 2025|2025-12-03"),
    ("HAL.0009", r"25 feb(ruary)? 2026|2026-02-25"),
)


def s19_open_deadlines(evidence: Any) -> bool:
    """Each open register deadline is on a line with its matter; the done AoS (19/11) and ICO answers (20/11) are not listed."""
    lines = lines_of(evidence, MEMO)
    done = line_has(lines, r"19 nov(ember)?|2025-11-19") or line_has(lines, r"20 nov(ember)?|2025-11-20")
    return all(line_has(lines, re.escape(m), d) for m, d in OPEN_DEADLINES) and not done


def s19_current_drafts(evidence: Any) -> bool:
    """The memo names the current Brook defence v2 and Orla agreement v2 files."""
    lines = lines_of(evidence, MEMO)
    return line_has(lines, r"2025-11-27_defence_v2\.md") and line_has(lines, r"2025-11-26_reseller-agreement_v2\.md")


def s19_blockers(evidence: Any) -> bool:
    """A Blockers section lists Tariq's and Moira's outstanding items as bullets."""
    for _, text in whole_texts(evidence, MEMO):
        section = re.search(r"^#+\s*blockers[^\n]*\n((?:\s*\n|[-*] [^\n]*\n)+)", text, re.IGNORECASE | re.MULTILINE)
        if section and re.search(r"tariq", section.group(1), re.IGNORECASE) and re.search(r"moira", section.group(1), re.IGNORECASE):
            return True
    return False


PRIYA = 4
JOANNA = 2
NOTES = (1101, 1102, 1103, 1104)


def _tasks(evidence: Any) -> dict[int, dict[str, Any]]:
    return {t["id"]: t for t in app_rows(evidence, "todoist_task")}


def _notes(evidence: Any) -> dict[int, dict[str, Any]]:
    return {n["id"]: n for n in app_rows(evidence, "simple_note_note")}


def _live_matter_tasks(evidence: Any) -> list[dict[str, Any]]:
    """The issue-by (339) and defence (353) tasks and the offer and training tasks added in the tidy-up."""
    return [t for t in _tasks(evidence).values() if t["id"] in (339, 353) or re.search(r"offer lapses|training", str(t["title"]), re.IGNORECASE) and t["id"] > 353]


def s20_some_handover(evidence: Any) -> bool:
    """At least one task is assigned to Priya and the appraisal task (336) is not."""
    tasks = _tasks(evidence)
    return any(t.get("assignee_id") == PRIYA for t in tasks.values()) and tasks.get(336, {}).get("assignee_id") != PRIYA


def s20_assigned(evidence: Any) -> bool:
    """All four live matter tasks are assigned to Priya."""
    live = _live_matter_tasks(evidence)
    return len(live) >= 4 and all(t.get("assignee_id") == PRIYA for t in live)


def s20_stale_closed(evidence: Any) -> bool:
    """The chase-Tariq task (333) and Norbury's response date (338) are completed."""
    tasks = _tasks(evidence)
    return all(tasks.get(i, {}).get("is_completed") for i in (333, 338))


def s20_limitation_with_jp(evidence: Any) -> bool:
    """The limitation expiry task (337) is still Joanna's."""
    return _tasks(evidence).get(337, {}).get("assignee_id") == JOANNA


def s20_final_entry(evidence: Any) -> bool:
    """Each matter note starts with a 2025-11-28 entry naming Priya."""
    notes = _notes(evidence)
    return all(re.match(r"\s*2025-11-28\b[^\n]*priya", str(notes.get(i, {}).get("content", "")), re.IGNORECASE) for i in NOTES)


def s20_unpinned(evidence: Any) -> bool:
    """No matter note is pinned any more."""
    notes = _notes(evidence)
    return all(i in notes and not notes[i].get("pinned") for i in NOTES)


def s20_tagged(evidence: Any) -> bool:
    """Each matter note carries both the matter and handed-over tags."""
    notes = _notes(evidence)
    return all(i in notes and {"matter", "handed-over"} <= set(notes[i].get("tags") or []) for i in NOTES)
