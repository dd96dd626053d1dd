"""Writes inbox/gym_offers.pdf: four gyms' membership offers, as noted down after a round of visits (invented)."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

FIXED = datetime(2025, 1, 1)
OFFERS = [
    ("FitBox Centrum", [
        "Distance from home: 1.2 km", "Monthly fee: 39.90 EUR (12-month contract)", "Joining fee: 49.00 EUR",
        "Sauna: not included, 5.00 EUR per month extra", "Open 06:00-23:00",
    ]),
    ("Nordic Lift", [
        "Distance from home: 2.6 km", "Monthly fee: 34.00 EUR (12-month contract)", "Joining fee: 99.00 EUR",
        "Sauna: included", "Open 05:30-22:00, staffed until 20:00",
    ]),
    ("Aqua & Iron", [
        "Distance from home: 4.8 km", "Monthly fee: 29.50 EUR (no contract)", "Joining fee: none",
        "Sauna: included, plus a 25 m pool", "Open 07:00-21:00",
    ]),
    ("Studio Kern", [
        "Distance from home: 0.8 km", "Monthly fee: 44.00 EUR (no contract)", "Joining fee: none",
        "Sauna: included", "Open 24/7 with key card",
    ]),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
pdf.set_font("Helvetica", "B", 15)
pdf.cell(0, 10, "Gym offers - notes from my visits, November", new_x="LMARGIN", new_y="NEXT")
for name, lines in OFFERS:
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 9, name, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    for line in lines:
        pdf.cell(0, 6, f"- {line}", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "gym_offers.pdf"))
