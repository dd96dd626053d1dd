"""The paired sign-flip permutation test: is B − A over paired tasks more than chance? (docs/metrics.md, "Comparing two agents").

Under the null hypothesis that A and B are exchangeable on every task, each
task's difference is as likely to have the other sign. The statistic is the
weighted mean difference Σ w·d / Σ w; the two-sided p-value is the share of
sign assignments whose statistic is at least as far from 0 as the observed one.
Tasks with d = 0 change nothing under a flip and are set aside, so the
assignments are enumerated exactly while at most :data:`EXACT_UP_TO` tasks
differ, and drawn at random (:data:`PERMUTATIONS`, seeded) beyond that.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

EXACT_UP_TO = 20
"""Most tasks with a non-zero difference for which all 2ⁿ sign assignments are enumerated."""
PERMUTATIONS = 10_000
"""Random sign assignments drawn beyond :data:`EXACT_UP_TO`."""
SEED = 0
"""The generator's seed for the random assignments: the same figures give the same p-value."""
CHUNK = 1000
"""Random assignments drawn at a time."""
TOLERANCE = 1e-12
"""An assignment's |statistic| counts as reaching the observed one within this (floating-point sums in another order)."""


@dataclass(frozen=True)
class SignFlipTest:
    """A two-sided paired permutation p-value and how it was reached."""

    p_value: float
    method: str
    """``exact`` (every assignment enumerated) or ``monte carlo`` (``permutations`` random ones, seeded)."""
    permutations: int
    """Assignments counted: 2ⁿ when exact, else the random draws."""
    differing: int
    """Tasks with a non-zero difference (the others are set aside: a flip does not change them)."""


def sign_flip_test(
    differences: Collection[float],
    weights: Collection[float] | None = None,
    exact_up_to: int = EXACT_UP_TO,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
) -> SignFlipTest:
    """The p-value of Σ w·d / Σ w under random sign flips of the task differences ``d``.

    Exact: p = #{s : |Σ w·s·d| ≥ |Σ w·d|} / 2ⁿ over every s ∈ {−1, 1}ⁿ. Monte
    Carlo: p = (1 + #{draws reaching it}) / (1 + draws), which never reports 0.
    With no differing task p = 1 (nothing to tell apart).
    """
    import numpy as np  # loaded when a comparison is made, as the bootstrap

    w = np.ones(len(differences)) if weights is None else np.asarray(weights, dtype=float)
    terms = w * np.asarray(differences, dtype=float)  # Σ w is the same under every flip: compare the sums
    terms = terms[terms != 0]
    n = len(terms)
    if n == 0:
        return SignFlipTest(1.0, "exact", 1, 0)
    observed = abs(terms.sum()) - TOLERANCE
    if n <= exact_up_to:
        sums = np.zeros(1)
        for term in terms:  # every assignment's sum, doubling per task: 2ⁿ values
            sums = np.concatenate((sums + term, sums - term))
        return SignFlipTest(float((np.abs(sums) >= observed).mean()), "exact", 2**n, n)
    rng, reached = np.random.default_rng(seed), 0
    for start in range(0, permutations, CHUNK):  # in blocks: memory stays small however many tasks differ
        signs = rng.choice((-1.0, 1.0), size=(min(CHUNK, permutations - start), n))
        reached += int((np.abs(signs @ terms) >= observed).sum())
    return SignFlipTest((1 + reached) / (1 + permutations), "monte carlo", permutations, n)
