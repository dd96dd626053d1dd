"""The shipped odyssey suite (pbench_data/odyssey): the reference solves every task, the intent alone solves none,
and an agent that acts on a superseded detail of the history (the value the user later corrected) fails.

The stale agents are the reference solutions with the corrected value swapped back for the superseded one,
so each task's criteria are shown to read the corrected value, not merely the presence of some value.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA

SHIPPED = DATA / "odyssey"

STALE: dict[str, list[tuple[str, str]]] = {
    # task id: (corrected value in the reference -> the superseded value from earlier in the history)
    "od1_01_choir_tour_letter": [("£285", "£310")],
    "od1_02_translation_agreement": [("EUR 0.12 per source word", "EUR 0.11 per source word")],
    "od1_03_harvest_yields": [('"D2": 47', '"D2": 44')],
    "od1_04_club_dues": [('"C3": 25', '"C3": 20'), ('"C4": 50', '"C4": 45'), ('"C6": 5', '"C6": 0')],
    "od1_05_abstract_pdf": [("kelp_abstract_v3_TW.docx", "kelp_abstract_v3.docx")],
    "od1_06_freight_quote": [
        ("16 euro pallets", "14 euro pallets"),
        ("16 pallets x 112.00 = 1792.00", "14 pallets x 112.00 = 1568.00"),
        ("143.36", "125.44"),
        ("1970.36", "1728.44"),
    ],
    "od1_07_wedding_booking_email": [("chloe.vdm@fynbosmail.example", "c.vandermerwe@uctalumni.example")],
    "od1_08_school_trip_coach": [("51 in total (42 students and 9 adults)", "48 in total (42 students and 6 adults)")],
    "od1_09_physio_sessions": [("2026-03-19T18:45", "2026-03-19T18:00"), ("2026-03-19T19:30", "2026-03-19T18:45")],
    "od1_10_tech_rehearsal_move": [("2026-10-11T12:00", "2026-10-11T11:00"), ("2026-10-11T18:00", "2026-10-11T17:00")],
    "od2_01_bakery_flour_order": [('"C2": 12', '"C2": 10')],
    "od2_02_witness_attendance_note": [("LIT-2026-0381_AttNote", "LIT-2026-0318_AttNote")],
    "od2_03_interview_scheduling": [
        ("2026-09-17T14:00", "2026-09-17T10:30"),
        ("2026-09-17T15:00", "2026-09-17T11:30"),
        ("14:00-15:00", "10:30-11:30"),
    ],
    "od2_04_donor_report": [('"C4": 5400', '"C4": 6100'), ("61,510", "62,210")],
    "od2_05_conference_sessions": [
        ("Poster Session B", "Poster Session A"),
        ("2026-11-06T14:00", "2026-11-05T16:00"),
        ("2026-11-06T15:30", "2026-11-05T17:30"),
    ],
}


def _odyssey_only(tmp_path: Path) -> Path:
    """A dataset root holding the shipped odyssey tasks and nothing else (the persona episodes are not run)."""
    root = tmp_path / "data"
    for folder in ("personas", "episodes", "graders"):
        (root / folder).mkdir(parents=True)
    shutil.copytree(SHIPPED, root / "odyssey")
    return root


@pytest.mark.heavy
def test_shipped_tasks_meet_the_oracle_bar(tmp_path: Path) -> None:
    """validate --oracle --strict: no problem or warning, reference passes each task, surface fails a criterion of each."""
    result = run_cli("validate", "--data", str(_odyssey_only(tmp_path)), "--strict", "--oracle")
    assert result.exit_code == 0, result.output


def _stale_copy(root: Path, task_id: str, swaps: list[tuple[str, str]]) -> None:
    path = root / "odyssey" / task_id / "task.yaml"
    data = yaml.safe_load(path.read_text())
    reference = json.dumps(data["reference"], ensure_ascii=False)
    for corrected, superseded in swaps:
        assert corrected in reference, f"{task_id}: {corrected!r} is not in the reference"
        reference = reference.replace(corrected, superseded)
    data["reference"] = json.loads(reference)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))


def test_an_agent_using_a_superseded_detail_fails_every_task(tmp_path: Path) -> None:
    root = _odyssey_only(tmp_path)
    for task_id, swaps in STALE.items():
        _stale_copy(root, task_id, swaps)
    result = run_cli(
        "episode",
        "--suite",
        "odyssey",
        "--model",
        "scripted:reference",
        "--task",
        ",".join(STALE),
        "--data",
        str(root),
        "--db",
        str(tmp_path / "r.db"),
        "--json",
    )
    assert result.exit_code == 0, result.output
    tasks = json.loads(result.stdout)["pass_rate"]["tasks"]
    assert {row["task"] for row in tasks} == set(STALE)
    assert all(row["errored"] == 0 and row["grader_errors"] == 0 for row in tasks)
    assert [row["task"] for row in tasks if row["passed"] != 0] == []
