"""Bootstrap intervals: over runs for a mean, and over paired tasks for a difference of two agents.

Both resample with replacement from a seeded generator, so the same figures
give the same interval every time (docs/metrics.md, "Over runs"). A paired
difference also carries the sign-flip permutation p-value
(:mod:`~proactive_bench.scoring.permutation`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TypeVar

from proactive_bench.scoring.permutation import sign_flip_test

RESAMPLES = 2000
"""Bootstrap resamples per interval."""
SEED = 0
"""The generator's seed: intervals are reproducible."""
LEVEL = 0.95
Key = TypeVar("Key", bound=Hashable)


def bootstrap_interval(values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float] | None:
    """The 95 % percentile bootstrap interval of the mean of ``values``; None below two values."""
    if len(values) < 2:
        return None
    import numpy as np  # loaded for an interval only: a report of single runs (pbench runs) does without it

    data = np.asarray(values, dtype=float)
    draws = np.random.default_rng(seed).integers(0, len(data), size=(resamples, len(data)))
    means = data[draws].mean(axis=1)
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class PairedDifference:
    """B − A over the items both have, with a paired bootstrap interval and a paired permutation p-value."""

    mean_a: float
    mean_b: float
    difference: float
    interval: tuple[float, float] | None
    """95 % interval of the mean difference; None with fewer than two pairs."""
    share_not_above_zero: float | None
    """Share of resamples whose difference is <= 0 (a one-sided bootstrap p for "B beats A")."""
    pairs: int
    only_a: int
    only_b: int
    p_value: float
    """Two-sided sign-flip permutation p-value of the difference (1.0 when no pair differs)."""
    p_method: str
    """``exact`` (every sign assignment) or ``monte carlo`` (``permutations`` seeded draws)."""
    permutations: int
    """Sign assignments the p-value counts over."""
    differing: int
    """Pairs whose difference is not 0 (only they enter the permutation test)."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def paired_difference(
    a: Mapping[Key, float],
    b: Mapping[Key, float],
    weights: Mapping[Key, float] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> PairedDifference | None:
    """Paired bootstrap of the (weighted) mean of B − A over the keys present in both; None when they share none.

    Keys are resampled with replacement; with ``weights`` each resample's mean is
    Σ w·(b − a) / Σ w, as a run's Proc weighs a dependency group by its size.
    The permutation p-value flips the signs of the same weighted differences.
    """
    keys = [k for k in a if k in b]
    if not keys:
        return None
    import numpy as np  # as in bootstrap_interval: loaded when a comparison is made

    w = np.asarray([1.0 if weights is None else weights[k] for k in keys], dtype=float)
    va, vb = (np.asarray([m[k] for k in keys], dtype=float) for m in (a, b))
    diffs = vb - va
    interval, share = None, None
    if len(keys) >= 2:
        draws = np.random.default_rng(seed).integers(0, len(keys), size=(resamples, len(keys)))
        means = (diffs[draws] * w[draws]).sum(axis=1) / w[draws].sum(axis=1)
        tail = (1 - LEVEL) / 2
        low, high = np.quantile(means, [tail, 1 - tail])
        interval, share = (float(low), float(high)), float((means <= 0).mean())
    test = sign_flip_test(diffs, w)
    return PairedDifference(
        mean_a=float(np.average(va, weights=w)),
        mean_b=float(np.average(vb, weights=w)),
        difference=float(np.average(diffs, weights=w)),
        interval=interval,
        share_not_above_zero=share,
        pairs=len(keys),
        only_a=sum(1 for k in a if k not in b),
        only_b=sum(1 for k in b if k not in a),
        p_value=test.p_value,
        p_method=test.method,
        permutations=test.permutations,
        differing=test.differing,
    )
