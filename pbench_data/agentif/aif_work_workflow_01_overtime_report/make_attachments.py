"""Writes inbox/timesheets.csv: two weeks of daily hours for a five-person warehouse team (invented)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv

WEEK_ONE = ["2025-11-03", "2025-11-04", "2025-11-05", "2025-11-06", "2025-11-07", "2025-11-08"]
WEEK_TWO = ["2025-11-10", "2025-11-11", "2025-11-12", "2025-11-13", "2025-11-14", "2025-11-15"]
HOURS = {  # employee -> (six days of week one, six days of week two); 0 = not on shift
    "Amira Haddad": ([8, 8, 8, 8, 8, 0], [9, 9, 8.5, 9, 8, 4]),
    "Bastian Kohl": ([10, 10, 10, 10, 6, 0], [8, 8, 8, 8, 7.5, 0]),
    "Chloe Varga": ([8, 7.5, 8, 8, 8, 0], [10, 9.5, 9, 9, 8.5, 0]),
    "Dario Pinto": ([8, 8, 8, 8, 8, 0], [8, 8.5, 8, 8, 8, 0]),
    "Elin Strand": ([9, 9, 9, 9, 9, 0], [7, 8, 8, 8, 8, 0]),
}

ROWS = [("date", "employee", "hours", "shift")] + [
    (day, name, weeks[week][n], "late" if n % 2 else "early")
    for days, week in ((WEEK_ONE, 0), (WEEK_TWO, 1)) for n, day in enumerate(days) for name, weeks in HOURS.items() if weeks[week][n]
]
write_csv(workspace_folder(__file__) / "inbox" / "timesheets.csv", ROWS)
