"""The paper's figures from a :class:`~proactive_bench.reporting.summary.Summary`, as inline SVG markup.

- Proc vs Comp with the Comp = Proc diagonal: one point per model over all tasks (figure 3 d), one panel per task
  category with a point per model (figure 3 a-c), and per model and persona;
- average follow-up user turns per session vs Proc: one point per model (figure 4, Proc of table 1's Average), and
  per model and persona;
- the ablation with and without dependency history, per model over every persona's finals (figure 5);
- questions asked per session vs Proc, from the burden rows.

Each function returns None when the summary has nothing to plot. Point labels never overlap: coinciding
points share one marker and one label naming each of them, and a crowded label moves to the next free spot
(`place_labels`).
"""

from __future__ import annotations

import functools
import io
import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from proactive_bench.dataset import CATEGORY_CODES, CATEGORY_NAMES
from proactive_bench.reporting.burden import BurdenRow
from proactive_bench.reporting.summary import ARMS, Summary

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False, "axes.spines.right": False}
"""Text stays text in the SVG (small, selectable); no pyplot, so no global backend or state."""

Draw = Callable[[Summary], str | None]


def _styled(draw: Draw) -> Draw:
    @functools.wraps(draw)
    def styled(summary: Summary) -> str | None:
        with rc_context(STYLE):
            return draw(summary)

    return styled


@_styled
def proc_vs_comp(summary: Summary) -> str | None:
    """Per model and persona: Proc against Comp, with the Comp = Proc diagonal."""
    points = [(_label(r), r["proc"]["mean"], r["comp"]["mean"]) for r in summary.main if r["ablation"] == "none"]
    return _diagonal_figure(_percent(points), "Proc vs Comp per model and persona")


@_styled
def model_proc_vs_comp(summary: Summary) -> str | None:
    """Figure 3 (d): one point per model, table 1's Average Proc against its Average Comp."""
    points = [
        (_marked(r["model"], r["average"]["failures"]), r["average"]["proc"]["mean"], r["average"]["comp"]["mean"])
        for r in summary.overall
        if r["ablation"] == "none"
    ]
    return _diagonal_figure(_percent(points), "Proc vs Comp per model, all tasks (figure 3 d)")


@_styled
def category_proc_vs_comp(summary: Summary) -> str | None:
    """Figure 3 (a-c): one panel per task category with a taxonomy code (not ``unavailable``), one point per model, each
    model one colour named in the legend below the panels."""
    by_category: dict[str, list[tuple[str, float | None, float | None]]] = {}
    for r in summary.categories:
        if r["ablation"] == "none" and r["category"] in CATEGORY_CODES:
            by_category.setdefault(r["category"], []).append((_marked(r["model"], r["failures"]), r["proc"], r["comp"]))
    panels = {category: _percent(points) for category, points in sorted(by_category.items()) if _percent(points)}
    if not panels:
        return None
    models = sorted({name for points in panels.values() for name, _, _ in points})
    colour = {name: f"C{n % 10}" for n, name in enumerate(models)}
    columns, rows = min(len(panels), 4), math.ceil(len(panels) / 4)
    fig = Figure(figsize=(2.6 * columns, 2.6 * rows + 0.25 * len(models)))
    axes = list(fig.subplots(rows, columns, squeeze=False).flat)
    for ax, (category, points) in zip(axes, panels.items(), strict=False):
        _diagonal(ax, "\n".join(textwrap.wrap(f"{category}: {CATEGORY_NAMES.get(category, category)}", 34)))
        ax.title.set_fontsize(7)
        ax.set_xlabel("Proc (%)", fontsize=7)
        ax.set_ylabel("Comp (%)", fontsize=7)
        for name, x, y in points:
            ax.scatter([x], [y], s=30, color=colour[name], zorder=3, label=_text(name))
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    handles = [Line2D([], [], marker="o", linestyle="", color=colour[name], label=_text(name)) for name in models]
    fig.legend(handles=handles, loc="lower center", frameon=False, fontsize=7, ncol=1)
    fig.subplots_adjust(wspace=0.35, hspace=0.6, bottom=(0.3 + 0.25 * len(models)) / (2.6 * rows + 0.25 * len(models)))
    return _svg(fig)


def _percent(points: list[tuple[str, float | None, float | None]]) -> list[tuple[str, float, float]]:
    """The points with both values, in percent."""
    return [(name, 100 * x, 100 * y) for name, x, y in points if x is not None and y is not None]


def _marked(model: str, failures: dict[str, int]) -> str:
    return model + (" †" if any(failures.values()) else "")


def _diagonal(ax: Any, title: str) -> None:
    ax.plot([0, 100], [0, 100], linestyle="--", color="#999", linewidth=1, label="Comp = Proc")
    ax.set(xlim=(-3, 103), ylim=(-3, 103), xlabel="Proc (%)", ylabel="Comp (%)", title=_text(title))


