"""Writes inbox/lecture9_elasticity.pptx (a microeconomics lecture's slides with a worked example and practice questions); all invented."""

from pptx import Presentation

from proactive_bench.suites.agentif.attachment_writers import normalize_zip, workspace_folder

SLIDES = [
    ("Lecture 9: Price elasticity of demand", ["ECON 1020 Principles of Microeconomics", "Week 9"]),
    (
        "Measuring elasticity: the midpoint method",
        [
            "E = (change in Q / average Q) / (change in P / average P)",
            "Average = (old + new) / 2, so the answer is the same whichever way the price moves",
            "Report E to 2 decimal places, with its sign",
        ],
    ),
    (
        "Reading the number",
        ["|E| > 1: elastic", "|E| < 1: inelastic", "|E| = 1: unit elastic"],
    ),
    (
        "Worked example: campus coffee",
        [
            "Price 2.00 -> 2.50, cups sold 100 -> 80",
            "Change in Q / average Q = -20 / 90 = -0.222",
            "Change in P / average P = 0.50 / 2.25 = 0.222",
            "E = -1.00: unit elastic",
        ],
    ),
    (
        "Practice questions",
        [
            "Q1. Bus fare 1.50 -> 1.80, riders per day 1,200 -> 1,100",
            "Q2. Concert ticket 40 -> 50, tickets sold 900 -> 600",
            "Q3. Loaf of bread 2.20 -> 2.00, loaves sold per week 500 -> 520",
        ],
    ),
]

path = workspace_folder(__file__) / "inbox" / "lecture9_elasticity.pptx"
deck = Presentation()
for title, bullets in SLIDES:
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    body = slide.placeholders[1].text_frame
    body.text = bullets[0]
    for line in bullets[1:]:
        body.add_paragraph().text = line
deck.core_properties.author = "ECON 1020 teaching team"
path.parent.mkdir(parents=True, exist_ok=True)
deck.save(str(path))
normalize_zip(path)
