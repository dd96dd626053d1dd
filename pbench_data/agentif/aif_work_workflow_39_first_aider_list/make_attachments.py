"""Writes the intranet staff directory (HTML table of 60 people: name, team, floor, extension, badges) as saved from the browser."""

import random

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_text

FIRST = ["Aled", "Bethan", "Cai", "Dilys", "Emyr", "Ffion", "Gethin", "Heledd", "Iwan", "Jac", "Llinos", "Morgan", "Nia", "Owain",
         "Prys", "Rhian", "Sioned", "Tomos", "Alys", "Bryn", "Carys", "Dafydd", "Elin", "Gwion"]
LAST = ["Ashworth", "Bevan", "Cadwallader", "Davies", "Evans", "Griffiths", "Howells", "Jenkins", "Lewis", "Morgan", "Parry",
        "Powell", "Price", "Pritchard", "Rees", "Roberts", "Thomas", "Vaughan", "Watkins", "Williams"]
TEAMS = ["Claims", "Customer service", "Finance", "IT", "Legal", "Underwriting"]
FIRST_AIDERS = {7: "expired 2025-03", 15: "", 22: "", 31: "", 38: "", 44: "expired 2024-11", 52: ""}
"""Row numbers of the first aiders, and those whose certificate has lapsed (still badged on the page)."""


def people():
    rng = random.Random(39)
    seen, rows = set(), []
    while len(rows) < 60:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name in seen:
            continue
        seen.add(name)
        rows.append((name, rng.choice(TEAMS), rng.randint(1, 4), 4100 + len(rows) * 3 + rng.randint(0, 2)))
    return rows


def row(n, person):
    name, team, floor, extension = person
    badge = ""
    if n in FIRST_AIDERS:
        lapsed = FIRST_AIDERS[n]
        badge = f'<img src="icons/first-aid.png" alt="First aider" title="First aider{" - certificate " + lapsed if lapsed else ""}">'
    return f"      <tr><td>{name}</td><td>{team}</td><td>{floor}</td><td>{extension}</td><td>{badge}</td></tr>"


PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Staff directory - Harbour Mutual</title></head>
<body>
  <h1>Staff directory</h1>
  <p>Hover over a badge for details. Saved from the intranet on 1 December 2025.</p>
  <table id="directory">
    <thead><tr><th>Name</th><th>Team</th><th>Floor</th><th>Extension</th><th>Badges</th></tr></thead>
    <tbody>
{rows}
    </tbody>
  </table>
</body>
</html>
"""

write_text(workspace_folder(__file__) / "intranet" / "staff_directory.html", PAGE.format(rows="\n".join(row(n, p) for n, p in enumerate(people()))))