def _diagonal_figure(points: list[tuple[str, float, float]], title: str) -> str | None:
    if not points:
        return None
    fig, ax = _figure()
    _diagonal(ax, title)
    _scatter(ax, points)
    ax.legend(loc="lower right", frameon=False)
    return _svg(fig)


@_styled
def turns_vs_proc(summary: Summary) -> str | None:
    """Per model and persona: average follow-up turns per session against that persona's Proc."""
    main = {(r["model"], r["persona"]): r for r in summary.main if r["ablation"] == "none" and r["proc"]["mean"] is not None}
    points = [
        (_label(main[key]), r["mean"], 100 * main[key]["proc"]["mean"])
        for r in summary.turns
        if r["ablation"] == "none" and (key := (r["model"], r["persona"])) in main
    ]
    return _turns_figure(points, "Follow-up turns vs Proc per model and persona")


@_styled
def model_turns_vs_proc(summary: Summary) -> str | None:
    """Figure 4 as the paper draws it: one point per model, average follow-up turns per session (every persona) against
    table 1's Average Proc."""
    points = [
        (_marked(r["model"], r["failures"]), r["mean"], 100 * r["proc"]["mean"])
        for r in summary.model_turns
        if r["ablation"] == "none" and r["proc"]["mean"] is not None
    ]
    return _turns_figure(points, "Follow-up turns vs Proc per model (figure 4)")


def _turns_figure(points: list[tuple[str, float, float]], title: str) -> str | None:
    if not points:
        return None
    fig, ax = _figure()
    ax.set(
        xlim=(0, max(p[1] for p in points) * 1.2 + 0.5),
        ylim=(-3, 103),
        xlabel="average follow-up user turns per session",
        ylabel="Proc (%)",
    )
    ax.set_title(title)
    _scatter(ax, points)
    return _svg(fig)


@_styled
def ablation_bars(summary: Summary) -> str | None:
    """Figure 5: per model, Proc and Comp of the dependency groups' final sessions (every persona's pooled), with and without history."""
    rows = [
        r
        for r in summary.ablation_average
        if any(r[f"{m}_{w}"] is not None for m in ("proc", "comp") for w in ("with_history", "without_history"))
    ]
    if not rows:
        return None
    fig = Figure(figsize=(7.5, 3.2))
    axes = fig.subplots(1, 2, sharey=True)
    labels = [_text(f"{r['model']}{' †' if any(r['failures'].values()) else ''}") for r in rows]
    width = 0.38
    for ax, metric, name in zip(axes, ("proc", "comp"), ("Proc", "Comp"), strict=True):
        for offset, (key, legend), color in zip((-width / 2, width / 2), ARMS, ("#3b6ea5", "#d08c3a"), strict=True):
            values = [100 * (r[f"{metric}_{key}"] or 0.0) for r in rows]
            bars = ax.bar([i + offset for i in range(len(rows))], values, width, label=legend, color=color)
            ax.bar_label(bars, fmt="%.1f", fontsize=6)
        ax.set_xticks(range(len(rows)), labels, fontsize=7)
        ax.set(ylim=(0, 110), title=f"{name} (%)")
    axes[0].legend(frameon=False, fontsize=7)
    finals = ", ".join(sorted({f"{r['sessions']} finals, {len(r['personas'])} personas" for r in rows}))
    fig.suptitle(_text(f"Final sessions of dependency groups ({finals})"))
    fig.tight_layout()
    return _svg(fig)


def _label(row: dict[str, Any]) -> str:
    """A point's label: model and persona, with the failure mark when the figure includes failed sessions."""
    mark = " †" if any(row.get("failures", {}).values()) else ""
    return f"{row['model']} · {row['persona']}{mark}"


def _figure() -> tuple[Figure, Any]:
    fig = Figure(figsize=(4.6, 3.6))
    return fig, fig.subplots()


def _text(label: str) -> str:
    """A label drawn literally (a ``$`` would start mathtext)."""
    return label.replace("$", r"\$")


LABEL_SIZE = 7
"""Point labels' font size (points)."""
CHAR_WIDTH = 0.62
"""A generous average glyph width of the labels' font, in ems: a label's box is estimated, never drawn to be measured."""
MARKER_RADIUS = 4.0
"""A point's marker (``s=36``: 6 points across) with a margin, in points: closer points share one marker and one label."""


@dataclass(frozen=True)
class Box:
    """A rectangle in points on the figure (x to the right, y up)."""

    left: float
    bottom: float
    right: float
    top: float

    def overlaps(self, other: Box) -> bool:
        return self.left < other.right and other.left < self.right and self.bottom < other.top and other.bottom < self.top

    def inside(self, other: Box) -> bool:
        return other.left <= self.left and self.right <= other.right and other.bottom <= self.bottom and self.top <= other.top


