"""The paper's figures from a :class:`~proactive_bench.reporting.summary.Summary`, as inline SVG markup.

- Proc vs Comp per model and persona, with the Comp = Proc diagonal (figure 3d);
- average follow-up user turns per session vs Proc per model and persona (figure 4);
- the ablation with and without dependency history (figure 5);
- questions asked per session vs Proc, from the burden rows.

Each function returns None when the summary has nothing to plot.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from matplotlib import rc_context
from matplotlib.figure import Figure

from proactive_bench.reporting.burden import BurdenRow
from proactive_bench.reporting.summary import Summary

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
    points = [(_label(r), r["proc"]["mean"], r["comp"]["mean"]) for r in summary.main if r["ablation"] == "none"]
    points = [(m, 100 * p, 100 * c) for m, p, c in points if p is not None and c is not None]
    if not points:
        return None
    fig, ax = _figure()
    ax.plot([0, 100], [0, 100], linestyle="--", color="#999", linewidth=1, label="Comp = Proc")
    _scatter(ax, points)
    ax.set(xlim=(-3, 103), ylim=(-3, 103), xlabel="Proc (%)", ylabel="Comp (%)", title="Proc vs Comp per model and persona")
    ax.legend(loc="lower right", frameon=False)
    return _svg(fig)


@_styled
def turns_vs_proc(summary: Summary) -> str | None:
    main = {(r["model"], r["persona"]): r for r in summary.main if r["ablation"] == "none" and r["proc"]["mean"] is not None}
    points = [
        (_label(main[key]), r["mean"], 100 * main[key]["proc"]["mean"])
        for r in summary.turns
        if r["ablation"] == "none" and (key := (r["model"], r["persona"])) in main
    ]
    if not points:
        return None
    fig, ax = _figure()
    _scatter(ax, points)
    ax.set(
        xlim=(0, max(p[1] for p in points) * 1.2 + 0.5),
        ylim=(-3, 103),
        xlabel="average follow-up user turns per session",
        ylabel="Proc (%)",
    )
    ax.set_title("Follow-up turns vs Proc")
    return _svg(fig)


@_styled
def ablation_bars(summary: Summary) -> str | None:
    rows = [
        r for r in summary.ablation if any(r[f"{m}_{w}"] is not None for m in ("proc", "comp") for w in ("with_history", "without_history"))
    ]
    if not rows:
        return None
    fig = Figure(figsize=(7.5, 3.2))
    axes = fig.subplots(1, 2, sharey=True)
    labels = [_text(f"{r['model']}\n{r['persona']}") for r in rows]
    width = 0.38
    for ax, metric, name in zip(axes, ("proc", "comp"), ("Proc", "Comp"), strict=True):
        for offset, (key, legend, color) in zip(
            (-width / 2, width / 2),
            (("with_history", "with history", "#3b6ea5"), ("without_history", "w/o dependencies", "#d08c3a")),
            strict=True,
        ):
            values = [100 * (r[f"{metric}_{key}"] or 0.0) for r in rows]
            ax.bar([i + offset for i in range(len(rows))], values, width, label=legend, color=color)
        ax.set_xticks(range(len(rows)), labels, fontsize=7)
        ax.set(ylim=(0, 105), title=f"{name} (%)")
    axes[0].legend(frameon=False, fontsize=7)
    fig.suptitle("Final sessions of dependency groups")
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


def _scatter(ax: Any, points: list[tuple[str, float, float]]) -> None:
    for model, x, y in points:
        ax.scatter([x], [y], s=36, zorder=3)
        ax.annotate(_text(model), (x, y), textcoords="offset points", xytext=(5, 4), fontsize=7)


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
        _scatter(ax, points)
        ax.set(xlim=(0, max(x for _, x, _ in points) * 1.2 + 0.5), ylim=(-3, 103), xlabel="questions asked per session", ylabel="Proc (%)")
        ax.set_title("Proc vs user burden")
        return _svg(fig)
