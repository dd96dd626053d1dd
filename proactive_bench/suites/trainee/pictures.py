"""Pictures that hold a clue (the agent reads them with ``view_image``): heatmaps, floor plans and maps drawn with matplotlib.

What a picture shows is drawn, never written into the file: the PNG carries
no text metadata (``validity`` checks its bytes do not spell the clue), so
reading it as text finds nothing. The same data always gives the same bytes, so
a process draws a picture once and keeps its bytes (the last :data:`PICTURES_KEPT`; kept.py):
a picture is ~0.1 s of CPU, and one process may compose the same template and seed
again (the tests do, over and over). matplotlib loads when the first picture is
drawn, not with the suite. A figure is drawn on canvas.py's canvas, which measures a text once per process.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from proactive_bench.suites.trainee.kept import KeptBytes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 80
PICTURES_KEPT = 512
"""How many drawn pictures a process keeps (each ~25 kB, at most ~45 kB: ~12 MB when full). The trainee tests of one
process draw ~450 different pictures, several of them in more than one test; 256 dropped some before their next use."""
_PICTURES = KeptBytes(lambda: PICTURES_KEPT)
_kept = _PICTURES.keep


def forget_pictures() -> None:
    """Drop every kept picture: the next of each is drawn anew (a test that a picture is drawn the same way again)."""
    _PICTURES.forget()


def pictures_forgotten() -> AbstractContextManager[None]:
    """Within the block every picture is drawn anew (none kept before is used); after it, the pictures kept before are kept
    again: a test that a picture is drawn the same way again, without every other kept picture drawn anew after it."""
    return _PICTURES.forgotten()


def _png(figure: Figure) -> bytes:
    """The figure's PNG; its layout is done (``tight_layout``), so no layout engine is left for ``savefig`` to run again
    (the placeholder ``tight_layout`` leaves makes it draw the whole figure once more before drawing it into the PNG)."""
    figure.set_layout_engine(None)
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def _figure(width: float, height: float) -> Figure:
    """A figure on a :class:`~proactive_bench.suites.trainee.canvas.PictureCanvas` (text measured once per process)."""
    from matplotlib.figure import Figure  # DEFERRED: matplotlib loads when a picture is drawn

    from proactive_bench.suites.trainee.canvas import PictureCanvas  # DEFERRED: it loads matplotlib

    figure = Figure(figsize=(width, height))
    PictureCanvas(figure)
    return figure


@_kept
def heatmap(title: str, rows: Sequence[str], columns: Sequence[str], values: Sequence[Sequence[int]], unit: str) -> bytes:
    """A grid of cells coloured by value, each cell's value written in it; rows and columns labelled."""
    figure = _figure(7, 5.2)
    axes = figure.add_subplot()
    image = axes.imshow(values, cmap="YlOrRd")
    axes.set_xticks(range(len(columns)), labels=list(columns))
    axes.set_yticks(range(len(rows)), labels=list(rows))
    low, high = min(min(row) for row in values), max(max(row) for row in values)
    for r, row in enumerate(values):
        for c, value in enumerate(row):
            shade = (value - low) / ((high - low) or 1)
            axes.text(c, r, str(value), ha="center", va="center", fontsize=10, color="white" if shade > 0.6 else "black")
    axes.set_title(title)
    figure.colorbar(image, ax=axes, label=unit)
    figure.tight_layout()
    return _png(figure)


@_kept
def floor_plan(title: str, rooms: Sequence[tuple[str, int]]) -> bytes:
    """A corridor with the lift at its left end and rooms along it (alternately above and below), in order of distance from
    the lift; each room labelled with its name and seats."""
    from matplotlib.patches import Rectangle  # DEFERRED: matplotlib loads when a picture is drawn

    width = 1.6 * len(rooms) + 2.2
    figure = _figure(min(12, width * 0.9), 4.6)
    axes = figure.add_subplot()
    axes.add_patch(Rectangle((0, 1.6), width, 0.8, facecolor="#eeeeee", edgecolor="black"))
    axes.text(width / 2, 2.0, "corridor", ha="center", va="center", fontsize=9, color="#555555")
    axes.add_patch(Rectangle((0, 1.6), 1.0, 0.8, facecolor="#9ecae1", edgecolor="black"))
    axes.text(0.5, 2.0, "LIFT", ha="center", va="center", fontsize=10, weight="bold")
    for n, (name, seats) in enumerate(rooms):
        x, above = 1.4 + n * 1.6, n % 2 == 0
        y = 2.4 if above else 0.0
        axes.add_patch(Rectangle((x, y), 1.5, 1.6, facecolor="#fdf6e3", edgecolor="black"))
        axes.text(x + 0.75, y + 0.8, f"{name}\n{seats} seats", ha="center", va="center", fontsize=10)
    axes.set_xlim(-0.2, width + 0.2)
    axes.set_ylim(-0.2, 4.2)
    axes.set_aspect("equal")
    axes.axis("off")
    axes.set_title(title)
    figure.tight_layout()
    return _png(figure)


@_kept
def bar_chart(title: str, labels: Sequence[str], values: Sequence[int], unit: str) -> bytes:
    """Bars with their values written on top."""
    figure = _figure(9, 4.4)
    axes = figure.add_subplot()
    bars = axes.bar(list(labels), list(values), color="#4c72b0")
    axes.bar_label(bars, labels=[str(v) for v in values], fontsize=9, padding=2)
    axes.set_ylabel(unit)
    axes.set_title(title)
    axes.set_ylim(0, max(values) * 1.15)
    figure.tight_layout()
    return _png(figure)


