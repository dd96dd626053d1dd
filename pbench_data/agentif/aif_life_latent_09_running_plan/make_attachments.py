"""Writes inbox/coach_plan_weeks1-4.xlsx: an invented half-marathon coach's plan for weeks 1 to 4."""

import argparse
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def week(n: int) -> list[tuple[int, str, str, float]]:
    """One week of the coach's pattern: the easy runs grow by 1 km and the long run by 2 km a week."""
    easy, long_run = 5 + n, 8 + 2 * n
    sessions = {
        "Mon": ("Rest", 0), "Tue": ("Easy run", easy), "Wed": ("Intervals 6 x 400 m", 7), "Thu": ("Easy run", easy),
        "Fri": ("Rest", 0), "Sat": ("Recovery jog", 4), "Sun": ("Long run", long_run),
    }
    return [(n, day, *sessions[day]) for day in DAYS]


parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

book = Workbook()
sheet = book.active
sheet.title = "Plan"
sheet.append(["week", "day", "session", "km"])
for n in range(1, 5):
    for row in week(n):
        sheet.append(list(row))
sheet.append([])
sheet.append(["Coach's note: keep the easy runs truly easy, you should be able to talk."])
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "pbench"
book.save(out / "coach_plan_weeks1-4.xlsx")
normalize_zip(out / "coach_plan_weeks1-4.xlsx")
