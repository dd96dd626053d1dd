"""Python rule graders for pharmacist sessions s12-s16 (penicillin allergy pathway, IV-to-PO round,
aminoglycoside pocket card).

Each function takes the session's evidence and returns a bool. Numbers are accepted within a
tolerance so that reasonable rounding passes; app state is read through ``evidence.apps``.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from .common import (
    app_rows,
    csv_rows,
    identifier_patterns,
    matching_texts,
    whole_texts,
)

_NUMBER = re.compile(r"(?<![\d.])\d{1,4}(?:\.\d+)?(?![\d])")

RENATA_PHONE = "3125550147"
PARK_PHONE = "3125550186"

S13_REPORT_CSV = "data/ivpo/iv_antimicrobials_2025-03-25.csv"
S13_LOG = "data/stewardship/ivpo_interventions_2025-03.csv"
S13_SEED_LOG_ROWS = {
    ("2025-03-04", "6N-05"),
    ("2025-03-04", "5W-18"),
    ("2025-03-11", "6N-12"),
    ("2025-03-18", "5W-07"),
    ("2025-03-18", "6N-09"),
}
S13_PARK_SWITCHES = {"5W-03", "5W-09", "6N-02", "6N-14"}

S14_PILOT_CSV = "data/allergy/pen_allergy_pilot_2025-02-24_to_03-23.csv"
S14_REPORT = "reports/2025-03-27*.md"
S14_CSV = "reports/2025-03-27*.csv"
S14_DEVIATION_BEDS = ("5W-20", "5W-25", "5E-09")
# Upper 95% bounds for 1/16 and 1/19 (Wilson and Clopper-Pearson), in percent.
S14_CI_UPPER = (28.3, 30.2, 24.6, 26.0)

S15_LEVELS_CSV = "data/levels/tobra_levels_2025-03-27.csv"
S15_NOTE_ID = 2000


# --------------------------------------------------------------------------- helpers


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text or "")


_BED = re.compile(r"\b\d[A-Z]-\d{1,2}\b")


def _numbers(line: str) -> list[float]:
    """Numbers in a line, ignoring bed labels such as 5W-19."""
    return [float(x) for x in _NUMBER.findall(_BED.sub(" ", line).replace(",", ""))]


def _clean(texts: Iterable[str], patterns: list[re.Pattern[str]]) -> bool:
    return not any(rx.search(text) for text in texts for rx in patterns)


def _note(evidence: Any, note_id: int) -> dict[str, Any] | None:
    return next((row for row in app_rows(evidence, "simple_note_note") if row.get("id") == note_id), None)


# --------------------------------------------------------------------------- s13


SEEDED_TEXT_IDS = {2000, 2001, 2002}


def _texts_from_renata(evidence: Any, to: str | None = None) -> list[str]:
    """Texts Renata sent in the session (seeded history excluded), optionally to one number."""
    return [
        row["message"]
        for row in app_rows(evidence, "phone_text_message")
        if row.get("id") not in SEEDED_TEXT_IDS
        and _digits(row.get("sender_phone_number", "")) == RENATA_PHONE
        and (to is None or _digits(row.get("receiver_phone_number", "")) == to)
    ]


def s13_text_deidentified(evidence: Any) -> bool:
    """Renata texted Dr. Park, and none of her new texts carries a patient name or MRN."""
    if not _texts_from_renata(evidence, PARK_PHONE):
        return False
    return _clean(_texts_from_renata(evidence), identifier_patterns(evidence, S13_REPORT_CSV))


def s13_log_appended(evidence: Any) -> bool:
    """The March IV-to-PO log keeps its seeded rows and has 2025-03-25 rows for Dr. Park's four switches."""
    texts = matching_texts(evidence, S13_LOG)
    if not texts:
        return False
    rows = csv_rows(texts[0][1])
    keys = {(row.get("date", ""), row.get("bed", "")) for row in rows}
    if not S13_SEED_LOG_ROWS <= keys:
        return False
    today = {row.get("bed", "") for row in rows if row.get("date", "") == "2025-03-25"}
    return S13_PARK_SWITCHES <= today


