"""Graders for the market-research sessions (category M)."""

from __future__ import annotations

import re
from typing import Any

from .common import has_number, lines_with, texts

S01_SCAN = "research/*kids*market*scan*.md"
S01_PRICE_PER_OZ = {"Summitra Junior": 1.69, "Halden Mini": 1.83, "Little Pine": 1.43, "Sprout Bottle": 1.65, "Trailhead Kids": 1.71}


def _has_signed(line: str, value: float, tol: float) -> bool:
    """Whether the line writes ``value`` (within ``tol``), with its minus sign when negative."""
    if value >= 0:
        return has_number(line, value, tol)
    return re.search(rf"[-−]\s?{abs(value):.1f}(?!\d)", line) is not None


def figures_named(evidence: Any, pattern: str, figures: dict[str, float], minimum: int, tol: float = 0.005) -> bool:
    """In some matching file at least ``minimum`` names each appear on a line that writes their figure."""
    for _path, text in texts(evidence, pattern):
        hits = sum(any(_has_signed(line, value, tol) for line in lines_with(text, name)) for name, value in figures.items())
        if hits >= minimum:
            return True
    return False


def s01_price_per_oz(evidence: Any) -> bool:
    """At least four of the five kids' bottles appear on a line with their price per ounce, to the cent."""
    return figures_named(evidence, S01_SCAN, S01_PRICE_PER_OZ, 4)


S08_SHORTLIST = "research/*creator*shortlist*.md"
S08_ER = {"@trailmama_pdx": 4.83, "@littlehikersclub": 3.30, "@packandpeak": 7.82, "@schoolrunsam": 8.60,
          "@campfirecooks": 1.90, "@pnwfamilyoutside": 5.44, "@weekendwanderkids": 4.28, "@outdoordadjon": 5.99}
S08_PICKS = {"@schoolrunsam", "@outdoordadjon", "@pnwfamilyoutside", "@trailmama_pdx"}


def s08_engagement(evidence: Any) -> bool:
    """At least six creators appear on a line with their engagement rate in percent, to 0.01."""
    return figures_named(evidence, S08_SHORTLIST, S08_ER, 6)


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


def s11_sov(evidence: Any) -> bool:
    """Share of voice without the spam mentions: each brand on a line with its %."""
    return figures_named(evidence, S11_REPORT, S11_SOV, len(S11_SOV), 0.051)


def s11_net_sentiment(evidence: Any) -> bool:
    """Net sentiment ((positive - negative) / mentions) per brand, Kettle & Pine negative."""
    return figures_named(evidence, S11_REPORT, S11_NET, len(S11_NET), 0.051)


S20_REPORT = "research/*june*listening*.md"
S20_SOV = {"Oakline": 37.0, "Summitra": 33.3, "Halden": 13.0, "Kettle & Pine": 16.7}


def s20_sov(evidence: Any) -> bool:
    """Relaunch-week share of voice without the spam mentions, each brand on a line with its %."""
    return figures_named(evidence, S20_REPORT, S20_SOV, len(S20_SOV), 0.051)
