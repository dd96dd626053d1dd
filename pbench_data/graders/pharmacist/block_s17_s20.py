"""Python rule graders for pharmacist sessions s17-s20.

s17/s19: the monthly antimicrobial use (AU) reports from the eMAR extracts in data/au/
(days of therapy per 1,000 patient-days). s18/s20: the PGY1 ID rotation plan in Todoist.

Every function takes the session's evidence and returns a bool. Report numbers are read line
by line (an agent's name and the expected value on the same line), so tables and prose both
pass; app state is read from the Todoist rows.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from .common import matching_texts

_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)\d{1,5}(?:\.\d+)?(?!\d)(?!\.\d)")


# --------------------------------------------------------------------------- helpers


def _numbers(line: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(line.replace(",", ""))]


def _line_with(texts: list[tuple[str, str]], must: str, value: float, tol: float) -> bool:
    """Some line matching the regex ``must`` carries a number within ``tol`` of ``value``."""
    rx = re.compile(must, re.IGNORECASE)
    for _path, text in texts:
        for line in text.splitlines():
            if rx.search(line) and any(abs(n - value) <= tol for n in _numbers(line)):
                return True
    return False


def _json_docs(evidence: Any, pattern: str) -> list[Any]:
    docs = []
    for _path, text in matching_texts(evidence, pattern):
        try:
            docs.append(json.loads(text))
        except ValueError:
            continue
    return docs


# --------------------------------------------------------------------------- s17: February AU report

S17_REPORT = "reports/2025-04-02*.md"


def s17_metronidazole_given_only(evidence: Any) -> bool:
    """Metronidazole February DOT is 68 (doses charted held/refused/not given excluded; 82 with them)."""
    return _line_with(matching_texts(evidence, S17_REPORT), r"metronidazole", 68, 0)


def s17_ceftriaxone_inpatient_only(evidence: Any) -> bool:
    """Ceftriaxone February DOT is 162 on the four inpatient units (214 with the ED doses)."""
    return _line_with(matching_texts(evidence, S17_REPORT), r"ceftriaxone", 162, 0)


def s17_oral_vanc_separate(evidence: Any) -> bool:
    """Oral vancomycin has its own line with 39 DOT (not merged into 238 'vancomycin')."""
    return _line_with(matching_texts(evidence, S17_REPORT), r"vanc[^|\n]*(\bPO\b|oral)|(\bPO\b|oral)[^|\n]*vanc", 39, 0)


def s17_midnight_denominator(evidence: Any) -> bool:
    """Cefazolin's facility rate is 52.2 per 1,000 midnight-census patient-days (45.1 on days present)."""
    return _line_with(matching_texts(evidence, S17_REPORT), r"cefazolin", 52.2, 0.15)


def s17_json_figures(evidence: Any) -> bool:
    """A February JSON parses and holds per-agent figures."""
    for _path, text in matching_texts(evidence, "**/*2025-02*.json"):
        try:
            json.loads(text)
        except ValueError:
            continue
        if re.search(r"ceftriaxone", text, re.I) and re.search(r"piperacillin", text, re.I):
            return True
    return False


# --------------------------------------------------------------------------- s19: March AU report

S19_REPORT = "reports/2025-04-09*.md"


def s19_counting_rules(evidence: Any) -> bool:
    """March figures follow February's rules: ceftriaxone 192 DOT (ED out), metronidazole 82 (given only),
    oral vancomycin 44 on its own line, cefazolin 52.2 per 1,000 midnight-census patient-days."""
    texts = matching_texts(evidence, S19_REPORT)
    return (
        _line_with(texts, r"ceftriaxone", 192, 0)
        and _line_with(texts, r"metronidazole", 82, 0)
        and _line_with(texts, r"vanc[^|\n]*(\bPO\b|oral)|(\bPO\b|oral)[^|\n]*vanc", 44, 0)
        and _line_with(texts, r"cefazolin", 52.2, 0.15)
    )


def s19_4e_merged(evidence: Any) -> bool:
    """4E and 4E-SURG are one unit: 499 midnight-census patient-days for 4E in March."""
    texts = matching_texts(evidence, S19_REPORT) + matching_texts(evidence, "**/*2025-03*.json")
    return _line_with(texts, r"\b4E\b", 499, 0)


def s19_feb_comparison(evidence: Any) -> bool:
    """The March report carries February's rates from the February figures (doxycycline 23.7)."""
    return _line_with(matching_texts(evidence, S19_REPORT), r"doxycycline", 23.7, 0.15)


_FLAGGED = re.compile(r"flag", re.I)
_NOT_FLAGGED = re.compile(r"not[ -]flag|no flag|unflag|below|under|short of|doesn.t|does not|ignore", re.I)


def _flag_lines(evidence: Any) -> list[str]:
    lines = []
    for _path, text in matching_texts(evidence, S19_REPORT):
        for line in text.splitlines():
            if _FLAGGED.search(line) and not _NOT_FLAGGED.search(line):
                lines.append(line.lower())
    return lines


def s19_flags(evidence: Any) -> bool:
    """Cefepime and meropenem are flagged (rate up 20% or more, at least 10 DOT); daptomycin and
    levofloxacin (raw DOT up, rate up under 20%) and linezolid (under 10 DOT) are not."""
    lines = _flag_lines(evidence)
    if not (any("cefepime" in x for x in lines) and any("meropenem" in x for x in lines)):
        return False
    return not any(word in x for x in lines for word in ("daptomycin", "levofloxacin", "linezolid"))


