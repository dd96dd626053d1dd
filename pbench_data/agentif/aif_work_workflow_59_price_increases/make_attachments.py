"""Writes a supplier's new trade price list (HTML page, as saved) and our current cost list (csv)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

OUT = workspace_folder(__file__)

ITEMS = [  # code, description, our current cost, the supplier's new price
    ("FX-100", "Wall plug 6 mm (box of 100)", 2.40, 2.52),
    ("FX-210", "Wood screw 4x40 (box of 200)", 5.80, 6.30),
    ("FX-305", "Masonry drill bit 6 mm", 1.95, 1.95),
    ("FX-412", "Cable tie 300 mm (pack of 100)", 3.10, 3.40),
    ("FX-520", "Silicone sealant, clear", 4.25, 4.46),
    ("FX-611", "Hinge 75 mm (pair)", 2.90, 3.20),
    ("FX-733", "Decking screw 4.5x60 (box of 250)", 11.50, 12.05),
    ("FX-840", "Duct tape 50 m", 3.60, 3.49),
]

rows = "\n".join(
    f'      <tr><td class="code">{code}</td><td>{name}</td><td class="price">&pound;{new:.2f}</td></tr>' for code, name, _cost, new in ITEMS
)
PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Trade prices from 1 February 2026 - Fixwell Fixings</title></head>
<body>
  <h1>Trade price list</h1>
  <p>Prices per unit, excluding VAT, valid from 1 February 2026.</p>
  <table class="prices">
    <thead><tr><th>Code</th><th>Product</th><th>Price</th></tr></thead>
    <tbody>
{rows}
    </tbody>
  </table>
  <p class="small">Fixwell Fixings Ltd, Unit 4, Canal Side, Walsall.</p>
</body>
</html>
"""

write_text(OUT / "suppliers" / "fixwell_prices_2026.html", PAGE)
write_csv(OUT / "costs" / "current_costs.csv", [["code", "description", "cost_gbp"], *[[c, n, f"{cost:.2f}"] for c, n, cost, _ in ITEMS]])
