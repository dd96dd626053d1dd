"""Writes inbox/titration_runs.csv (a chemistry lab group's titres), inbox/titre_stats.py (the group's analysis script)
and inbox/lab_manual_practical5.pdf (the manual's page on processing titres); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_csv, write_text

RUNS = [
    ("sample", "acid", "run", "titre_cm3"),
    ("A", "HCl", "rough", "24.90"),
    ("A", "HCl", "1", "24.35"),
    ("A", "HCl", "2", "24.40"),
    ("A", "HCl", "3", "24.60"),
    ("A", "HCl", "4", "24.35"),
    ("B", "H2SO4", "rough", "18.20"),
    ("B", "H2SO4", "1", "17.85"),
    ("B", "H2SO4", "2", "17.90"),
    ("B", "H2SO4", "3", "17.85"),
    ("C", "HCl", "rough", "31.00"),
    ("C", "HCl", "1", "30.50"),
    ("C", "HCl", "2", "30.20"),
    ("C", "HCl", "3", "30.25"),
    ("C", "HCl", "4", "30.20"),
]

SCRIPT = '''"""Acid concentrations from our titrations (CHEM 112, practical 5). Usage: python titre_stats.py titration_runs.csv"""

import csv
import sys
from collections import defaultdict

NAOH_MOL_PER_DM3 = 0.100   # standardised sodium hydroxide in the burette
ALIQUOT_CM3 = 25.0         # acid pipetted into the flask
PROTONS = {"HCl": 1, "H2SO4": 2}  # mol of NaOH per mol of acid


def concentration(mean_titre_cm3, acid):
    moles_naoh = mean_titre_cm3 / 1000 * NAOH_MOL_PER_DM3
    moles_acid = moles_naoh / PROTONS[acid]
    return moles_acid / (ALIQUOT_CM3 / 1000)


titres, acids = defaultdict(list), {}
with open(sys.argv[1]) as handle:
    for row in csv.DictReader(handle):
        titres[row["sample"]].append(float(row["titre_cm3"]))
        acids[row["sample"]] = row["acid"]

for sample, values in sorted(titres.items()):
    mean = sum(values) / len(values)
    print(sample, round(mean, 2), round(concentration(mean, acids[sample]), 4))
'''

MANUAL = [
    ("CHEM 112 Practical 5 - acid-base titration", ["Section 5.4: Processing your titres"]),
    (
        "Rough and accurate titrations",
        [
            "The first (rough) titration only tells you roughly where the end point is. Never use it in a mean.",
            "Repeat accurately, adding the last 2 cm3 drop by drop, until you have concordant titres.",
        ],
    ),
    (
        "Concordant titres",
        [
            "Concordant titres are accurate titres that all lie within 0.10 cm3 of each other.",
            "Take the largest such set of your accurate titres and average those only; leave out any other run.",
            "Record the run numbers you used and give the mean titre to 2 decimal places.",
        ],
    ),
]

inbox = workspace_folder(__file__) / "inbox"
write_csv(inbox / "titration_runs.csv", RUNS)
write_text(inbox / "titre_stats.py", SCRIPT)
with pdf_file(inbox / "lab_manual_practical5.pdf") as pdf:
    pdf.sections(MANUAL, heading_height=8, line_height=6, wrap=True)
