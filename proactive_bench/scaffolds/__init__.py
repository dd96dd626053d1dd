"""Built-in agents under test: the ``react`` scaffold, the scripted baselines and the adversarial ones."""

from __future__ import annotations

from typing import Any, Callable

from proactive_bench.scaffolds.adversarial import ADVERSARY_MODES, adversarial_factory
from proactive_bench.scaffolds.scripted import scripted_factory


def _react(options: Any) -> Any:
    from proactive_bench.scaffolds.react import react_scaffold

    return react_scaffold(options)


BUILTIN_SCAFFOLDS: dict[str, Callable[[Any], Any]] = {
    "react": _react,
    **{f"scripted:{mode}": scripted_factory(mode) for mode in ("reference", "passive", "asker", "surface")},
    **{f"scripted:{mode}": adversarial_factory(mode) for mode in ADVERSARY_MODES},
}
