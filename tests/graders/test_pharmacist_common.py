"""The pharmacist graders' CSV reader on files an agent may leave malformed."""

from __future__ import annotations

from pathlib import Path

from proactive_bench.dataset import GraderResolver

csv_rows = GraderResolver(Path(__file__).resolve().parents[2] / "pbench_data")("graders.pharmacist.common:csv_rows")
"""Loaded the way a run loads graders (this folder's package would shadow a plain ``import graders``)."""


def test_a_row_longer_than_its_header_is_read_not_a_crash() -> None:
    rows = csv_rows("bed,drug\n5W-12,vancomycin,extra,cells\n5W-14\n")
    assert rows[0] == {"bed": "5W-12", "drug": "vancomycin", "": "extra,cells"}
    assert rows[1] == {"bed": "5W-14", "drug": ""}
