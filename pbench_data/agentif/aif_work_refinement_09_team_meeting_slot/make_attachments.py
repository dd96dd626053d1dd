"""Writes inbox/availability.xlsx: an invented support team's busy hours in the week of 6 October 2025 (x = busy)."""

import argparse
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
DAYS = ["2025-10-06 Mon", "2025-10-07 Tue", "2025-10-08 Wed", "2025-10-09 Thu", "2025-10-10 Fri"]
HOURS = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]
PEOPLE = ["Dana Nowicka", "Piotr Zielinski", "Agnieszka Wojcik", "Tomasz Lewandowski", "Kasia Dabrowska"]
FREE_FOR_ALL = {("2025-10-07 Tue", "10:00"), ("2025-10-09 Thu", "14:00"), ("2025-10-10 Fri", "11:00")}


def busy(person: int, day: int, hour: int) -> bool:
    """A fixed pattern of busy hours: every slot outside FREE_FOR_ALL has someone busy."""
    if (DAYS[day], HOURS[hour]) in FREE_FOR_ALL:
        return False
    return (person + 2 * day + 3 * hour) % 5 == 0 or (person == 0 and hour == 0)


parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
book = Workbook()
sheet = book.active
sheet.title = "Week 41"
sheet.append(["day", "hour", *PEOPLE, "Zofia Mazur (manager, not in team retros)"])
for d, day in enumerate(DAYS):
    for h, hour in enumerate(HOURS):
        marks = ["x" if busy(p, d, h) else "" for p in range(len(PEOPLE))]
        sheet.append([day, hour, *marks, "x" if (d + h) % 2 == 0 else ""])
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "pbench"
book.save(out / "availability.xlsx")
normalize_zip(out / "availability.xlsx")
