"""The start page's lists: runs and sweeps, newest first, with the filters of ``pbench runs`` read from a query string."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from proactive_bench.data_model import RunStatus, SweepStatus
from proactive_bench.reporting.run_list import RunRow, SweepRow, list_filter, run_rows, sweep_rows
from proactive_bench.store import Store

FIELDS = ("persona", "model", "status", "since")
"""The filters a query string may set (besides ``limit``), as ``pbench runs`` names them."""
DEFAULT_LIMIT = 50
STATUSES = sorted(set(RunStatus) | set(SweepStatus))
"""The statuses the filter offers: a run's or a sweep's (one a run cannot have lists no runs, and the other way round)."""


class FilterError(ValueError):
    """A filter the lists cannot apply; the message is one line naming the field."""


@dataclass
class Listing:
    """The filters as given, and the runs and sweeps they keep."""

    chosen: dict[str, str]
    limit: int
    runs: list[RunRow] = field(default_factory=list)
    sweeps: list[SweepRow] = field(default_factory=list)

    @property
    def filtered(self) -> bool:
        return any(self.chosen.values())


def listing(store: Store, query: Mapping[str, str]) -> Listing:
    """The runs and sweeps ``query`` keeps (an empty value is no filter); FilterError for a value ``pbench runs`` would refuse."""
    chosen = {name: query.get(name, "").strip() for name in FIELDS}
    try:
        limit = int(query.get("limit") or DEFAULT_LIMIT)
    except ValueError:
        raise FilterError(f"limit: {query.get('limit')!r} is not a whole number") from None
    if limit < 1:
        raise FilterError(f"limit: {limit} is less than 1")
    found = Listing(chosen, limit)
    if chosen["status"] and chosen["status"] not in STATUSES:
        raise FilterError(f"status must be one of {', '.join(STATUSES)}, not {chosen['status']!r}")
    given = {name: value or None for name, value in chosen.items()}
    for statuses, kind in ((RunStatus, "runs"), (SweepStatus, "sweeps")):
        if given["status"] is not None and given["status"] not in statuses.__members__.values():
            continue  # a status only the other kind has
        try:
            wanted = list_filter(given["persona"], given["model"], given["status"], given["since"], limit, statuses)
        except ValueError as exc:
            raise FilterError(str(exc)) from None
        if kind == "runs":
            found.runs = run_rows(store, store.find_runs(wanted))
        else:
            found.sweeps = sweep_rows(store, store.find_sweeps(wanted))
    return found
