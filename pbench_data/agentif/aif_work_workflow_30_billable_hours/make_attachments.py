"""Writes June's timesheet export of a small consultancy (xlsx, about 150 entries: staff, grade, client, hours, billable)."""

import random
from datetime import date, timedelta

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

STAFF = [("Amira Haddad", "Senior"), ("Ben Carter", "Consultant"), ("Chloe Dubois", "Consultant"), ("Dev Patel", "Analyst"), ("Eilidh Ross", "Analyst")]
CLIENTS = ["Harbourside Council", "Kestrel Foods", "Moorland Trust", "Northgate Clinics"]
INTERNAL = ["Internal - training", "Internal - bids"]


def rows():
    rng = random.Random(612)
    entries = []
    day = date(2025, 6, 2)
    while day <= date(2025, 6, 27):
        if day.weekday() < 5:
            for name, grade in STAFF:
                hours_left = 7.5
                for _ in range(rng.randint(1, 2)):
                    hours = min(hours_left, rng.choice([1.5, 2.0, 2.5, 3.0, 3.5, 4.0]))
                    hours_left -= hours
                    if rng.random() < 0.15:
                        client, billable = rng.choice(INTERNAL), "no"
                    else:
                        client = rng.choice(CLIENTS)
                        billable = "no" if rng.random() < 0.08 else "yes"  # goodwill time written off
                    entries.append([day.isoformat(), name, grade, client, hours, billable])
        day += timedelta(days=1)
    return [["date", "staff", "grade", "client", "hours", "billable"], *entries]


write_sheet(workspace_folder(__file__) / "timesheets" / "june_2025.xlsx", "Timesheets", rows(), creator="Operations")
