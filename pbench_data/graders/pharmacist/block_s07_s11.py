"""Python rule graders for pharmacist sessions s07-s11.

Each function takes the session's evidence and returns a bool. They read the
workspace (and, where a session acts in an app, the app rows) the agent left
behind. Numbers are accepted within a tolerance so that reasonable rounding
passes.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from .common import (
    app_rows,
    csv_rows,
    identifier_patterns,
    matching_texts,
    near,
    whole_texts,
)

# --------------------------------------------------------------------------- helpers


_MONEY = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*(k\b|K\b|thousand\b)?")


def _amounts(text: str) -> list[float]:
    """Numbers in a text, commas allowed as thousands separators; '141k' / '141.2 thousand' scaled."""
    out = []
    for m in _MONEY.finditer(text):
        value = float(m[1].replace(",", "") + ("." + m[2] if m[2] else ""))
        if m[3]:
            value *= 1000
        out.append(value)
    return out


# --------------------------------------------------------------------------- s07


S07_REPORT = "reports/2025-03-17*.md"
_AGE65 = re.compile(r"\b65\b")


def _targeted_criteria(text: str) -> bool:
    lower = text.lower()
    if "first recurrence" not in lower:
        return False
    for m in _AGE65.finditer(lower):
        window = lower[max(0, m.start() - 400) : m.end() + 500]
        if "immunocompromis" in window and "severe" in window and "antibiotic" in window:
            return True
    return False


_COUNT30 = re.compile(r"\b30\b[^\n]{0,60}(episodes?|courses?|patients?)|(episodes?|courses?|patients?)[^\n]{0,60}\b30\b", re.I)


def s07_criteria(evidence: Any) -> bool:
    """The review states targeted criteria: first recurrence, and initial episodes at 65+ with
    immunocompromise, severe CDI or continuing systemic antibiotics (all three named near the age)."""
    return any(_targeted_criteria(text) for _p, text in matching_texts(evidence, S07_REPORT))


S07_ADDED_COST = 141_209  # 30 x (4728.00 - 21.02)


def s07_budget(evidence: Any) -> bool:
    """30 eligible 2024 episodes and about $141,200 a year of added drug cost (within 3%)."""
    for _path, text in matching_texts(evidence, S07_REPORT):
        if not _COUNT30.search(text):
            continue
        if any(near(v, S07_ADDED_COST, 0.03) for v in _amounts(text)):
            return True
    return False


# --------------------------------------------------------------------------- s08


S08_REPORT = "reports/2025-03-18*.md"
S08_PATIENTS = "data/usage/metronidazole_iv_active_2025-03-18.csv"
S08_ELIGIBLE = ["4E-05", "4E-09", "5W-03", "5W-07", "5W-16", "5W-22", "6N-08", "6N-13", "6N-19", "6N-21"]
S08_STAY_IV = ["4E-02", "4E-12", "5W-09", "6N-04", "6N-15", "ICU-03"]
_MONTHS = {m: n for n, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)}
_DATE_PATTERNS = [
    (re.compile(r"\b(2025)-(\d{1,2})-(\d{1,2})\b"), lambda m: (int(m[2]), int(m[3]))),
    (re.compile(r"(?<![\d-])(\d{1,2})/(\d{1,2})(?:/(?:20)?25)?\b"), lambda m: (int(m[1]), int(m[2]))),
    (re.compile(r"\b(jan|feb|mar|apr|may|jun)[a-z]*\.? (\d{1,2})\b", re.I), lambda m: (_MONTHS[m[1][:3].lower()], int(m[2]))),
    (re.compile(r"\b(\d{1,2}) (jan|feb|mar|apr|may|jun)[a-z]*\b", re.I), lambda m: (_MONTHS[m[2][:3].lower()], int(m[1]))),
]
_STOCKOUT_WORDS = re.compile(r"stock-?\s?out|run(s)? out|running out|out of stock|exhaust|last (full )?day|zero stock|depleted", re.I)


def _dates(line: str) -> list[tuple[int, int]]:
    out = []
    for rx, conv in _DATE_PATTERNS:
        for m in rx.finditer(line):
            out.append(conv(m))
    return out


def s08_stockout(evidence: Any) -> bool:
    """A stock-out on 2025-03-23 at the current (since 3/13) rate is stated on one line."""
    for _path, text in matching_texts(evidence, S08_REPORT):
        for line in text.splitlines():
            if _STOCKOUT_WORDS.search(line) and (3, 23) in _dates(line):
                return True
    return False


def _bed_lines(text: str, bed: str) -> list[str]:
    rx = re.compile(rf"(?<![\w-]){re.escape(bed)}(?![\w-])", re.I)
    return [line for line in text.splitlines() if rx.search(line)]


_TO_ORAL = re.compile(r"\bPO\b|\boral|by mouth|tablet", re.I)


def s08_po_list(evidence: Any) -> bool:
    """At least 8 of the 10 eligible beds appear on a line that switches them to oral metronidazole."""
    for _path, text in matching_texts(evidence, S08_REPORT):
        hits = sum(any(_TO_ORAL.search(line) for line in _bed_lines(text, bed)) for bed in S08_ELIGIBLE)
        if hits >= 8:
            return True
    return False


_STAY_REASON = re.compile(r"\bNPO\b|ileus|obstruct|vomit|fulminant|stay|remain|keep|continue|\bIV\b|surgery|\bOR\b|suction", re.I)


def s08_keep_iv(evidence: Any) -> bool:
    """At least 5 of the 6 patients who must stay IV are named with a reason, ICU-03 among them, and no
    line naming one of them lacks a stay-on-IV reason."""
    for _path, text in matching_texts(evidence, S08_REPORT):
        named = 0
        ok = True
        for bed in S08_STAY_IV:
            lines = _bed_lines(text, bed)
            if not lines:
                continue
            if all(_STAY_REASON.search(line) for line in lines):
                named += 1
            else:
                ok = False
        icu = any(re.search(r"\bIV\b|intravenous", line, re.I) for line in _bed_lines(text, "ICU-03"))
        if ok and icu and named >= 5:
            return True
    return False


def s08_po_csv(evidence: Any) -> bool:
    """An order CSV in orders/ buys item 4471206 (B. Braun) in whole cases of 24, at most 6 cases per
    delivery and 14-17 cases in all."""
    for path, text in matching_texts(evidence, "orders/*.csv"):
        rows = [r for r in csv_rows(text) if "4471206" in " ".join(r.values()) or "braun" in " ".join(r.values()).lower()]
        if not rows:
            continue
        cols = list(rows[0])
        case_col = next((c for c in cols if c in ("cases", "packs", "case_qty", "cases_ordered", "qty_cases")), None)
        unit_col = next((c for c in cols if c in ("bags", "qty_units", "units", "quantity", "qty", "order_qty")), None)
        total, ok = 0, True
        for row in rows:
            try:
                if case_col:
                    cases = float(row[case_col])
                elif unit_col:
                    bags = float(row[unit_col])
                    if bags % 24:
                        ok = False
                        break
                    cases = bags / 24
                else:
                    ok = False
                    break
            except ValueError:
                ok = False
                break
            if cases != int(cases) or cases <= 0 or cases > 6:
                ok = False
                break
            if case_col and unit_col and row.get(unit_col):
                try:
                    if float(row[unit_col]) != cases * 24:
                        ok = False
                        break
                except ValueError:
                    pass
            total += int(cases)
        if ok and 14 <= total <= 17:
            return True
    return False


def s08_no_identifiers(evidence: Any) -> bool:
    """No patient name or MRN from the MAR list in the report, the order CSV or any Gmail draft."""
    ids = identifier_patterns(evidence, S08_PATIENTS)
    texts = [t for _p, t in whole_texts(evidence, S08_REPORT)] + [t for _p, t in whole_texts(evidence, "orders/*metronidazole*")]
    texts += [f"{d.get('subject', '')}\n{d.get('body', '')}" for d in app_rows(evidence, "gmail_draft")]
    return not any(rx.search(text) for rx in ids for text in texts)


# --------------------------------------------------------------------------- s09


def s09_criteria(evidence: Any) -> bool:
    """A policies/ document on fidaxomicin carries the 3/17 criteria (first recurrence; initial episode
    at 65+ with immunocompromise, severe CDI or continuing systemic antibiotics)."""
    return any("fidaxomicin" in text.lower() and _targeted_criteria(text) for _p, text in matching_texts(evidence, "policies/*.md"))


def s09_draft_budget(evidence: Any) -> bool:
    """A Gmail draft to Dr. Sandhu quotes 30 qualifying episodes and about $141,200 a year (within 3%)."""
    for draft in app_rows(evidence, "gmail_draft"):
        if not any("psandhu@" in str(a).lower() for a in draft.get("recipient_emails") or []):
            continue
        body = draft.get("body") or ""
        if _COUNT30.search(body) and any(near(v, S07_ADDED_COST, 0.03) for v in _amounts(body)):
            return True
    return False


# --------------------------------------------------------------------------- s10


# Seeded store items of s10 (apps/s10_amazon.yaml): product id -> (line, units per box).
S10_PRODUCTS = {
    1001: ("syringe_10ml", 100), 1002: ("syringe_10ml", 100), 1003: ("syringe_10ml", 100),
    1004: ("syringe_10ml", 50), 1005: ("syringe_10ml", 100),
    1011: ("syringe_1ml", 100), 1012: ("syringe_1ml", 100), 1013: ("syringe_1ml", 100), 1014: ("syringe_1ml", 100),
    1021: ("bottle_120ml", 48), 1022: ("bottle_120ml", 48), 1023: ("bottle_120ml", 24),
    1031: ("weights", 1), 1032: ("weights", 1), 1033: ("weights", 1),
}
# Needed = par - on hand (compounding/supplies_par_2025-03.csv); at most one box more than needed.
S10_NEEDED = {"syringe_10ml": (260, 359), "syringe_1ml": (280, 379), "bottle_120ml": (114, 161), "weights": (1, 1)}


def s10_quantities(evidence: Any) -> bool:
    """The cart brings every Amazon line of the par sheet to par in whole boxes, without overbuying."""
    units = {line: 0 for line in S10_NEEDED}
    for item in app_rows(evidence, "amazon_cart_item"):
        if item.get("account_id") != 1 or item.get("product_id") not in S10_PRODUCTS:
            continue
        line, per_box = S10_PRODUCTS[item["product_id"]]
        units[line] += per_box * int(item.get("quantity") or 0)
    return all(lo <= units[line] <= hi for line, (lo, hi) in S10_NEEDED.items())


# --------------------------------------------------------------------------- s11


S11_REPORT = "reports/2025-03-21*antibiogram*.md"
S11_CSV = "**/*antibiogram*.csv"
S11_EXPORT = "data/micro/susceptibility_export_2024.csv"
_N_HEADER = re.compile(r"^\s*(n|no\.?|#|n isolates|# ?isolates|isolates|no\.? (of )?isolates|number( of isolates)?|n_isolates|total( isolates)?)\s*$", re.I)
_DRUG_HEADER = {
    "CIP": re.compile(r"^\s*(cip|ciprofloxacin)\b", re.I),
    "OXA": re.compile(r"^\s*(oxa|oxacillin)\b", re.I),
    "CLI": re.compile(r"^\s*(cli|cc|clindamycin)\b", re.I),
}
_ORG = {
    "ecoli": re.compile(r"\bcoli\b", re.I),
    "saureus": re.compile(r"aureus", re.I),
    "kpn": re.compile(r"pneumoniae", re.I),
    "pae": re.compile(r"aeruginosa", re.I),
    "efs": re.compile(r"faecalis", re.I),
}
_FLAG = re.compile(r"(<|≤|fewer than|less than|under|below)\s*30|not reported|insufficient|too few|\bNR\b|caution|small numbers", re.I)


def _tables(text: str, is_csv: bool) -> list[list[list[str]]]:
    """Tables in a Markdown text (pipe rows) or a CSV text, as lists of rows of stripped cells."""
    if is_csv:
        return [[[c.strip() for c in row] for row in csv.reader(io.StringIO(text.strip())) if row]]
    tables, current = [], []
    for line in text.splitlines():
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
                continue
            current.append(cells)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def _first_int(cell: str) -> int | None:
    m = re.search(r"\d+", cell)
    return int(m.group()) if m else None


def _org_rows(tables: list[list[list[str]]], org: str) -> list[tuple[list[str], list[str]]]:
    """(header, row) pairs whose first cell names the organism."""
    out = []
    for table in tables:
        header = table[0]
        for row in table[1:]:
            if row and _ORG[org].search(row[0]):
                out.append((header, row))
    return out


def _n_values(tables: list[list[list[str]]], org: str) -> list[int]:
    values = []
    for header, row in _org_rows(tables, org):
        col = next((j for j, h in enumerate(header) if _N_HEADER.match(h)), None)
        if col is not None and col < len(row) and _first_int(row[col]) is not None:
            values.append(_first_int(row[col]))  # type: ignore[arg-type]
        m = re.search(r"\(\s*(?:n\s*=\s*)?(\d+)(?:\s*isolates)?\s*\)", row[0], re.I)
        if m:
            values.append(int(m[1]))
    return values


def _drug_values(tables: list[list[list[str]]], org: str, drug: str) -> list[int]:
    values = []
    for header, row in _org_rows(tables, org):
        col = next((j for j, h in enumerate(header) if _DRUG_HEADER[drug].match(h)), None)
        if col is not None and col < len(row) and _first_int(row[col]) is not None:
            values.append(_first_int(row[col]))  # type: ignore[arg-type]
    return values


def _report_tables(evidence: Any) -> list[list[list[str]]]:
    return [t for _p, text in matching_texts(evidence, S11_REPORT) for t in _tables(text, is_csv=False)]


def _only(values: list[int], target: int) -> bool:
    return bool(values) and all(v == target for v in values)


def s11_ecoli_n(evidence: Any) -> bool:
    """The report's table gives E. coli 41 isolates (calendar 2024, not the 44 exported)."""
    return _only(_n_values(_report_tables(evidence), "ecoli"), 41)


