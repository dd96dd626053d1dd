"""Writes the staff handbook's annual leave section (docx)."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder

SECTIONS = [
    ("4.1 Entitlement", [
        "Full-time staff (five days a week) have 25 days of annual leave a year, plus bank holidays.",
        "After five complete years of service on 1 January, the entitlement rises to 28 days.",
        "The leave year runs from 1 January to 31 December.",
    ]),
    ("4.2 Part-time staff", [
        "Part-time staff have the full-time entitlement in proportion to the days they work each week "
        "(for example, three days a week gives 3/5 of it).",
    ]),
    ("4.3 Joining or leaving during the year", [
        "Someone who joins or leaves during the leave year has the entitlement in proportion to the complete "
        "months worked in that year.",
        "Entitlements are rounded up to the nearest half day.",
    ]),
    ("4.4 Carrying leave over", [
        "Up to five unused days may be carried into the next leave year and must be taken by 31 March.",
    ]),
]

with docx_file(workspace_folder(__file__) / "handbook" / "annual_leave.docx", author="People team") as doc:
    doc.add_heading("Staff handbook, section 4: Annual leave", level=1)
    for title, paragraphs in SECTIONS:
        doc.add_heading(title, level=2)
        for text in paragraphs:
            doc.add_paragraph(text)
