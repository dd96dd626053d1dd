"""Cohen's κ of the person's and the simulator's intent labels: a case computed by hand, and the undefined cases."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from proactive_bench.reporting import agreement_tables, cohen_kappa, label_agreement


def test_kappa_of_a_hand_computed_table() -> None:
    # 50 items: 20 both provided, 5 person provided / simulator pending, 10 the reverse, 15 both pending.
    # p_o = 35/50 = 0.7; person provided 25/50, simulator provided 30/50: p_e = (25*30 + 25*20) / 2500 = 0.5;
    # κ = (0.7 - 0.5) / (1 - 0.5) = 0.4
    pairs = [("provided", "provided")] * 20 + [("provided", "pending")] * 5 + [("pending", "provided")] * 10 + [("pending", "pending")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    result = label_agreement(pairs)
    assert (result.items, result.agreed) == (50, 35)
    assert result.confusion["provided"] == {"completed": 0, "inferred": 0, "provided": 20, "pending": 5}
    provided = next(row for row in result.labels if row.label == "provided")
    assert (provided.person, provided.simulator, provided.both) == (25, 30, 20)
    assert provided.kappa == pytest.approx(0.4)  # two labels only: provided-vs-rest is the whole table


def test_perfect_and_chance_agreement() -> None:
    assert cohen_kappa([("completed", "completed"), ("pending", "pending")]) == pytest.approx(1.0)
    # independent raters: each label half the time, crossed evenly: p_o = p_e = 0.5
    assert cohen_kappa([("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]) == pytest.approx(0.0)


def test_kappa_is_undefined_not_guessed() -> None:
    assert cohen_kappa([]) is None
    same = [("pending", "pending")] * 6  # both raters used one label throughout: p_e = 1
    assert cohen_kappa(same) is None
    result = label_agreement(same)
    assert result.kappa is None and result.agreed == 6
    out = io.StringIO()
    for table in agreement_tables(result):
        Console(file=out, width=120).print(table)
    assert "Cohen's κ undefined" in out.getvalue()
    assert "both raters used one label throughout" in out.getvalue()
