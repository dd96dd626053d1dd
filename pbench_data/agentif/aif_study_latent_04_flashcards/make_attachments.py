"""Writes inbox/deck_chapter3.csv (an existing flashcard deck in the import format) and inbox/chapter4_notes.pdf (lecture notes); invented."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

FIXED = datetime(2025, 1, 1)
DECK = [
    ("What does the mitochondrion do?", "Makes most of the cell's ATP through respiration", "bio::ch3"),
    ("What do ribosomes build?", "Proteins, from the code carried by mRNA", "bio::ch3"),
    ("What does the Golgi apparatus do?", "Modifies, sorts and packages proteins for transport", "bio::ch3"),
    ("What is the nucleolus for?", "Making ribosome subunits", "bio::ch3"),
]
NOTES = [
    ("Diffusion", "net movement of particles from high to low concentration; no energy needed."),
    ("Osmosis", "diffusion of water across a partially permeable membrane, towards the side with more solute."),
    ("Facilitated diffusion", "diffusion through channel or carrier proteins; still passive, no ATP."),
    ("Active transport", "carrier proteins move substances against their concentration gradient, using ATP."),
    ("Endocytosis", "the membrane folds around material and takes it into the cell in a vesicle."),
    ("Exocytosis", "vesicles fuse with the membrane and release their contents outside the cell."),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
lines = ["#separator:semicolon", "#tags column:3"] + [";".join(card) for card in DECK]
(out / "deck_chapter3.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
pdf.set_font("Helvetica", "B", 14)
pdf.cell(0, 10, "Biology 101 - Chapter 4: Moving things across the membrane", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=11)
pdf.multi_cell(0, 6, "Lecture notes, week 6. Exam-relevant terms in bold in the slides; here one line each.", new_x="LMARGIN", new_y="NEXT")
for term, meaning in NOTES:
    pdf.multi_cell(0, 7, f"{term}: {meaning}", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "chapter4_notes.pdf"))
