"""Writes inbox/reading_notes.docx: a student's invented notes on the readings for an essay on remote work and city centres."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder

NOTES = [
    ("Lindahl (2021), Footfall after the office", [
        "Weekday footfall in six city centres is still 30 % below 2019.",
        "Lunch trade and dry cleaners hit hardest. Supports: remote work empties centres.",
    ]),
    ("Baptiste (2022), The vacant tower", [
        "Office vacancy doubled in the business districts studied.",
        "Landlords convert floors slowly. Supports: remote work empties centres.",
    ]),
    ("Moreau (2020), Centres as stages", [
        "Centres shift from work to leisure: evening and weekend visits grow.",
        "Argues against emptying: the centre changes role rather than dying.",
    ]),
    ("Singh & Park (2023), The three-day week", [
        "Hybrid staff come in three days a week; Tuesday to Thursday are busy again.",
        "Against emptying: presence returns, only compressed into fewer days.",
    ]),
    ("DROPPED - Kessler (2022), blog post 'Downtown is dead'", [
        "Not peer reviewed, no data. My tutor said not to use it.",
    ]),
]

with docx_file(workspace_folder(__file__) / "inbox" / "reading_notes.docx") as doc:
    doc.add_heading("Reading notes - SOC 115 essay: Does remote work empty city centres?", level=1)
    for heading, points in NOTES:
        doc.add_heading(heading, level=2)
        for point in points:
            doc.add_paragraph(point, style="List Bullet")
