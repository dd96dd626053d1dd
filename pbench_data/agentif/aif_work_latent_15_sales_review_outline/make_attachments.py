"""Writes last quarter's sales review deck (pptx, with a chart) and the Q1 2025 order lines (xlsx, 300 rows)."""

import io
import random
from datetime import date, timedelta

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from pptx import Presentation  # noqa: E402
from pptx.util import Inches, Pt  # noqa: E402

from proactive_bench.suites.agentif.attachment_writers import FIXED_TIME, normalize_zip, workspace_folder, write_sheet  # noqa: E402

OUT = workspace_folder(__file__)

Q4 = [  # region, Q4 revenue in EUR thousands, change vs Q3 in %, top customer, their Q4 revenue in k, remarks
    ("Netherlands", 412, "+6%", "Koffiebranderij De Haan", 58, ["Two new office-catering accounts in Utrecht", "Service contracts renewed for 2025"]),
    ("Germany", 388, "+11%", "Kaffeehaus Brenner", 61, ["Düsseldorf showroom opened in October", "Grinder sales up after the trade fair"]),
    ("Belgium", 205, "-3%", "Brasserie Lambrecht", 33, ["One hotel group moved to a competitor", "Antwerp pipeline looks strong for Q1"]),
    ("France", 167, "+2%", "Café des Quais", 24, ["Lille distributor onboarded in November", "Price list in French reissued"]),
]
CUSTOMERS = {
    "Netherlands": ["Koffiebranderij De Haan", "Hotel Maasoever", "Kantoorkoffie Utrecht", "Bakkerij Vos", "Eetcafé Het Anker", "Zorggroep Delta"],
    "Germany": ["Kaffeehaus Brenner", "Rösterei Falk", "Hotel am Rhein", "Bäckerei Lindner", "Büroservice Kessler", "Mensa Köln-Süd"],
    "Belgium": ["Brasserie Lambrecht", "Hotel Scheldezicht", "Koffiebar Noord", "Traiteur Dumont", "Campus Gent"],
    "France": ["Café des Quais", "Hôtel du Beffroi", "Boulangerie Marchal", "Bureau Café Lille", "Restaurant Le Comptoir"],
}
WEIGHTS = {region: revenue for region, revenue, *_ in Q4}  # Q1 orders fall across the regions roughly as Q4 revenue did
PRODUCTS = [("Espresso machine E2", 2400, 6200), ("Grinder G60", 650, 1400), ("Service contract (year)", 900, 2100), ("Beans 6 kg", 95, 260)]


def chart_png() -> bytes:
    figure, axes = plt.subplots(figsize=(5.0, 3.0), dpi=100)
    axes.bar([r[0] for r in Q4], [r[1] for r in Q4], color="#6d4c41")
    axes.set_ylabel("EUR thousands")
    axes.set_title("Q4 2024 revenue by region")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()


def bullets(slide, lines, top=1.6):
    box = slide.shapes.add_textbox(Inches(0.6), Inches(top), Inches(8.8), Inches(3.5)).text_frame
    for n, line in enumerate(lines):
        paragraph = box.paragraphs[0] if n == 0 else box.add_paragraph()
        paragraph.text = f"• {line}"
        paragraph.font.size = Pt(18)


def deck(path):
    prs = Presentation()
    title = prs.slides.add_slide(prs.slide_layouts[0])
    title.shapes.title.text = "Q4 2024 sales review"
    title.placeholders[1].text = "Sales operations - January 2025"
    overview = prs.slides.add_slide(prs.slide_layouts[5])
    overview.shapes.title.text = "Revenue by region"
    overview.shapes.add_picture(io.BytesIO(chart_png()), Inches(1.5), Inches(1.6), width=Inches(7))
    for region, revenue, change, top, top_k, remarks in Q4:
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = f"{region}: €{revenue}k ({change} QoQ)"
        bullets(slide, [*remarks, f"Top customer: {top} (€{top_k}k)"])
        slide.notes_slide.notes_text_frame.text = "Figures are net of discounts, rounded to the nearest thousand euros."
    closing = prs.slides.add_slide(prs.slide_layouts[5])
    closing.shapes.title.text = f"Q4 total: €{sum(r[1] for r in Q4):,}k"
    bullets(closing, ["Targets for Q1 agreed with each country lead", "Next review: early April"])
    prs.core_properties.created = prs.core_properties.modified = FIXED_TIME
    prs.core_properties.author = "Sales operations"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))
    normalize_zip(path)


def orders():
    rng = random.Random(328)
    regions = list(WEIGHTS)
    rows = []
    for n in range(300):
        region = rng.choices(regions, weights=[WEIGHTS[r] for r in regions])[0]
        customer = rng.choice(CUSTOMERS[region])
        product, low, high = rng.choice(PRODUCTS)
        quantity = rng.randint(1, 4)
        day = date(2025, 1, 2) + timedelta(days=rng.randrange(88))
        rows.append([f"SO-25-{n + 1:04d}", day.isoformat(), region, customer, product, quantity, round(quantity * rng.uniform(low, high), 2)])
    rows.sort(key=lambda row: (row[1], row[0]))
    return [["order_id", "order_date", "region", "customer", "product", "quantity", "net_eur"], *rows]


deck(OUT / "decks" / "q4_2024_review.pptx")
write_sheet(OUT / "data" / "q1_2025_orders.xlsx", "Orders Q1 2025", orders(), creator="Sales operations")
