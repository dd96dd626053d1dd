"""Writes inbox/lentil_stew.pdf (a recipe for four) and inbox/pantry.csv (what is already at home); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_csv

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

inbox = workspace_folder(__file__) / "inbox"
with pdf_file(inbox / "lentil_stew.pdf") as pdf:
    pdf.heading("Avo Rosa's red lentil stew", 12, size=16)
    pdf.write_lines(["Serves 4. Ready in 40 minutes."], 8)
    pdf.sections([("Ingredients", INGREDIENTS)], heading_height=10, line_height=7)
    pdf.heading("Method", 10)
    pdf.write_lines([f"{n}. {line}" for n, line in enumerate(METHOD, 1)], 7, wrap=True)
write_csv(inbox / "pantry.csv", [("item", "at_home"), *PANTRY])
