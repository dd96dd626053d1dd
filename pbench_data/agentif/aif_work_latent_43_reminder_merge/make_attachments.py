"""Writes March's reminder mail-merge file (csv, as sent) and the accounts now overdue (xlsx)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_sheet

OUT = workspace_folder(__file__)

MARCH = [
    ["account", "invoice_date", "salutation", "amount_due", "due_date"],
    ["ACC-1021", "2025-02-12", "Dear Dr Patel", "£1,240.00", "14 March 2025"],
    ["ACC-1033", "2025-02-19", "Dear Ms Okafor", "£385.50", "21 March 2025"],
    ["ACC-1040", "2025-02-26", "Dear Sam Reid", "£2,015.75", "28 March 2025"],
    ["ACC-1052", "2025-03-04", "Dear Mr Lewis", "£99.00", "3 April 2025"],
]

OVERDUE = [
    ["account", "title", "first_name", "last_name", "balance", "invoice_date"],
    ["ACC-1107", "Prof", "Helen", "Marsh", 3250, "2025-10-20"],
    ["ACC-1112", None, "Alex", "Kim", 812.4, "2025-10-28"],
    ["ACC-1118", "Mrs", "Joan", "O'Neill", 45, "2025-11-03"],
    ["ACC-1121", "Mx", "Robin", "Hale", 12500, "2025-11-05"],
]

write_csv(OUT / "mailmerge" / "march_reminders.csv", MARCH)
write_sheet(OUT / "data" / "overdue_accounts.xlsx", "Overdue", OVERDUE, creator="Credit control")
