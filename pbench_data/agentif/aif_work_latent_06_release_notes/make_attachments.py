"""Writes the release notes of an invented rostering app's version 2.3, the tickets they were made from, and the tickets of 2.4."""

import argparse
import csv
from pathlib import Path

TICKETS_23 = [
    ("2301", "feature", "public", "Managers can copy last week's roster into the next week"),
    ("2304", "bug", "public", "The shift colour legend disappeared on small screens"),
    ("2307", "change", "internal", "Moved nightly backups to the eu-west storage bucket"),
    ("2309", "feature", "public", "Staff see their total planned hours on the home screen"),
    ("2312", "change", "public", "Shift swap requests now expire after 72 hours"),
    ("2315", "bug", "internal", "Build script failed on the release branch"),
]
NOTES_23 = """# Shiftly 2.3 - release notes

### Added
- Copy last week's roster into the next week in one click (#2301)
- Your total planned hours now show on the home screen (#2309)

### Fixed
- The shift colour legend is back on small screens (#2304)

### Changed
- Shift swap requests expire after 72 hours (#2312)
"""
TICKETS_24 = [
    ("2405", "feature", "public", "Export a week's roster as a PDF"),
    ("2409", "bug", "public", "Night shifts crossing midnight were shown on the wrong day"),
    ("2411", "feature", "public", "Swap requests can carry a note to the manager"),
    ("2414", "change", "public", "Shift reminder e-mails go out 12 hours before the shift instead of 24"),
    ("2417", "change", "internal", "Migrated the job queue to the new cluster"),
    ("2420", "bug", "public", "Time-off balances rounded half days down"),
    ("2422", "bug", "internal", "Flaky test in the payroll export suite"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
(out / "release_notes_2.3.md").write_text(NOTES_23, encoding="utf-8")
for name, rows in (("tickets_2.3.csv", TICKETS_23), ("tickets_2.4.csv", TICKETS_24)):
    with open(out / name, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["ticket", "type", "visibility", "summary"])
        writer.writerows(rows)
