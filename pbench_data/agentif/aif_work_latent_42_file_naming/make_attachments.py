"""Writes a listing of the shared client folder (text) and the client code list (csv)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

OUT = workspace_folder(__file__)

LISTING = """Listing of S:\\Clients\\Active (exported 2025-11-28)

2025-09-03_BRW_Proposal_v01.docx
2025-09-03_BRW_Proposal_v02.docx
2025-09-15_HLX_Contract_v01.pdf
2025-09-29_NCS_Proposal_v01.docx
2025-10-01_BRW_Invoice_v01.xlsx
2025-10-02_MDN_Minutes_v01.docx
2025-10-14_NCS_Contract_v01.pdf
2025-10-20_HLX_Report_v01.docx
2025-10-27_HLX_Report_v02.docx
2025-11-03_MDN_Invoice_v01.xlsx
"""

CLIENTS = [
    ["client", "code", "account_manager"],
    ["Brightwater Homes", "BRW", "Tess"],
    ["Helix Labs", "HLX", "Omar"],
    ["Meridian Foods", "MDN", "Tess"],
    ["Northcote Schools", "NCS", "Omar"],
]

write_text(OUT / "shared" / "client_folder_listing.txt", LISTING)
write_csv(OUT / "shared" / "clients.csv", CLIENTS)
