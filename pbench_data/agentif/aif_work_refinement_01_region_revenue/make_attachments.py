"""Writes inbox/monthly_revenue.csv: revenue per sales region and month, April to September 2025 (invented)."""

import argparse
import csv
from pathlib import Path

MONTHS = ["2025-04", "2025-05", "2025-06", "2025-07", "2025-08", "2025-09"]
REVENUE = {  # region -> six months in EUR
    "North": [40000, 42000, 38000, 41000, 39000, 46000],
    "East": [55000, 50000, 55000, 60000, 58000, 58000],
    "South": [30000, 35000, 35000, 31000, 30000, 35000],
    "West": [70000, 65000, 65000, 70000, 72000, 75000],
    "Central": [25000, 25000, 30000, 28000, 30000, 32000],
}

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
with open(out / "monthly_revenue.csv", "w", newline="", encoding="utf-8") as handle:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["month", "region", "revenue_eur"])
    for n, month in enumerate(MONTHS):
        for region, values in REVENUE.items():
            writer.writerow([month, region, values[n]])
