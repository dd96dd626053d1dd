"""The report's figures: scatter labels stay legible when points coincide or crowd; figure 5 per model."""

from __future__ import annotations

import itertools
import re
from typing import Any

from proactive_bench.reporting.html.figures import CHAR_WIDTH, LABEL_SIZE, Box, ablation_bars, place_labels, proc_vs_comp
from proactive_bench.reporting.summary import Summary


def row(model: str, proc: float, comp: float) -> dict[str, Any]:
    return {"model": model, "persona": "mini", "ablation": "none", "proc": {"mean": proc}, "comp": {"mean": comp}, "failures": {}}


def test_coinciding_points_share_one_label_that_names_each_model() -> None:
    points = [("a", 1.0, 1.0), ("b", 1.0, 1.0), ("c", 1.0, 1.0), ("d", 50.0, 50.0)]
    labels = place_labels(points, lambda x, y: (3 * x, 3 * y))
    assert [label.text for label in labels] == ["a\nb\nc", "d"]


def test_crowded_labels_do_not_overlap_each_other_or_a_marker() -> None:
    points = [(f"model-{i}", 10.0 + 3 * i, 50.0) for i in range(8)]  # 9 points apart: separate markers, labels far wider
    labels = place_labels(points, lambda x, y: (3 * x, 3 * y), Box(0, 0, 300, 300))
    assert len(labels) == 8
    for one, other in itertools.combinations(labels, 2):
        assert not one.box.overlaps(other.box), (one.text, other.text)
    markers = [Box(3 * x - 4, 3 * y - 4, 3 * x + 4, 3 * y + 4) for _, x, y in points]
    assert not any(label.box.overlaps(marker) for label in labels for marker in markers)
    assert all(label.box.inside(Box(0, 0, 300, 300)) for label in labels)


def test_the_proc_comp_figure_draws_every_name_once_without_two_labels_at_one_place() -> None:
    models = ["scripted:reference", "scripted:asker", "openai:gpt-4o", "scripted:passive", "openai:gpt-4o-mini"]
    summary = Summary(main=[row(m, 1.0, 1.0) for m in models[:3]] + [row(m, 0.5, 0.5) for m in models[3:]])
    svg = proc_vs_comp(summary)
    assert svg is not None
    texts = re.findall(r'<text [^>]*transform="translate\(([\d.]+) ([\d.]+)\)"[^>]*>([^<]*· mini[^<]*)</text>', svg)
    assert sorted(t for _, _, t in texts) == sorted(f"{m} · mini" for m in models)
    height = 1.25 * LABEL_SIZE
    for (x1, y1, t1), (x2, y2, t2) in itertools.combinations(texts, 2):  # text baselines: apart by a line at least, or side by side
        apart_x = abs(float(x1) - float(x2)) >= CHAR_WIDTH * LABEL_SIZE * min(len(t1), len(t2))
        assert apart_x or abs(float(y1) - float(y2)) >= height * 0.9, (t1, t2)
    assert svg.count('<g id="PathCollection') == 2  # one marker per place


def test_figure_5_draws_each_models_average_with_and_without_history() -> None:
    def average(model: str, proc: tuple[float, float], comp: tuple[float, float]) -> dict[str, Any]:
        arms = {
            f"{m}_{arm}": v
            for m, pair in (("proc", proc), ("comp", comp))
            for arm, v in zip(("with_history", "without_history"), pair, strict=True)
        }
        return {"model": model, "personas": ["a", "b"], "sessions": 12, "failures": {"errored": 0, "truncated": 0}, **arms}

    assert ablation_bars(Summary()) is None
    svg = ablation_bars(
        Summary(ablation_average=[average("gpt-x", (0.785, 0.649), (0.5, 0.475)), average("kimi-y", (0.6, 0.5), (0.4, 0.4))])
    )
    assert svg is not None
    for text in ("gpt-x", "kimi-y", "78.5", "64.9", "47.5", "with history", "w/o dependencies", "12 finals, 2 personas"):
        assert text in svg, text
