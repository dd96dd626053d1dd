"""Writes six photographed receipts (JPEG): a slip of paper with printed lines, photographed slightly askew on a desk."""

import random

from PIL import Image, ImageDraw, ImageFilter

from proactive_bench.suites.agentif.attachment_writers import workspace_folder

RECEIPTS = {  # file name: the slip's lines
    "2025-10-06_taxi_zurich.jpg": ["TAXI ZUERICH AG", "Flughafen - Hotel", "06.10.2025 19:42", "Fahrpreis CHF 64.20", "Danke!"],
    "2025-10-06_hotel_zurich.jpg": ["HOTEL LIMMATBLICK", "2 Naechte 06.-08.10.", "Zimmer 312", "Total CHF 412.00", "MWST inkl."],
    "2025-10-08_train_zurich_milan.jpg": ["SBB / TRENITALIA", "Zuerich HB - Milano C.", "08.10.2025 09:33", "Prezzo EUR 94.30", ""],
    "2025-10-08_dinner_milan.jpg": ["TRATTORIA DEL PONTE", "Coperti 3", "08/10/2025", "Totale EUR 126.50", "Grazie"],
    "2025-10-09_conference_fee.jpg": ["EUROBUILD SUMMIT 2025", "Delegate pass", "Invoice 2025-4471", "Total USD 385.00", "PAID"],
    "2025-10-09_taxi_milan.jpg": ["RADIOTAXI MILANO", "Corsa n. 88120", "09/10/2025 18:05", "Totale EUR 38.00", ""],
}


def photo(lines, seed):
    rng = random.Random(seed)
    desk = Image.new("RGB", (300, 400), (112, 86, 60))
    slip = Image.new("RGB", (200, 300), (246, 244, 236))
    draw = ImageDraw.Draw(slip)
    for n, line in enumerate(lines):
        draw.text((16, 24 + n * 40), line, fill=(40, 40, 40))
    for _ in range(400):  # paper grain
        x, y = rng.randrange(200), rng.randrange(300)
        draw.point((x, y), fill=(226, 222, 210))
    slip = slip.rotate(rng.uniform(-7, 7), expand=True, fillcolor=(112, 86, 60))
    desk.paste(slip, ((300 - slip.width) // 2, (400 - slip.height) // 2))
    return desk.filter(ImageFilter.GaussianBlur(0.6))


folder = workspace_folder(__file__) / "receipts"
folder.mkdir(parents=True, exist_ok=True)
for n, (name, lines) in enumerate(RECEIPTS.items()):
    photo(lines, n).save(folder / name, "JPEG", quality=60)