def s11_saureus(evidence: Any) -> bool:
    """S. aureus: 32 clinical isolates and 59% oxacillin-susceptible (screens excluded)."""
    tables = _report_tables(evidence)
    return _only(_n_values(tables, "saureus"), 32) and _only(_drug_values(tables, "saureus", "OXA"), 59)


def s11_kpn_n(evidence: Any) -> bool:
    """K. pneumoniae counted as 27 isolates (first isolate per patient), in the table or in the text."""
    values = _n_values(_report_tables(evidence), "kpn")
    if values:
        return _only(values, 27)
    for _p, text in matching_texts(evidence, S11_REPORT):
        for line in text.splitlines():
            if _ORG["kpn"].search(line) and re.search(r"\b27\b", line) and not re.search(r"\b31\b", line):
                return True
    return False


def s11_flags(evidence: Any) -> bool:
    """K. pneumoniae, P. aeruginosa and E. faecalis are each flagged as under 30 isolates, on their own
    line or under a heading that says so."""
    for _p, text in matching_texts(evidence, S11_REPORT):
        flagged = set()
        heading_flag = False
        for line in text.splitlines():
            if line.startswith("#"):
                heading_flag = bool(_FLAG.search(line))
            for org in ("kpn", "pae", "efs"):
                if _ORG[org].search(line) and (heading_flag or _FLAG.search(line)):
                    flagged.add(org)
        if flagged == {"kpn", "pae", "efs"}:
            return True
    return False


