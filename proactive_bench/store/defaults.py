"""Where results go when no ``--db`` (or ``db=``) is given; imports no SQLAlchemy, so the CLI's option defaults cost nothing."""

from pathlib import Path

DEFAULT_RESULTS = Path("pbench-runs")
"""The results folder when none is given: the default database, runs' workspaces, the validation cache."""
DEFAULT_DB = str(DEFAULT_RESULTS / "pbench.db")
"""The results database when none is given (``--db``, ``db=``)."""
