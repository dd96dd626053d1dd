"""Acid concentrations from our titrations (CHEM 112, practical 5). Usage: python titre_stats.py titration_runs.csv"""

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
