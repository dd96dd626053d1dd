"""Where the dataset shipped with pbench lives (the ``pbench_data`` package): the default ``--data`` of every command."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DEFAULT_DATA_ROOT = Path(str(files("pbench_data")))