@_kept
def site_map(title: str, places: Sequence[tuple[str, float, float, str]], size: int) -> bytes:
    """A map on a labelled grid (kilometres): each place a marker (``depot``: a square, ``customer``: a star) with its name."""
    figure = _figure(6.4, 6.4)
    axes = figure.add_subplot()
    for name, x, y, kind in places:
        marker, colour = ("s", "#2b8cbe") if kind == "depot" else ("*", "#e34a33")
        axes.plot([x], [y], marker=marker, markersize=12 if kind == "depot" else 16, color=colour, linestyle="none")
        axes.annotate(name, (x, y), xytext=(7, 7), textcoords="offset points", fontsize=9)
    axes.set_xlim(0, size)
    axes.set_ylim(0, size)
    axes.set_xticks(range(0, size + 1, 2))
    axes.set_yticks(range(0, size + 1, 2))
    axes.grid(True, color="#dddddd")
    axes.set_aspect("equal")
    axes.set_xlabel("km east")
    axes.set_ylabel("km north")
    axes.set_title(title)
    figure.tight_layout()
    return _png(figure)


@_kept
def pie_chart(title: str, labels: Sequence[str], percents: Sequence[int]) -> bytes:
    """Slices labelled with their name and whole-number percentage."""
    figure = _figure(6.4, 5.6)
    axes = figure.add_subplot()
    axes.pie(
        list(percents), labels=[f"{label}\n{p}%" for label, p in zip(labels, percents, strict=True)], startangle=90, counterclock=False
    )
    axes.set_aspect("equal")
    axes.set_title(title)
    figure.tight_layout()
    return _png(figure)


@_kept
def line_chart(title: str, labels: Sequence[str], values: Sequence[float], unit: str, decimals: int) -> bytes:
    """A line through the points, each point's value written beside it."""
    figure = _figure(10, 4.6)
    axes = figure.add_subplot()
    axes.plot(list(labels), list(values), marker="o", color="#31a354")
    for x, value in enumerate(values):
        axes.annotate(f"{value:.{decimals}f}", (x, value), xytext=(0, 8), textcoords="offset points", ha="center", fontsize=8)
    spread = max(values) - min(values) or 1
    axes.set_ylim(min(values) - spread * 0.2, max(values) + spread * 0.3)
    axes.tick_params(axis="x", labelrotation=45, labelsize=8)
    axes.set_ylabel(unit)
    axes.set_title(title)
    figure.tight_layout()
    return _png(figure)


@_kept
def receipt(lines: Sequence[str], seed: int) -> bytes:
    """A till receipt photographed slightly askew: its lines printed in a narrow monospaced column on a tilted paper strip."""
    from matplotlib.patches import Rectangle  # DEFERRED: matplotlib loads when a picture is drawn
    from matplotlib.transforms import Affine2D  # DEFERRED: matplotlib loads when a picture is drawn

    tilt = (seed % 7 - 3) * 0.8
    figure = _figure(4.2, 0.32 * len(lines) + 1.4)
    axes = figure.add_subplot()
    height = 0.32 * len(lines) + 0.8
    rotate = Affine2D().rotate_deg_around(2.1, height / 2, tilt) + axes.transData
    axes.add_patch(Rectangle((0.2, 0.1), 3.8, height - 0.2, facecolor="#fbf8ef", edgecolor="#bbbbbb", transform=rotate))
    for n, line in enumerate(lines):
        axes.text(0.45, height - 0.55 - 0.32 * n, line, family="monospace", fontsize=9, transform=rotate)
    axes.set_xlim(0, 4.2)
    axes.set_ylim(0, height)
    axes.axis("off")
    figure.patch.set_facecolor("#8d8d8d")
    figure.tight_layout()
    return _png(figure)


@_kept
def car_park(title: str, bays: Sequence[tuple[str, str]], per_row: int) -> bytes:
    """Bays in rows, the entrance at the left: each bay labelled with its number, charging bays green and marked EV,
    reserved bays grey and marked RES."""
    from matplotlib.patches import Rectangle  # DEFERRED: matplotlib loads when a picture is drawn

    rows = (len(bays) + per_row - 1) // per_row
    figure = _figure(1.0 * per_row + 2.2, 1.5 * rows + 1.4)
    axes = figure.add_subplot()
    axes.add_patch(Rectangle((0, 0), 1.2, 1.5 * rows, facecolor="#9ecae1", edgecolor="black"))
    axes.text(0.6, 0.75 * rows, "ENTRANCE", rotation=90, ha="center", va="center", fontsize=10, weight="bold")
    colours = {"ev": "#a1d99b", "reserved": "#bdbdbd", "plain": "#ffffff"}
    marks = {"ev": "EV", "reserved": "RES", "plain": ""}
    for n, (label, kind) in enumerate(bays):
        row, col = divmod(n, per_row)
        x, y = 1.5 + col * 1.0, 1.5 * (rows - 1 - row) + 0.2
        axes.add_patch(Rectangle((x, y), 0.9, 1.1, facecolor=colours[kind], edgecolor="black"))
        axes.text(x + 0.45, y + 0.7, label, ha="center", va="center", fontsize=9)
        axes.text(x + 0.45, y + 0.3, marks[kind], ha="center", va="center", fontsize=8, weight="bold")
    axes.set_xlim(-0.1, 1.6 + per_row * 1.0)
    axes.set_ylim(-0.1, 1.5 * rows + 0.1)
    axes.set_aspect("equal")
    axes.axis("off")
    axes.set_title(title)
    figure.tight_layout()
    return _png(figure)
