"""Writes the service desk's ticket export for Q3 2025 (xlsx, about 400 tickets: opened, category, priority, hours to resolve)."""

import random
from datetime import datetime, timedelta

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

CATEGORIES = [("Password reset", 30), ("Hardware", 18), ("Software install", 22), ("Network", 12), ("Access request", 18)]
PRIORITIES = [("P1", 5, (1, 6)), ("P2", 20, (2, 16)), ("P3", 50, (4, 40)), ("P4", 25, (8, 80))]


def rows():
    rng = random.Random(2025_3)
    tickets = []
    start = datetime(2025, 7, 1, 0, 0)
    for n in range(412):
        opened = start + timedelta(minutes=rng.randrange(92 * 24 * 60))
        category = rng.choices([c for c, _ in CATEGORIES], weights=[w for _, w in CATEGORIES])[0]
        priority, _, (low, high) = rng.choices(PRIORITIES, weights=[p[1] for p in PRIORITIES])[0]
        hours = round(rng.uniform(low, high) * 2) / 2  # logged to the half hour
        tickets.append([f"SD-{30000 + n}", opened.strftime("%Y-%m-%d %H:%M"), category, priority, hours])
    tickets.sort(key=lambda t: t[1])
    return [["ticket", "opened", "category", "priority", "hours_to_resolve"], *tickets]


write_sheet(workspace_folder(__file__) / "exports" / "service_desk_q3_2025.xlsx", "Tickets", rows(), creator="Service desk")
