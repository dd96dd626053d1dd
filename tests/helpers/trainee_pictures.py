"""The trainee templates whose clue is in a picture, and their tests' grouping by template."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

IMAGE_TEMPLATES = [
    "kiosk_siting",
    "training_room",
    "order_dip",
    "depot_dispatch",
    "cost_share",
    "uptime_review",
    "rack_temperature",
    "receipt_claim",
    "parking_bays",
]


def by_template(templates: Iterable[str]) -> list[Any]:
    """``templates`` as the values of a ``template`` parameter, each image template's test in the ``xdist_group`` of that
    template: the tests that compose an image template over the same seeds run on one worker, which draws each picture
    once (pictures.py keeps what it drew) instead of once per worker."""
    return [pytest.param(t, marks=pytest.mark.xdist_group(f"pictures-{t}")) if t in IMAGE_TEMPLATES else t for t in templates]
