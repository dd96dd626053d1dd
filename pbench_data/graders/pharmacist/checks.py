"""Python rule graders for the pharmacist episode.

Each function takes the session's evidence and returns a bool. They read the
workspace the agent left behind; none of them needs the transcript. Numbers
are accepted within a tolerance so that reasonable rounding passes.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Iterable

from .common import (
    csv_rows,
    identifier_patterns,
    matching_texts,
    near,
    whole_texts,
)

LEVELS_CSV = "data/levels/vanco_levels_2025-03-10.csv"
INVENTORY_CSV = "inventory/antimicrobial_inventory.csv"
TEMPLATE = "templates/pt_drug_review_template.md"

_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)\d{1,4}(?:\.\d+)?(?!\d)(?!\.\d)")


# --------------------------------------------------------------------------- helpers


def _numbers(line: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(line.replace(",", ""))]


def _line_has_value(lines: Iterable[str], must: str, target: float, rel: float) -> bool:
    needle = must.lower()
    return any(
        needle in line.lower() and any(near(n, target, rel) for n in _numbers(line)) for line in lines
    )


def _no_identifiers_in(evidence: Any, patterns: list[str]) -> bool:
    ids = identifier_patterns(evidence, LEVELS_CSV)
    for pattern in patterns:
        for _path, text in whole_texts(evidence, pattern):
            if any(rx.search(text) for rx in ids):
                return False
    return True


# --------------------------------------------------------------------------- s01


S01_REPORT = "reports/2025-03-10*.md"
S01_AUC = {"5W-14": 371, "6N-03": 553, "6N-11": 814, "5W-20": 633}


def s01_auc_values(evidence: Any) -> bool:
    """Every patient with a valid pair has an AUC24 within 7% of the two-level estimate."""
    for _path, text in matching_texts(evidence, S01_REPORT):
        lines = text.splitlines()
        if all(_line_has_value(lines, bed, auc, 0.07) for bed, auc in S01_AUC.items()):
            return True
    return False


def s01_tracker(evidence: Any) -> bool:
    """tdm/vanco_tracker.csv has AUC and next-levels columns and a row for each of the 5 patients."""
    texts = matching_texts(evidence, "tdm/vanco_tracker.csv")
    if not texts:
        return False
    rows = csv_rows(texts[0][1])
    if not rows:
        return False
    columns = list(rows[0])
    if not any("auc" in c for c in columns) or not any("next" in c or "due" in c for c in columns):
        return False
    beds = {value for row in rows for value in row.values()}
    return {"5W-14", "6N-03", "6N-11", "5W-20", "4E-07"} <= beds


def s01_no_identifiers(evidence: Any) -> bool:
    """No patient name or MRN in anything written under reports/ or tdm/."""
    return _no_identifiers_in(evidence, ["reports/*.md", "tdm/*"])


# --------------------------------------------------------------------------- s02


S02_REVIEW = "reports/2025-03-11_dalbavancin*.md"


def s02_template_headings(evidence: Any) -> bool:
    """The review keeps every '## ' heading of the P&T template, in the template's order."""
    headings = [line[3:].strip().lower() for line in evidence.workspace.read_text(TEMPLATE).splitlines() if line.startswith("## ")]
    for _path, text in matching_texts(evidence, S02_REVIEW):
        found = [line[3:].strip().lower() for line in text.splitlines() if line.startswith("## ")]
        positions = []
        for heading in headings:
            hits = [n for n, h in enumerate(found) if h.startswith(heading)]
            if not hits:
                break
            positions.append(hits[0])
        else:
            if positions == sorted(positions):
                return True
    return False


# --------------------------------------------------------------------------- s03


S03_REPORT = "reports/2025-03-11_oral-vanc*.md"
S03_LCL_DAY35 = 89.4


def s03_lcl_day35(evidence: Any) -> bool:
    """The report shows the day-35 refrigerated lower confidence limit (about 89.4%)."""
    for _path, text in matching_texts(evidence, S03_REPORT):
        for line in text.splitlines():
            if re.search(r"\b35\b", line) and any(abs(n - S03_LCL_DAY35) <= 0.3 for n in _numbers(line)):
                return True
    return False


