"""Writes inbox/gym_offers.pdf: four gyms' membership offers, as noted down after a round of visits (invented)."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder

OFFERS = [
    ("FitBox Centrum", [
        "Distance from home: 1.2 km", "Monthly fee: 39.90 EUR (12-month contract)", "Joining fee: 49.00 EUR",
        "Sauna: not included, 5.00 EUR per month extra", "Open 06:00-23:00",
    ]),
    ("Nordic Lift", [
        "Distance from home: 2.6 km", "Monthly fee: 34.00 EUR (12-month contract)", "Joining fee: 99.00 EUR",
        "Sauna: included", "Open 05:30-22:00, staffed until 20:00",
    ]),
    ("Aqua & Iron", [
        "Distance from home: 4.8 km", "Monthly fee: 29.50 EUR (no contract)", "Joining fee: none",
        "Sauna: included, plus a 25 m pool", "Open 07:00-21:00",
    ]),
    ("Studio Kern", [
        "Distance from home: 0.8 km", "Monthly fee: 44.00 EUR (no contract)", "Joining fee: none",
        "Sauna: included", "Open 24/7 with key card",
    ]),
]

with pdf_file(workspace_folder(__file__) / "inbox" / "gym_offers.pdf") as pdf:
    pdf.heading("Gym offers - notes from my visits, November", 10, size=15)
    pdf.sections(OFFERS, heading_height=9, line_height=6)
