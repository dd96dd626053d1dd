"""Writes inbox/syllabus_urban_studies.docx: a course syllabus whose reading table marks readings required or optional (invented)."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder

READINGS = [  # week, author, year, title, pages, status
    (1, "Halvorsen", 2019, "Cities as Systems", 24, "required"),
    (1, "Mbeki", 2021, "Notes on Density", 12, "optional"),
    (2, "Ortega", 2017, "The Commuter's Day", 30, "required"),
    (3, "Lindqvist", 2020, "Water Under the Street", 22, "required"),
    (3, "Costa", 2022, "Rain Gardens in Practice", 15, "optional"),
    (3, "Abara", 2018, "Drainage and the Poor Quarter", 18, "required"),
    (4, "Weiss", 2019, "Bus Rapid Transit Myths", 10, "optional"),
    (4, "Nakamura", 2016, "Transit Before Tracks", 28, "required"),
    (5, "Fischer", 2021, "Heat Islands Measured", 20, "required"),
    (5, "Delacroix", 2015, "Shade as Infrastructure", 16, "required"),
    (6, "Yilmaz", 2020, "Parking Minimums Revisited", 14, "optional"),
    (6, "Brennan", 2023, "Zoning After the Car", 26, "required"),
    (7, "Quist", 2018, "Participatory Budgets", 25, "required"),
    (8, "Sato", 2022, "The Fifteen-Minute Debate", 19, "required"),
]

with docx_file(workspace_folder(__file__) / "inbox" / "syllabus_urban_studies.docx", author="Course office") as doc:
    doc.add_heading("URB 204 - Infrastructure and Everyday Life", level=1)
    doc.add_paragraph("Seminar, autumn term. Readings are in the course reader; page counts are approximate.")
    table = doc.add_table(rows=1, cols=6)
    for cell, name in zip(table.rows[0].cells, ["Week", "Author", "Year", "Title", "Pages", "Status"]):
        cell.text = name
    for reading in READINGS:
        for cell, value in zip(table.add_row().cells, reading):
            cell.text = str(value)
    doc.add_paragraph("Optional readings are not examined.")
