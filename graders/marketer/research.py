"""Graders for the market-research sessions (category M)."""

from __future__ import annotations

import re
from typing import Any

from .common import has_number, lines_with, texts

S01_SCAN = "research/*kids*market*scan*.md"
S01_PRICE_PER_OZ = {"Summitra Junior": 1.69, "Halden Mini": 1.83, "Little Pine": 1.43, "Sprout Bottle": 1.65, "Trailhead Kids": 1.71}


def s01_price_per_oz(evidence: Any) -> bool:
    """At least four of the five kids' bottles appear on a line with their price per ounce, to the cent."""
    for _path, text in texts(evidence, S01_SCAN):
        hits = sum(any(has_number(line, value) for line in lines_with(text, product)) for product, value in S01_PRICE_PER_OZ.items())
        if hits >= 4:
            return True
    return False


S08_SHORTLIST = "research/*creator*shortlist*.md"
S08_ER = {"@trailmama_pdx": 4.83, "@littlehikersclub": 3.30, "@packandpeak": 7.82, "@schoolrunsam": 8.60,
          "@campfirecooks": 1.90, "@pnwfamilyoutside": 5.44, "@weekendwanderkids": 4.28, "@outdoordadjon": 5.99}
S08_PICKS = {"@schoolrunsam", "@outdoordadjon", "@pnwfamilyoutside", "@trailmama_pdx"}


def s08_engagement(evidence: Any) -> bool:
    """At least six creators appear on a line with their engagement rate in percent, to 0.01."""
    for _path, text in texts(evidence, S08_SHORTLIST):
        hits = sum(any(has_number(line, er) for line in lines_with(text, handle)) for handle, er in S08_ER.items())
        if hits >= 6:
            return True
    return False


def _section(text: str, heading: str) -> str:
    """Text under the first heading matching ``heading``, up to the next heading of any level."""
    m = re.search(rf"^#+ [^\n]*{heading}[^\n]*\n(.*?)(?=^#|\Z)", text, re.I | re.M | re.S)
    return m.group(1) if m else ""


def s08_final_shortlist(evidence: Any) -> bool:
    """The final shortlist names exactly the four eligible picks and states their total fee, $3,150."""
    for _path, text in texts(evidence, S08_SHORTLIST):
        section = _section(text, r"final shortlist")
        listed = "\n".join(line for line in section.splitlines() if re.match(r"\s*([-*|]|\d+[.)])\s*", line))
        named = {h for h in S08_ER if re.search(re.escape(h) + r"(?!\w)", listed)}
        if named == S08_PICKS and re.search(r"\$3,?150\b", section):
            return True
    return False


S11_REPORT = "research/*launch-week*listening*.md"
S11_SOV = {"Oakline": 23.4, "Summitra": 38.3, "Halden": 16.6, "Kettle & Pine": 21.7}
S11_NET = {"Oakline": 41.5, "Summitra": 20.2, "Halden": 26.1, "Kettle & Pine": -24.3}


def _has_signed(line: str, value: float) -> bool:
    """Whether the line writes ``value`` to one decimal, with its minus sign when negative."""
    if value >= 0:
        return has_number(line, value, 0.051)
    return re.search(rf"[-−]\s?{abs(value):.1f}(?!\d)", line) is not None


def _brand_figures(evidence: Any, pattern: str, figures: dict[str, float]) -> bool:
    """In some matching file every brand appears on a line with its figure (to 0.1)."""
    for _path, text in texts(evidence, pattern):
        if all(any(_has_signed(line, v) for line in lines_with(text, brand)) for brand, v in figures.items()):
            return True
    return False


def s11_sov(evidence: Any) -> bool:
    """Share of voice without the spam mentions: each brand on a line with its %."""
    return _brand_figures(evidence, S11_REPORT, S11_SOV)


def s11_net_sentiment(evidence: Any) -> bool:
    """Net sentiment ((positive - negative) / mentions) per brand, Kettle & Pine negative."""
    return _brand_figures(evidence, S11_REPORT, S11_NET)


S20_REPORT = "research/*june*listening*.md"
S20_SOV = {"Oakline": 37.0, "Summitra": 33.3, "Halden": 13.0, "Kettle & Pine": 16.7}


def s20_sov(evidence: Any) -> bool:
    """Relaunch-week share of voice without the spam mentions, each brand on a line with its %."""
    return _brand_figures(evidence, S20_REPORT, S20_SOV)