def s19_json_layout(evidence: Any) -> bool:
    """March's JSON keeps February's layout: every top-level key of the February file, same kinds of values."""
    febs = [d for d in _json_docs(evidence, "**/*2025-02*.json") if isinstance(d, dict)]
    mars = [d for d in _json_docs(evidence, "**/*2025-03*.json") if isinstance(d, dict)]
    for feb in febs:
        for mar in mars:
            if set(feb) <= set(mar) and all(type(feb[k]) is type(mar[k]) for k in feb):
                return True
    return False


# --------------------------------------------------------------------------- s18/s20: rotation plan in Todoist

TOPICS = [3102, 3103, 3104, 3105, 3106, 3107]  # syllabus order
SHARED = [3101, *TOPICS]
TRAN = [3108, 3110, 3111, 3114, 3115, 3118, 3120]
HADDAD = [3109, 3112, 3113, 3116, 3117, 3119, 3121]
ROTATION = SHARED + TRAN + HADDAD
HANDOUTS = {3111: 3110, 3113: 3112, 3115: 3114, 3117: 3116}  # handout -> its presentation
LABEL_TRAN, LABEL_HADDAD = 3001, 3002
WEEK_SECTIONS = [3011, 3012, 3013, 3014]
START = dt.date(2025, 4, 7)
CONFERENCE = {dt.date(2025, 4, 24), dt.date(2025, 4, 25)}


def _tasks(evidence: Any) -> dict[int, dict[str, Any]]:
    if evidence.apps is None:
        return {}
    return {row["id"]: row for row in evidence.apps.rows("todoist_task") if row["id"] in ROTATION}


def _due(task: dict[str, Any] | None) -> dt.date | None:
    value = (task or {}).get("due_date")
    return dt.date.fromisoformat(value[:10]) if value else None


def _all_dated(tasks: dict[int, dict[str, Any]]) -> bool:
    return len(tasks) == len(ROTATION) and all(_due(t) for t in tasks.values())


def _prev_weekday(day: dt.date) -> dt.date:
    day -= dt.timedelta(days=1)
    while day.weekday() >= 5:
        day -= dt.timedelta(days=1)
    return day


def _week(day: dt.date) -> int:
    return (day - START).days // 7


def s18_all_dated_in_rotation(evidence: Any) -> bool:
    """Every rotation task has a weekday due date between Mon Apr 7 and Fri May 2."""
    tasks = _tasks(evidence)
    if not _all_dated(tasks):
        return False
    return all(_due(t).weekday() < 5 and START <= _due(t) <= dt.date(2025, 5, 2) for t in tasks.values())


def s18_topics_wednesdays(evidence: Any) -> bool:
    """The six topic discussions fall on Wednesdays of weeks 1-3, in syllabus order, two per Wednesday."""
    tasks = _tasks(evidence)
    days = [_due(tasks.get(t)) for t in TOPICS]
    if not all(days):
        return False
    if any(d.weekday() != 2 or not 0 <= _week(d) <= 2 for d in days):
        return False
    if days != sorted(days):
        return False
    return all(days.count(d) <= 2 for d in days)


def s18_resident_labels(evidence: Any) -> bool:
    """Each resident's tasks carry their own label only; the shared ones carry both."""
    if evidence.apps is None:
        return False
    labels: dict[int, set[int]] = {}
    for link in evidence.apps.rows("todoist_task_label"):
        labels.setdefault(link["task_id"], set()).add(link["label_id"])
    both = {LABEL_TRAN, LABEL_HADDAD}
    return (
        all(both <= labels.get(t, set()) for t in SHARED)
        and all(labels.get(t, set()) & both == {LABEL_TRAN} for t in TRAN)
        and all(labels.get(t, set()) & both == {LABEL_HADDAD} for t in HADDAD)
    )


def s18_handouts_day_before(evidence: Any) -> bool:
    """Each handout is due the weekday before its presentation."""
    tasks = _tasks(evidence)
    for handout, talk in HANDOUTS.items():
        h, p = _due(tasks.get(handout)), _due(tasks.get(talk))
        if not h or not p or h != _prev_weekday(p):
            return False
    return True


def s18_conference_clear(evidence: Any) -> bool:
    """Every rotation task is dated and none is due on the conference days (Apr 24-25)."""
    tasks = _tasks(evidence)
    return _all_dated(tasks) and not any(_due(t) in CONFERENCE for t in tasks.values())


def s18_evaluations(evidence: Any) -> bool:
    """Midpoint evaluations due Fri Apr 18, finals Fri May 2, all four at priority 4 (P1)."""
    tasks = _tasks(evidence)
    want = {3118: "2025-04-18", 3119: "2025-04-18", 3120: "2025-05-02", 3121: "2025-05-02"}
    return all(
        (tasks.get(t) or {}).get("due_date", "") == day and (tasks.get(t) or {}).get("priority") == 4
        for t, day in want.items()
    )


def s18_week_sections(evidence: Any) -> bool:
    """Every rotation task sits in the section of the week it is due."""
    tasks = _tasks(evidence)
    if not _all_dated(tasks):
        return False
    for task in tasks.values():
        week = _week(_due(task))
        if not 0 <= week <= 3 or task.get("section_id") != WEEK_SECTIONS[week]:
            return False
    return True
