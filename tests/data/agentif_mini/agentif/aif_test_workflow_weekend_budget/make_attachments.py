"""Writes inbox/prices.csv: the price list of a weekend trip (invented)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv

ROWS = [
    ("Train tickets (2 return)", "96.00"),
    ("Guesthouse, 2 nights", "148.00"),
    ("Bike rental, 2 days", "36.50"),
    ("Museum tickets (2)", "28.00"),
    ("Picnic groceries", "22.40"),
    ("Ferry to the island (2)", "18.60"),
]

write_csv(workspace_folder(__file__) / "inbox" / "prices.csv", [("item", "cost_eur"), *ROWS])
