"""Graders for copy deliverables (category N and O): veto words, sentence case, character limits."""

from __future__ import annotations

import re
from typing import Any

from .common import csv_rows, texts, whole_texts

VETO_FILE = "brand/veto_words.md"
PROPER_NOUNS = {"Oakline", "Trailhead", "Kids", "FlipSip", "Ridge", "Tumbler", "Bottle", "Stridewell", "Cascadia", "Trail", "Alliance", "I", "PNW"}


def veto_words(evidence: Any) -> list[str]:
    """The vetoed words and phrases: first column of the table in brand/veto_words.md."""
    text = evidence.workspace.read_text(VETO_FILE)
    rows = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return [w for w in rows[1:] if w]


def veto_free(evidence: Any, pattern: str, required: str) -> bool:
    """Some file matches ``pattern``, contains ``required`` (a regex) and no file matching it uses a veto word."""
    files = whole_texts(evidence, pattern)
    if not files or not any(re.search(required, text, re.I) for _p, text in files):
        return False
    words = [re.compile(rf"(?<![\w-]){re.escape(w)}(?![\w-])", re.I) for w in veto_words(evidence)]
    return not any(w.search(text) for _p, text in files for w in words)


def _section_lines(text: str, heading: str) -> list[str]:
    """Bullet or numbered lines under the first heading matching ``heading``, up to the next heading."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("#"):
            if inside:
                break
            inside = bool(re.search(heading, line, re.I))
            continue
        if inside and re.match(r"\s*([-*]|\d+[.)])\s+\S", line):
            out.append(re.sub(r"^\s*([-*]|\d+[.)])\s+", "", line).strip())
    return out


def is_sentence_case(headline: str) -> bool:
    """At most the first word and proper nouns are capitalised (quotes and trailing notes ignored)."""
    head = re.split(r"\s[—(-]\s?|\s\(", headline.strip().strip('"“”'))[0]
    sentences = [re.findall(r"[A-Za-z][\w'’-]*", part) for part in re.split(r"[.!?]\s+", head)]
    capitalised = [w for words in sentences for w in words[1:] if w[0].isupper() and w not in PROPER_NOUNS and not w.isupper()]
    return sum(len(words) for words in sentences) >= 2 and not capitalised


def headlines_in_sentence_case(evidence: Any, pattern: str, heading: str, minimum: int) -> bool:
    """Some file has at least ``minimum`` lines under ``heading``, every one in sentence case."""
    for _path, text in texts(evidence, pattern):
        lines = _section_lines(text, heading)
        if len(lines) >= minimum and all(is_sentence_case(line) for line in lines):
            return True
    return False


S02_HOUSE = "content/messaging/*trailhead-kids*.md"


def s02_veto_free(evidence: Any) -> bool:
    """The messaging house says leak-resistant and uses no veto word."""
    return veto_free(evidence, S02_HOUSE, r"leak-resistant")


def s02_sentence_case(evidence: Any) -> bool:
    """At least four headline options, all in sentence case."""
    return headlines_in_sentence_case(evidence, S02_HOUSE, r"headline", 4)


S03_EMAILS = "content/email/*trailhead-kids*launch*.md"


def _field_values(text: str, field: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(rf"^{field}:\s*(.+)$", text, re.I | re.M)]


def within_limits(evidence: Any, pattern: str, limits: dict[str, int], minimum: int) -> bool:
    """Some file has at least ``minimum`` values of each field, every one within its character limit."""
    for _path, text in texts(evidence, pattern):
        values = {field: _field_values(text, field) for field in limits}
        if all(len(v) >= minimum and all(len(x) <= limits[f] for x in v) for f, v in values.items()):
            return True
    return False


def s03_limits(evidence: Any) -> bool:
    """Three or more subject lines of at most 45 characters and preheaders of at most 90."""
    return within_limits(evidence, S03_EMAILS, {"Subject": 45, "Preheader": 90}, 3)


def s03_one_cta(evidence: Any) -> bool:
    """At least three e-mail sections, each with exactly one CTA line."""
    for _path, text in texts(evidence, S03_EMAILS):
        sections = re.split(r"^#+ .*e-?mail \d.*$", text, flags=re.I | re.M)[1:]
        counts = [len(re.findall(r"^\s*(?:primary )?CTA\b", s, re.I | re.M)) for s in sections]
        if len(counts) >= 3 and all(c == 1 for c in counts):
            return True
    return False


S07_SOCIAL = "content/social/*trailhead-kids*launch*.md"
_RANGE = re.compile(r"\b(\d):(\d\d)\s*[-–]\s*(\d):(\d\d)\b")


def _script_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) seconds of every timestamp range in the script section."""
    section = re.split(r"^#+ .*(caption|instagram).*$", text, flags=re.I | re.M)[0]
    return [(int(a) * 60 + int(b), int(c) * 60 + int(d)) for a, b, c, d in _RANGE.findall(section)]


def s07_hook(evidence: Any) -> bool:
    """The script's first beat ends by 0:03."""
    return any((r := _script_ranges(t)) and r[0] == (0, r[0][1]) and r[0][1] <= 3 for _p, t in texts(evidence, S07_SOCIAL))


def s07_length(evidence: Any) -> bool:
    """The script has at least three timed beats and ends by 0:45."""
    return any(len(r := _script_ranges(t)) >= 3 and max(e for _s, e in r) <= 45 for _p, t in texts(evidence, S07_SOCIAL))


def s07_onscreen(evidence: Any) -> bool:
    """At least three on-screen text lines, each at most six words."""
    for _path, text in texts(evidence, S07_SOCIAL):
        lines = [m.group(1) for m in re.finditer(r"^On-screen(?: \d+)?:\s*(.+)$", text, re.I | re.M)]
        if len(lines) >= 3 and all(len(line.split()) <= 6 for line in lines):
            return True
    return False


def hashtags_ok(evidence: Any, pattern: str) -> bool:
    """Every "Hashtags:" line of some matching file has one to five tags, #OaklineOutside among them."""
    for _path, text in texts(evidence, pattern):
        tag_lines = [line for line in text.splitlines() if line.lower().startswith("hashtags:")]
        tags = [re.findall(r"#\w+", line) for line in tag_lines]
        if tags and all(0 < len(t) <= 5 and "#OaklineOutside" in t for t in tags):
            return True
    return False


def s07_hashtags(evidence: Any) -> bool:
    """The launch captions' hashtag lines keep the channel rule."""
    return hashtags_ok(evidence, S07_SOCIAL)


S10_ADS = "content/ads/*meta*variants*.csv"


def _ad_rows(evidence: Any) -> list[list[dict[str, str]]]:
    return [csv_rows(text) for _p, text in texts(evidence, S10_ADS)]


def s10_limits(evidence: Any) -> bool:
    """At least four variants; every headline at most 40 characters and primary text at most 125."""
    return any(len(rows) >= 4 and all(len(r.get("headline", "")) <= 40 and 0 < len(r.get("primary_text", "")) <= 125 for r in rows) for rows in _ad_rows(evidence))


def s10_sentence_case(evidence: Any) -> bool:
    """At least four variants, every headline in sentence case."""
    return any(len(rows) >= 4 and all(is_sentence_case(r.get("headline", "")) for r in rows) for rows in _ad_rows(evidence))
