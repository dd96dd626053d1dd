"""Writes inbox/notebook_week3.docx (last practical's marked notebook entry) and inbox/week5_readings.csv (this week's raw
readings); all invented."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder, write_csv

WEEK3 = [
    ("run", "thiosulfate (g/dm3)", "temperature (K)", "mean time (s)", "rate (10^-3 s^-1)"),
    ("1", "40", "294.2", "48.5", "20.62"),
    ("2", "30", "294.2", "60.9", "16.42"),
    ("3", "20", "294.2", "80.9", "12.36"),
]
READINGS = [
    ("run", "thiosulfate_g_dm3", "temp_C", "time1_s", "time2_s"),
    ("1", "40", "20.04", "52.4", "53.0"),
    ("2", "40", "30.47", "27.8", "28.4"),
    ("3", "40", "40.21", "15.1", "14.7"),
    ("4", "40", "49.83", "8.2", "8.0"),
]

inbox = workspace_folder(__file__) / "inbox"
write_csv(inbox / "week5_readings.csv", READINGS)
with docx_file(inbox / "notebook_week3.docx", author="Chloe Martin") as doc:
    doc.add_heading("Week 3 - sodium thiosulfate and acid: concentration series", level=1)
    doc.add_paragraph("Date: 2025-10-08")
    doc.add_paragraph("Aim: how the rate depends on the thiosulfate concentration (disappearing-cross method, two timings per run).")
    table = doc.add_table(rows=len(WEEK3), cols=len(WEEK3[0]))
    for r, row in enumerate(WEEK3):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    doc.add_paragraph("Rate = 1000 / mean time, the mean taken over the two timings.")
    doc.add_paragraph(
        "Demonstrator's comment (P. Osei): good entry. Temperatures in kelvin to 0.1 K throughout, please keep that for every "
        "practical - the thermometer reads Celsius, convert before you write it down."
    )
