"""Writes inbox/project_brief.md (a group project's brief with its work packages) and inbox/team_hours.xlsx (the
team's available hours); all invented."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet, write_text

BRIEF = """# PSYC 2150 group project - brief

Topic: does phone-free study time change how long students stay focused?
Hand-in: poster session on 5 December, report by 12 December.

## Work packages (in the order they have to happen)

| work package | estimated hours |
| --- | --- |
| Literature search | 8 |
| Survey design | 6 |
| Data collection | 12 |
| Data analysis | 10 |
| Poster design | 5 |
| Presentation script | 4 |
| Report editing | 5 |

Every work package has exactly one owner, who may ask the others for help.
"""
HOURS = [
    ("name", "role", "hours available (whole project)"),
    ("Amelia Brooks", "student", 20),
    ("Jakub Nowak", "student", 14),
    ("Laila Haddad", "student", 12),
    ("Rhys Morgan", "student", 16),
    ("Dr Grace Okafor", "supervisor - not a team member, office hours only", 2),
]

inbox = workspace_folder(__file__) / "inbox"
write_text(inbox / "project_brief.md", BRIEF)
write_sheet(inbox / "team_hours.xlsx", "Hours", HOURS)
