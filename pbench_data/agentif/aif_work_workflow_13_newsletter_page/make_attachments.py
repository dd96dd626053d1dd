"""Writes the April newsletter drafts and its pictures: a photo-like JPEG of a machine line, two matplotlib charts, two logos (PNG)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_text  # noqa: E402

OUT = workspace_folder(__file__)
PNG = {"Software": None}

DRAFTS = """# Newsletter drafts - April 2025

Note from Sanna: the logo changed in March. The header uses assets/logo_2025.png only;
assets/logo_2019.png is the old one and is kept for the archive.

## Item 1 - Line 4 gets its new thermoformer
Picture: assets/line4_thermoformer.jpg (the machine on its first shift)

The new thermoformer on Line 4 ran its first full shift on 7 April. It forms trays for
two of our food customers and uses about a fifth less energy per tray than the machine it
replaces. Thanks to the maintenance crew, who installed it over one weekend.

## Item 2 - Safety: 200 days without a lost-time accident
Picture: assets/safety_days.png (chart of days without a lost-time accident per site)

Hervanta reached 200 days without a lost-time accident on 15 April, the longest run in
the company's history. Lielahti stands at 64 days. Keep reporting near misses: there were
31 reports in March, and every one was followed up within a week.

## Item 3 - Canteen menu vote results
Picture: assets/menu_vote.png (bar chart of the votes)

412 of you voted on the new canteen menu. Salmon soup won with 138 votes, ahead of the
lentil curry (121) and the reindeer stew (97). The winning menu starts on 5 May; vegetarian
options stay on every day.
"""


def photo(path):
    """A photo-like picture of a thermoforming machine: a shaded hall, the machine body, a conveyor and trays."""
    image = Image.new("RGB", (480, 320), (205, 210, 214))
    draw = ImageDraw.Draw(image)
    for y in range(0, 320, 4):  # the hall's light falling off towards the floor
        shade = 215 - y // 6
        draw.rectangle([0, y, 480, y + 3], fill=(shade, shade + 3, shade + 6))
    draw.rectangle([40, 90, 300, 250], fill=(38, 92, 140), outline=(20, 40, 60), width=3)
    draw.rectangle([60, 110, 150, 170], fill=(170, 200, 220), outline=(20, 40, 60), width=2)
    draw.rectangle([300, 200, 460, 225], fill=(70, 70, 70))
    for x in range(310, 455, 28):
        draw.rectangle([x, 188, x + 20, 200], fill=(235, 235, 225), outline=(120, 120, 110))
    draw.text((170, 120), "TF-800", fill=(240, 240, 240))
    image.save(path, "JPEG", quality=80)


def logo(path, text, colour):
    image = Image.new("RGB", (200, 60), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.ellipse([8, 8, 52, 52], fill=colour)
    draw.text((64, 22), text, fill=colour)
    image.save(path, "PNG")


def bars(path, labels, values, title, colour):
    figure, axes = plt.subplots(figsize=(4.8, 3.0), dpi=100)
    axes.bar(labels, values, color=colour)
    axes.set_title(title)
    for n, value in enumerate(values):
        axes.text(n, value, str(value), ha="center", va="bottom")
    figure.tight_layout()
    figure.savefig(path, metadata=PNG)
    plt.close(figure)


(OUT / "assets").mkdir(parents=True, exist_ok=True)
write_text(OUT / "drafts" / "april_items.md", DRAFTS)
photo(OUT / "assets" / "line4_thermoformer.jpg")
bars(OUT / "assets" / "safety_days.png", ["Hervanta", "Lielahti"], [200, 64], "Days without a lost-time accident", "#2e7d32")
bars(OUT / "assets" / "menu_vote.png", ["Salmon soup", "Lentil curry", "Reindeer stew"], [138, 121, 97], "Canteen menu vote", "#1565c0")
logo(OUT / "assets" / "logo_2025.png", "PAKKA 2025", (0, 120, 110))
logo(OUT / "assets" / "logo_2019.png", "Pakka Oy", (150, 30, 30))
