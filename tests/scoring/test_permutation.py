"""The paired sign-flip permutation test against a brute-force enumeration written out plainly."""

from __future__ import annotations

from itertools import product
from math import sqrt

import pytest

from proactive_bench.scoring import paired_difference, sign_flip_test


def brute_force_p(differences: list[float], weights: list[float]) -> float:
    """Every assignment of signs, one by one: the share whose weighted mean is at least as far from 0 as the observed one."""
    total = sum(weights)
    observed = abs(sum(w * d for w, d in zip(weights, differences, strict=True)) / total)
    hits = 0
    assignments = list(product((1, -1), repeat=len(differences)))
    for signs in assignments:
        flipped = abs(sum(s * w * d for s, w, d in zip(signs, weights, differences, strict=True)) / total)
        hits += flipped >= observed - 1e-12
    return hits / len(assignments)


CASES = [
    ([0.5, 0.25, -0.1, 0.4, 0.3, 0.0, 0.2], [1, 1, 1, 1, 1, 1, 1]),
    ([1.0, -1.0, 0.5, 0.5], [3, 1, 2, 1]),  # a dependency group of 3 weighs 3
    ([0.2, 0.2, 0.2], [1, 1, 1]),  # every task the same way: the smallest p the test can give, 2/8
    ([0.3, -0.3], [1, 1]),  # no difference on the whole: p = 1
]


@pytest.mark.parametrize(("differences", "weights"), CASES)
def test_exact_p_equals_the_enumeration(differences: list[float], weights: list[float]) -> None:
    test = sign_flip_test(differences, weights)
    assert test.method == "exact" and test.differing == sum(d != 0 for d in differences)
    assert test.p_value == pytest.approx(brute_force_p(differences, weights))


def test_tasks_without_a_difference_change_nothing() -> None:
    # a zero difference is the same under either sign: setting it aside leaves the share unchanged
    assert sign_flip_test([0.4, 0.1, 0.0, 0.0]).p_value == pytest.approx(brute_force_p([0.4, 0.1, 0.0, 0.0], [1, 1, 1, 1]))
    assert sign_flip_test([0.0, 0.0]).p_value == 1.0 and sign_flip_test([]).p_value == 1.0
    assert sign_flip_test([0.2, 0.2, 0.2]).p_value == pytest.approx(2 / 8)


def test_monte_carlo_is_seeded_and_close_to_the_exact_value() -> None:
    differences = [0.3, 0.1, -0.2, 0.4, 0.25, 0.05, -0.1, 0.35, 0.15, 0.2, -0.05, 0.3]
    weights = [1, 2, 1, 1, 3, 1, 1, 2, 1, 1, 1, 1]
    exact = brute_force_p(differences, weights)
    drawn = sign_flip_test(differences, weights, exact_up_to=5)
    assert drawn.method == "monte carlo" and drawn.permutations == 10_000
    assert drawn == sign_flip_test(differences, weights, exact_up_to=5)  # seeded: the same figures, the same p
    assert abs(drawn.p_value - exact) < 4 * sqrt(exact * (1 - exact) / 10_000) + 1e-4
    assert sign_flip_test([0.5] * 30).p_value == pytest.approx(1 / 10_001)  # never 0: the observed assignment counts


def test_more_than_twenty_differing_tasks_are_drawn_not_enumerated() -> None:
    assert sign_flip_test([0.1] * 20).method == "exact"
    assert sign_flip_test([0.1] * 20 + [0.0] * 30).permutations == 2**20  # zeros set aside: still exact
    assert sign_flip_test([0.1] * 21).method == "monte carlo"


def test_a_paired_difference_carries_the_p_value() -> None:
    a = {"t1": 0.2, "t2": 0.5, "t3": 0.5, "t4": 0.0}
    b = {"t1": 0.6, "t2": 0.4, "t3": 0.5, "t4": 1.0}
    d = paired_difference(a, b, weights={"t1": 1, "t2": 2, "t3": 1, "t4": 1})
    assert d is not None and d.differing == 3 and d.p_method == "exact" and d.permutations == 8
    assert d.p_value == pytest.approx(brute_force_p([0.4, -0.1, 0.0, 1.0], [1, 2, 1, 1]))