# --------------------------------------------------------------------------- s04


S04_NOTE = "reports/2025-03-12*.md"


def s04_auc_value(evidence: Any) -> bool:
    """The follow-up note gives an AUC24 within 7% of 504 mg·h/L."""
    for _path, text in matching_texts(evidence, S04_NOTE):
        if _line_has_value(text.splitlines(), "AUC", 504, 0.07):
            return True
    return False


def s04_tracker_appended(evidence: Any) -> bool:
    """The tracker gained a second row for 5W-14 while keeping the five rows of 2025-03-10 (6+ rows)."""
    texts = matching_texts(evidence, "tdm/vanco_tracker.csv")
    if not texts:
        return False
    rows = csv_rows(texts[0][1])
    bed_rows = [r for r in rows if "5W-14" in r.values()]
    return len(rows) >= 6 and len(bed_rows) >= 2 and any("2025-03-12" in " ".join(r.values()) for r in bed_rows)


def s04_no_identifiers(evidence: Any) -> bool:
    """No patient name or MRN in the follow-up note or in any outbox draft."""
    return _no_identifiers_in(evidence, [S04_NOTE, "outbox/*"])


# --------------------------------------------------------------------------- s05


S05_REPORT = "reports/2025-03-13*.md"
_MONTHS = {m: n for n, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)}
_DATE_PATTERNS = [
    (re.compile(r"\b(2025)-(\d{1,2})-(\d{1,2})\b"), lambda m: (int(m[2]), int(m[3]))),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(?:20)?25)?\b"), lambda m: (int(m[1]), int(m[2]))),
    (re.compile(r"\b(jan|feb|mar|apr|may|jun)[a-z]*\.? (\d{1,2})\b", re.I), lambda m: (_MONTHS[m[1][:3].lower()], int(m[2]))),
    (re.compile(r"\b(\d{1,2}) (jan|feb|mar|apr|may|jun)[a-z]*\b", re.I), lambda m: (_MONTHS[m[2][:3].lower()], int(m[1]))),
]
_STOCKOUT_WORDS = re.compile(r"stock-?\s?out|run(s)? out|out of stock|exhaust|last (full )?day|zero stock|depleted", re.I)


def _dates(line: str) -> list[dt.date]:
    out = []
    for rx, conv in _DATE_PATTERNS:
        for m in rx.finditer(line):
            try:
                month, day = conv(m)
                out.append(dt.date(2025, month, day))
            except ValueError:
                continue
    return out


def s05_stockout_with_allocation(evidence: Any) -> bool:
    """A stock-out date for 4.5 g vials of 28-30 March: all locations counted and the 140/week allocation added."""
    lo, hi = dt.date(2025, 3, 28), dt.date(2025, 3, 30)
    for _path, text in matching_texts(evidence, S05_REPORT):
        for line in text.splitlines():
            if _STOCKOUT_WORDS.search(line) and any(lo <= d <= hi for d in _dates(line)):
                return True
    return False


def s05_po_whole_packs(evidence: Any) -> bool:
    """A PO draft in orders/ orders 3.375 g vials, in whole packs, from each item's primary vendor."""
    inventory = {r["item_id"]: r for r in csv_rows(evidence.workspace.read_text(INVENTORY_CSV))}
    for _path, text in matching_texts(evidence, "orders/*.csv"):
        rows = csv_rows(text)
        if not rows:
            continue
        qty_col = next((c for c in rows[0] if c in ("qty_units", "quantity", "qty", "units", "order_qty")), None)
        if qty_col is None or "item_id" not in rows[0]:
            continue
        ok, has_ptz3375 = True, False
        for row in rows:
            item = inventory.get(row["item_id"])
            try:
                qty = int(float(row[qty_col]))
            except ValueError:
                ok = False
                break
            if item is None or qty <= 0 or qty % int(item["pack_size"]) != 0:
                ok = False
                break
            vendor = row.get("vendor") or row.get("primary_vendor")
            if vendor and vendor.lower() != item["primary_vendor"].lower():
                ok = False
                break
            has_ptz3375 |= row["item_id"] == "PTZ3375"
        if ok and has_ptz3375:
            return True
    return False
