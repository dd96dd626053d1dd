"""Writes the quarterly operations review deck (pptx, six slides, next steps in a table, speaker notes)."""

from pptx import Presentation
from pptx.util import Inches, Pt

from proactive_bench.suites.agentif.attachment_writers import FIXED_TIME, normalize_zip, workspace_folder

SLIDES = [
    ("Warehouse throughput", ["Picks per hour up from 118 to 131", "Night shift trial in Hall B ended in August"],
     "Hall B night shift: keep it, Priya to cost a permanent rota."),
    ("Returns", ["Returns rate 4.2 %, target 3.5 %", "Most returns: wrong size in footwear"],
     "Marketing to fix the footwear size guide."),
    ("Fleet", ["Two vans past 150,000 miles", "Fuel cards: 3 lost this quarter"],
     "Owen replaces the two vans; lost cards policy to HR."),
]
NEXT_STEPS = [
    ("Owner", "Action", "Due"),
    ("Priya Shah", "Cost a permanent night-shift rota for Hall B", "31 Oct 2025"),
    ("Marketing (Leon Fry)", "Rewrite the footwear size guide", "14 Nov 2025"),
    ("Owen Lloyd", "Order two replacement vans", "28 Nov 2025"),
    ("HR (Dana Kemp)", "Draft a lost fuel card policy", "12 Dec 2025"),
]


def main():
    prs = Presentation()
    title = prs.slides.add_slide(prs.slide_layouts[0])
    title.shapes.title.text = "Operations review Q3 2025"
    title.placeholders[1].text = "Leadership meeting, 7 October 2025"
    for heading, bullets, notes in SLIDES:
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = heading
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for line in bullets[1:]:
            body.add_paragraph().text = line
        slide.notes_slide.notes_text_frame.text = notes
    steps = prs.slides.add_slide(prs.slide_layouts[5])
    steps.shapes.title.text = "Next steps"
    table = steps.shapes.add_table(len(NEXT_STEPS), 3, Inches(0.5), Inches(1.6), Inches(9), Inches(3)).table
    for r, row in enumerate(NEXT_STEPS):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
            table.cell(r, c).text_frame.paragraphs[0].font.size = Pt(14)
    closing = prs.slides.add_slide(prs.slide_layouts[5])
    closing.shapes.title.text = "Next review: 13 January 2026"
    prs.core_properties.created = prs.core_properties.modified = FIXED_TIME
    prs.core_properties.author = "Operations"
    path = workspace_folder(__file__) / "decks" / "ops_review_q3_2025.pptx"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))
    normalize_zip(path)


main()
