"""Writes inbox/essay1_marked.docx (a marked essay whose reference list the tutor praised) and inbox/sources_essay2.json; invented."""

import json

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder, write_text

ESSAY_ONE_REFERENCES = [
    "Lindgren, H. (2011) Rivers of Salt. Gothenburg: Vastra Press.",
    "Okafor, C. (2014) Fishing Families in the Delta. Ibadan: Riverline Books.",
    "Petrov, M. (2020) Harbour Towns in Decline. Varna: Black Sea Academic.",
]
SOURCES = [
    {"author": "Marta Ilves", "year": 2019, "title": "Tides and Memory", "city": "Tallinn", "publisher": "Harbour Press"},
    {"author": "Daniel Oyelaran", "year": 2016, "title": "Salt Roads", "city": "Lagos", "publisher": "Kestrel Books"},
    {"author": "Anna Berglund", "year": 2021, "title": "Coastal Villages After Fishing", "city": "Umea", "publisher": "Nordkust"},
    {"author": "Luis Fonseca", "year": 2012, "title": "The Sea Wall Question", "city": "Porto", "publisher": "Atlantico"},
    {"author": "Grace Whitfield", "year": 2018, "title": "Ports and People", "city": "Bristol", "publisher": "Lowtide Publishing"},
]

inbox = workspace_folder(__file__) / "inbox"
with docx_file(inbox / "essay1_marked.docx", author="student") as doc:
    doc.add_heading("Essay 1: What the harbour remembers", level=1)
    doc.add_paragraph("Mark: 68/100. Tutor: Dr R. Amsel.")
    doc.add_paragraph(
        "The decline of small harbour towns is usually told as an economic story, but the people who stayed tell it differently. "
        "This essay follows three towns through the closure of their fish markets."
    )
    doc.add_paragraph("[... essay text ...]")
    doc.add_heading("References", level=2)
    for line in ESSAY_ONE_REFERENCES:
        doc.add_paragraph(line)
    doc.add_paragraph(
        "Tutor's comment on referencing: full marks. Surname and initial, year in brackets, then title, city and publisher, "
        "and the list in alphabetical order of surname. Keep exactly this for every essay this term."
    )
write_text(inbox / "sources_essay2.json", json.dumps(SOURCES, indent=2) + "\n")
