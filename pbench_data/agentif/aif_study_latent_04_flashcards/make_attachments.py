"""Writes inbox/deck_chapter3.csv (an existing flashcard deck in the import format) and inbox/chapter4_notes.pdf (lecture notes); invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_csv

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

inbox = workspace_folder(__file__) / "inbox"
write_csv(inbox / "deck_chapter3.csv", [("#separator:semicolon",), ("#tags column:3",), *DECK], delimiter=";")
with pdf_file(inbox / "chapter4_notes.pdf") as pdf:
    pdf.heading("Biology 101 - Chapter 4: Moving things across the membrane", 10, size=14)
    pdf.write_lines(["Lecture notes, week 6. Exam-relevant terms in bold in the slides; here one line each."], 6, wrap=True)
    pdf.write_lines([f"{term}: {meaning}" for term, meaning in NOTES], 7, wrap=True)