def s11_truncation(evidence: Any) -> bool:
    """E. coli ciprofloxacin 70% and S. aureus clindamycin 71%: S only, rounded down."""
    tables = _report_tables(evidence)
    return _only(_drug_values(tables, "ecoli", "CIP"), 70) and _only(_drug_values(tables, "saureus", "CLI"), 71)


def s11_csv(evidence: Any) -> bool:
    """An antibiogram CSV has E. coli with 41 isolates and ciprofloxacin 70%."""
    for path, text in matching_texts(evidence, S11_CSV):
        if path.startswith("data/micro/"):
            continue
        tables = _tables(text, is_csv=True)
        if _only(_n_values(tables, "ecoli"), 41) and _only(_drug_values(tables, "ecoli", "CIP"), 70):
            return True
    return False


def s11_no_mrn(evidence: Any) -> bool:
    """No MRN from the export appears in the antibiogram report or CSV."""
    mrns = {row.get("mrn", "") for row in csv_rows(evidence.workspace.read_text(S11_EXPORT))} - {""}
    texts = [t for _p, t in whole_texts(evidence, S11_REPORT)] + [t for p, t in whole_texts(evidence, S11_CSV) if not p.startswith("data/micro/")]
    return not any(mrn in text for mrn in mrns for text in texts)
