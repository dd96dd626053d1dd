"""Writes inbox/prices.csv: the price list of a weekend trip (invented)."""

import argparse
import csv
from pathlib import Path

ROWS = [
    ("Train tickets (2 return)", "96.00"),
    ("Guesthouse, 2 nights", "148.00"),
    ("Bike rental, 2 days", "36.50"),
    ("Museum tickets (2)", "28.00"),
    ("Picnic groceries", "22.40"),
    ("Ferry to the island (2)", "18.60"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out
(out / "inbox").mkdir(parents=True, exist_ok=True)
with open(out / "inbox" / "prices.csv", "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["item", "cost_eur"])
    writer.writerows(ROWS)
