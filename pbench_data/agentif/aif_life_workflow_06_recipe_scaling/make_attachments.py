"""Writes inbox/lentil_stew.pdf (a recipe for four) and inbox/pantry.csv (what is already at home); all invented."""

import argparse
import csv
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

INGREDIENTS = [
    "300 g red lentils",
    "2 onions",
    "3 carrots",
    "4 cloves garlic",
    "1 can chopped tomatoes (400 g)",
    "1.2 l vegetable stock",
    "2 tsp ground cumin",
    "3 tbsp olive oil",
    "1 bunch fresh coriander",
]
METHOD = [
    "Soften the chopped onions, carrots and garlic in the olive oil for 10 minutes.",
    "Stir in the cumin, then the lentils, tomatoes and stock.",
    "Simmer for 25 minutes until the lentils fall apart; season.",
    "Scatter the chopped coriander over each bowl.",
]
PANTRY = [
    ("onions", "1"),
    ("garlic", "3 cloves"),
    ("ground cumin", "12 tsp"),
    ("olive oil", "a full 750 ml bottle"),
    ("rice", "1 kg"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

pdf = FPDF()
pdf.set_creation_date(datetime(2025, 1, 1))
pdf.add_page()
pdf.set_font("Helvetica", "B", 16)
pdf.cell(0, 12, "Avo Rosa's red lentil stew", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=11)
pdf.cell(0, 8, "Serves 4. Ready in 40 minutes.", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", "B", 12)
pdf.cell(0, 10, "Ingredients", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=11)
for line in INGREDIENTS:
    pdf.cell(0, 7, f"- {line}", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", "B", 12)
pdf.cell(0, 10, "Method", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=11)
for n, line in enumerate(METHOD, 1):
    pdf.multi_cell(0, 7, f"{n}. {line}", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "lentil_stew.pdf"))

with open(out / "pantry.csv", "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["item", "at_home"])
    writer.writerows(PANTRY)
