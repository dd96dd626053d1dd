"""Writes inbox/party_notes.docx: invented notes for a father's 70th birthday party."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder

NOTES = [
    "What: Dad's (Mohan Rao) 70th birthday party",
    "When: Saturday 14 June 2025, 19:00 to 23:00",
    "Where: The Bell Room, Cornfield Community Centre, 12 Mill Lane, Leicester LE2 7QP",
    "Food: Gujarati buffet, vegetarian, plus cake",
    "RSVP: text or call Sunita on 07700 900123",
    "Dress: smart casual",
    "SECRET - do not put on the invitation: the surprise slideshow of old family photos at 21:00.",
]

with docx_file(workspace_folder(__file__) / "inbox" / "party_notes.docx") as doc:
    doc.add_heading("Party notes", level=1)
    for line in NOTES:
        doc.add_paragraph(line)
