"""Writes inbox/essay2_feedback.pdf (a tutor's marked feedback on the last essay) and inbox/essay3_draft.docx (the next
essay's draft); all invented."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, pdf_file, workspace_folder

TITLE = "Why do street markets survive? Evidence from Bristol"
DRAFT = [
    "Between January and March I visited 12 street markets in Bristol and interviewed 7 stall holders.",
    "Rents for a pitch rose by 15% since 2019, yet only 2 of the traders I spoke to planned to leave.",
    "Footfall counts on 3 Saturdays showed that roughly 40% of visitors came for the food stalls.",
    "These findings suggest that markets adapt rather than decline, at least over a period of 5 years.",
]
FEEDBACK = [
    ("GEOG 2040 - Essay 2 feedback", ["Student: Oliver Grant", "Marker: Dr Eleanor Hughes", "Mark: 64 (2:1)"]),
    (
        "What to fix from now on",
        [
            "Numbers: write numbers below ten as words (you wrote '4 councils' - it should be 'four councils'); ten and above stay as figures (18 wards).",
            "Percentages: in essays for this module we write 'per cent', not the % sign ('23%' becomes '23 per cent').",
        ],
    ),
    ("What worked", ["Good use of your own interviews as primary sources.", "Clear structure, one idea per paragraph."]),
]

inbox = workspace_folder(__file__) / "inbox"
with pdf_file(inbox / "essay2_feedback.pdf") as pdf:
    pdf.sections(FEEDBACK, heading_height=8, line_height=6, wrap=True)
with docx_file(inbox / "essay3_draft.docx", author="Oliver Grant") as doc:
    doc.add_heading(TITLE, level=1)
    for paragraph in DRAFT:
        doc.add_paragraph(paragraph)