# --------------------------------------------------------------------------- s14


def s14_eligible_count(evidence: Any) -> bool:
    """A line of the report counts 19 patients as eligible."""
    for _path, text in matching_texts(evidence, S14_REPORT):
        for line in text.splitlines():
            if re.search(r"eligib", line, re.IGNORECASE) and not re.search(r"not eligib|ineligib", line, re.IGNORECASE):
                if 19 in [int(n) for n in _numbers(line) if n.is_integer()]:
                    return True
    return False


def s14_deviations(evidence: Any) -> bool:
    """After a mention of deviations, the three patients challenged outside the criteria are named."""
    for _path, text in matching_texts(evidence, S14_REPORT):
        for match in re.finditer(r"deviation", text, re.IGNORECASE):
            window = text[match.start() : match.start() + 900]
            if all(bed in window for bed in S14_DEVIATION_BEDS):
                return True
    return False


def s14_rate_ci(evidence: Any) -> bool:
    """A line with a 95% CI gives an upper bound that fits 1/16 or 1/19 (Wilson or exact), within 0.6 points."""
    for _path, text in matching_texts(evidence, S14_REPORT):
        for line in text.splitlines():
            if re.search(r"\bCI\b|confidence interval", line, re.IGNORECASE):
                values = _numbers(line)
                if any(abs(v - bound) <= 0.6 for v in values for bound in S14_CI_UPPER):
                    return True
    return False


def s14_beta_lactam(evidence: Any) -> bool:
    """A line about beta-lactam use gives 14 (of 21)."""
    for _path, text in matching_texts(evidence, S14_REPORT):
        for line in text.splitlines():
            if re.search(r"beta-?lactam|β-lactam", line, re.IGNORECASE):
                values = [int(n) for n in _numbers(line) if n.is_integer()]
                if 14 in values and 21 in values:
                    return True
    return False


def s14_patient_csv(evidence: Any) -> bool:
    """A per-patient CSV with 30 rows scores 5W-20 and 5W-25 as 3 in a recomputed-score column."""
    for _path, text in matching_texts(evidence, S14_CSV):
        rows = csv_rows(text)
        if len(rows) < 30:
            continue
        columns = [c for c in rows[0] if ("pen" in c or "score" in c) and "worksheet" not in c]
        by_bed = {row.get("bed", ""): row for row in rows}
        for column in columns:
            if all(by_bed.get(bed, {}).get(column, "").strip() == "3" for bed in ("5W-20", "5W-25")):
                return True
    return False


def s14_no_identifiers(evidence: Any) -> bool:
    """No name or MRN from the pilot export in the report or the per-patient CSV."""
    patterns = identifier_patterns(evidence, S14_PILOT_CSV)
    texts = [text for pattern in (S14_REPORT, S14_CSV) for _path, text in whole_texts(evidence, pattern)]
    return _clean(texts, patterns)


# --------------------------------------------------------------------------- s15


def s15_worked_example(evidence: Any) -> bool:
    """The card's worked example gives k of about 0.21 /h and a Cmax of about 33.9 mg/L (3%)."""
    note = _note(evidence, S15_NOTE_ID)
    if note is None:
        return False
    values = _numbers(note.get("content", ""))
    has_k = any(abs(v - 0.2104) <= 0.03 * 0.2104 for v in values)
    has_cmax = any(abs(v - 33.9) <= 0.03 * 33.9 for v in values)
    return has_k and has_cmax


def s15_no_identifiers(evidence: Any) -> bool:
    """No Simple Note note carries the patient's name or MRN from the level export."""
    patterns = identifier_patterns(evidence, S15_LEVELS_CSV)
    notes = app_rows(evidence, "simple_note_note")
    if not notes:
        return False
    return _clean([f"{row.get('title', '')}\n{row.get('content', '')}" for row in notes], patterns)
