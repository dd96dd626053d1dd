"""Writes inbox/invoice_november.docx (the babysitter's invoice for last month) and inbox/december_evenings.csv (the
family's note of this month's evenings); all invented."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder, write_csv

NOVEMBER = [
    ("date", "from", "to", "billed to", "hours at 14 EUR", "hours at 18 EUR", "taxi", "amount (EUR)"),
    ("2025-11-07", "19:00", "23:40", "23:45", "3.00", "1.75", "12.00", "85.50"),
    ("2025-11-14", "18:00", "21:05", "21:15", "3.25", "0.00", "-", "45.50"),
    ("2025-11-22", "20:30", "22:50", "23:00", "1.50", "1.00", "-", "39.00"),
]
EVENINGS = [
    ("date", "from", "to"),
    ("2025-12-05", "18:30", "21:50"),
    ("2025-12-12", "19:00", "23:10"),
    ("2025-12-19", "20:00", "22:40"),
    ("2025-12-31", "19:30", "00:20"),
]

inbox = workspace_folder(__file__) / "inbox"
write_csv(inbox / "december_evenings.csv", EVENINGS)
with docx_file(inbox / "invoice_november.docx", author="Lotte Janssen") as doc:
    doc.add_heading("Invoice - babysitting, November 2025", level=1)
    doc.add_paragraph("From: Lotte Janssen, Utrecht. To: family Bakker.")
    table = doc.add_table(rows=len(NOVEMBER), cols=len(NOVEMBER[0]))
    for r, row in enumerate(NOVEMBER):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    doc.add_paragraph("Total: 170.00 EUR")
    doc.add_paragraph(
        "How I charge: 14 EUR/h until 22:00 and 18 EUR/h after 22:00. The end of the evening is rounded up to the next "
        "quarter hour. Taxi home 12 EUR when I leave after 23:00."
    )
    doc.add_paragraph("Please pay to NL20 BANK 0123 4567 89 by the 10th of the month. Thank you!")