@dataclass(frozen=True)
class Label:
    """Where a label goes: its text, the point (data units) and its offset from it (points), aligned as matplotlib takes it."""

    text: str
    x: float
    y: float
    dx: float
    dy: float
    ha: str
    va: str
    box: Box


def place_labels(
    points: list[tuple[str, float, float]], to_points: Callable[[float, float], tuple[float, float]], frame: Box | None = None
) -> list[Label]:
    """Labels that do not overlap each other or a marker: coinciding points (closer than a marker) share one marker and one
    label listing every name, one per line; each label takes the first free spot around its point inside ``frame`` (the
    axes; else any free spot), stepping away when all are taken. ``to_points`` maps data coordinates to points on the figure."""
    groups: list[tuple[float, float, float, float, list[str]]] = []  # x, y in data and in points, the names
    for name, x, y in points:
        px, py = to_points(x, y)
        near = next((g for g in groups if math.hypot(g[2] - px, g[3] - py) < 2 * MARKER_RADIUS), None)
        if near is None:
            groups.append((x, y, px, py, [name]))
        elif name not in near[4]:
            near[4].append(name)
    taken = [Box(px - MARKER_RADIUS, py - MARKER_RADIUS, px + MARKER_RADIUS, py + MARKER_RADIUS) for _, _, px, py, _ in groups]
    labels = []
    for x, y, px, py, names in groups:
        text = "\n".join(names)
        width = CHAR_WIDTH * LABEL_SIZE * max(len(n) for n in names)
        height = 1.25 * LABEL_SIZE * len(names)
        spots = [_spot(text, x, y, px, py, width, height, side, step) for step in range(12) for side in ("ne", "se", "nw", "sw")]
        free = [s for s in spots if not any(s.box.overlaps(t) for t in taken)]
        label = next((s for s in free if frame is None or s.box.inside(frame)), free[0] if free else spots[0])
        taken.append(label.box)
        labels.append(label)
    return labels


def _spot(text: str, x: float, y: float, px: float, py: float, width: float, height: float, side: str, step: int) -> Label:
    """A label to the north-east, south-east, north-west or south-west of its point, ``step`` label heights further out."""
    dx = 5.0 if side[1] == "e" else -5.0
    dy = (4.0 + step * (height + 1)) * (1 if side[0] == "n" else -1)
    left = px + dx if dx > 0 else px + dx - width
    bottom = py + dy if dy > 0 else py + dy - height
    return Label(
        text, x, y, dx, dy, "left" if dx > 0 else "right", "bottom" if dy > 0 else "top", Box(left, bottom, left + width, bottom + height)
    )


def _scatter(ax: Any, points: list[tuple[str, float, float]]) -> None:
    """The points with their labels placed by :func:`place_labels` (call after the axes' limits are set); a label moved
    away from its point gets a thin line to it."""
    scale = 72 / ax.figure.dpi

    def to_points(x: float, y: float) -> tuple[float, float]:
        px, py = ax.transData.transform((x, y))
        return px * scale, py * scale

    (left, bottom), (right, top) = ax.get_window_extent().get_points() * scale
    for label in place_labels(points, to_points, Box(left, bottom, right, top)):
        ax.scatter([label.x], [label.y], s=36, zorder=3)
        ax.annotate(
            _text(label.text),
            (label.x, label.y),
            textcoords="offset points",
            xytext=(label.dx, label.dy),
            ha=label.ha,
            va=label.va,
            fontsize=LABEL_SIZE,
            arrowprops={"arrowstyle": "-", "color": "#999", "linewidth": 0.5, "shrinkA": 0, "shrinkB": 3} if abs(label.dy) > 4 else None,
        )


def _svg(fig: Figure) -> str:
    """SVG markup without the XML prolog, ready to inline in HTML (matplotlib escapes the text)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    markup = buffer.getvalue()
    return markup[markup.index("<svg") :]


def proc_vs_burden(rows: list[BurdenRow]) -> str | None:
    """Inline SVG: questions asked per session vs Proc, one point per model and persona (None without data)."""
    points = [
        (
            row.model
            + ("" if row.untargeted_share is None else f", {100 * row.untargeted_share:.0f}% untargeted")
            + (f", {row.reasked:.1f} re-asked" if row.reasked else ""),
            row.questions,
            100 * row.proc,
        )
        for row in rows
        if row.proc is not None
    ]
    if not points:
        return None
    with rc_context(STYLE):
        fig, ax = _figure()
        ax.set(xlim=(0, max(x for _, x, _ in points) * 1.2 + 0.5), ylim=(-3, 103), xlabel="questions asked per session", ylabel="Proc (%)")
        ax.set_title("Proc vs user burden")
        _scatter(ax, points)
        return _svg(fig)
