"""Writes inbox/monthly_revenue.csv: revenue per sales region and month, April to September 2025 (invented)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv

MONTHS = ["2025-04", "2025-05", "2025-06", "2025-07", "2025-08", "2025-09"]
REVENUE = {  # region -> six months in EUR
    "North": [40000, 42000, 38000, 41000, 39000, 46000],
    "East": [55000, 50000, 55000, 60000, 58000, 58000],
    "South": [30000, 35000, 35000, 31000, 30000, 35000],
    "West": [70000, 65000, 65000, 70000, 72000, 75000],
    "Central": [25000, 25000, 30000, 28000, 30000, 32000],
}

ROWS = [
    ("month", "region", "revenue_eur"),
    *((month, region, values[n]) for n, month in enumerate(MONTHS) for region, values in REVENUE.items()),
]
write_csv(workspace_folder(__file__) / "inbox" / "monthly_revenue.csv", ROWS)
