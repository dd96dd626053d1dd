"""Writes the PMO's old project-code script (Python source) and the project register (csv, 2024 and early 2025)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

OUT = workspace_folder(__file__)

SCRIPT = '''"""Project codes for the register (PMO tool, 2019; retired with the old intranet in 2024).

A code reads DEP-YY-NNNC: the department's three letters, the start year's last two
digits, the project's number within its department and start year (from 001, in the
order projects are registered) and a check letter computed from the five digits.
"""

import sys

DEPARTMENTS = {"Structural": "STR", "Mechanical": "MEC", "Electrical": "ELE", "Civil": "CIV"}
WEIGHTS = (3, 1, 7, 3, 1)
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: they read as 1 and 0


def check_letter(digits: str) -> str:
    total = sum(int(d) * w for d, w in zip(digits, WEIGHTS))
    return LETTERS[total % len(LETTERS)]


def project_code(department: str, start_year: int, number: int) -> str:
    digits = f"{start_year % 100:02d}{number:03d}"
    return f"{DEPARTMENTS[department]}-{digits[:2]}-{digits[2:]}{check_letter(digits)}"


if __name__ == "__main__":
    department, year, number = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(project_code(department, year, number))
'''

DEPARTMENTS = {"Structural": "STR", "Mechanical": "MEC", "Electrical": "ELE", "Civil": "CIV"}
WEIGHTS = (3, 1, 7, 3, 1)
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"

PROJECTS = [  # department, name, start, lead; numbered per department and start year in this order
    ("Civil", "Elbe dyke inspection lot 3", "2024-01-08", "Mette Sørensen"),
    ("Structural", "Warehouse 7 roof truss check", "2024-01-15", "Jana Petersen"),
    ("Mechanical", "Boiler house pump replacement", "2024-01-22", "Ömer Yıldız"),
    ("Electrical", "LED retrofit, office block A", "2024-02-05", "Kai Lorenz"),
    ("Electrical", "Crane 4 drive cabinet", "2024-02-12", "Kai Lorenz"),
    ("Civil", "Car park drainage Altona", "2024-02-19", "Mette Sørensen"),
    ("Structural", "Mezzanine load rating, hall 2", "2024-03-04", "Jana Petersen"),
    ("Mechanical", "Compressed air leak survey", "2024-03-11", "Ömer Yıldız"),
    ("Electrical", "Emergency lighting test regime", "2024-03-18", "Sven Albers"),
    ("Structural", "Pipe bridge corrosion repair", "2024-04-02", "Henrik Voss"),
    ("Civil", "Rail siding ballast renewal", "2024-04-15", "Mette Sørensen"),
    ("Electrical", "Shore power connection berth 2", "2024-04-22", "Kai Lorenz"),
    ("Mechanical", "Chiller plant controls", "2024-05-06", "Ömer Yıldız"),
    ("Electrical", "Substation A earthing study", "2024-05-13", "Sven Albers"),
    ("Structural", "Silo 3 foundation monitoring", "2024-05-27", "Henrik Voss"),
    ("Civil", "Access road resurfacing", "2024-06-03", "Mette Sørensen"),
    ("Electrical", "PV array on warehouse 5", "2024-06-10", "Kai Lorenz"),
    ("Mechanical", "Sprinkler pump test rig", "2024-06-24", "Birte Kahl"),
    ("Electrical", "Cable tray survey, quay 1", "2024-07-01", "Sven Albers"),
    ("Structural", "Conveyor gantry strengthening", "2024-07-15", "Jana Petersen"),
    ("Electrical", "Lightning protection, silo row", "2024-07-22", "Kai Lorenz"),
    ("Civil", "Fender replacement berth 3", "2024-08-05", "Mette Sørensen"),
    ("Mechanical", "HVAC balancing, office block B", "2024-08-12", "Birte Kahl"),
    ("Electrical", "UPS replacement, control room", "2024-08-26", "Sven Albers"),
    ("Structural", "Stair tower inspection", "2024-09-02", "Henrik Voss"),
    ("Electrical", "Reefer plug expansion", "2024-09-16", "Kai Lorenz"),
    ("Civil", "Stormwater outfall survey", "2024-09-23", "Mette Sørensen"),
    ("Mechanical", "Forklift charging ventilation", "2024-10-07", "Ömer Yıldız"),
    ("Electrical", "Street lighting, east yard", "2024-10-14", "Sven Albers"),
    ("Structural", "Rack anchorage check, hall 4", "2024-10-21", "Jana Petersen"),
    ("Electrical", "Metering upgrade, tenants", "2024-11-04", "Kai Lorenz"),
    ("Civil", "Kerb and crossing renewal", "2024-11-11", "Mette Sørensen"),
    ("Electrical", "Transformer 3 oil analysis", "2024-11-25", "Sven Albers"),
    ("Electrical", "Gate automation power supply", "2024-12-02", "Kai Lorenz"),
    ("Civil", "Quay apron crack mapping", "2025-01-13", "Mette Sørensen"),
    ("Structural", "Office block A facade anchors", "2025-01-20", "Henrik Voss"),
    ("Mechanical", "Heat recovery, workshop", "2025-02-03", "Birte Kahl"),
    ("Civil", "Rail crossing level survey", "2025-02-17", "Mette Sørensen"),
    ("Structural", "Canopy repair, gate 2", "2025-03-03", "Jana Petersen"),
    ("Civil", "Groyne inspection Övelgönne", "2025-03-24", "Mette Sørensen"),
]


def check_letter(digits):
    return LETTERS[sum(int(d) * w for d, w in zip(digits, WEIGHTS)) % len(LETTERS)]


def register():
    counters, rows = {}, [["code", "name", "department", "start", "lead"]]
    for department, name, start, lead in PROJECTS:
        key = (department, start[:4])
        counters[key] = counters.get(key, 0) + 1
        digits = f"{start[2:4]}{counters[key]:03d}"
        rows.append([f"{DEPARTMENTS[department]}-{digits[:2]}-{digits[2:]}{check_letter(digits)}", name, department, start, lead])
    return rows


write_text(OUT / "tools" / "project_code.py", SCRIPT)
write_csv(OUT / "registry" / "project_register.csv", register())
