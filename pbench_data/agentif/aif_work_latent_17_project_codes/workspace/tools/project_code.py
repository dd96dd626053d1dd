"""Project codes for the register (PMO tool, 2019; retired with the old intranet in 2024).

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
