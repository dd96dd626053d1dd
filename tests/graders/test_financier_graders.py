"""The financier's Python graders on a right and a wrong workspace (real files, a real app store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proactive_bench.data_model.evidence import Evidence
from proactive_bench.dataset.loading import GraderResolver
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace

REPO = Path(__file__).resolve().parents[2] / "pbench_data"
APPS = REPO / "episodes" / "financier" / "apps"
INES = "ines.valtonen@harbourline.example"
TEAM = {
    "ines": INES,
    "marcus": "marcus.oyelaran@harbourline.example",
    "dev": "dev.khatri@harbourline.example",
    "sofia": "sofia.brandt@harbourline.example",
}
GRADER = GraderResolver(REPO)
"""Grader functions are loaded the way a run loads them (tests/graders would shadow a plain ``import graders``)."""


def grader(name: str):  # a grader function
    return GRADER(f"graders.financier.{name}")


CURVE_0829 = """tenor,maturity,discount_factor,zero_rate_cc_act365_pct
1M,2025-10-03,0.99641953,4.3641
3M,2025-12-03,0.98948249,4.2409
6M,2026-03-03,0.98008732,4.0561
1Y,2026-09-03,0.96264779,3.8068
2Y,2027-09-03,0.93248027,3.4954
3Y,2028-09-03,0.90272822,3.4080
4Y,2029-09-03,0.87271177,3.4014
5Y,2030-09-03,0.84184419,3.4413
"""
COMPARISON_0829 = """tenor,independent_zero_pct,owner_zero_pct,diff_bp
1M,4.3641,4.3641,0.0
3M,4.2409,4.2409,0.0
6M,4.0561,4.0561,0.0
1Y,3.8068,3.8068,0.0
2Y,3.4954,3.5292,3.4
3Y,3.4080,3.4072,-0.1
4Y,3.4014,3.4008,-0.1
5Y,3.4413,3.4409,-0.0
"""
COMPARISON_0930 = """tenor,independent,owner,diff_bp
1M,4.2921,4.2921,0.0
3M,4.1474,4.1474,0.0
6M,3.9505,3.9505,0.0
1Y,3.6915,3.6915,0.0
2Y,3.4158,3.4158,0.0
3Y,3.3737,3.3829,0.9
4Y,3.3873,3.3870,0.0
5Y,3.4361,3.4360,0.0
"""
FORWARDS = """period,independent_fwd_pct,owner_fwd_pct
1Y-2Y,3.1909,3.2598
2Y-3Y,3.2418,3.1707
"""


def _evidence(root: Path, files: dict[str, str], store: AppStore | None = None) -> Evidence:
    workspace = Workspace(root)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Evidence([], [], workspace, Memory(), GraderResolver(REPO), store)


def test_common_helpers_read_ragged_rows_and_unicode_minus() -> None:
    row_for, column, as_number = grader("common:row_for"), grader("common:column"), grader("common:as_number")
    row = row_for([{"tenor": "2Y", "diff_bp": "−3.4"}], "2y")
    assert row is not None and as_number(column(row, "bp")) == -3.4
    assert row_for([{"tenor": "3Y"}], "2Y") is None and as_number("n/a") is None


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"analysis/mrm027/curve.csv": CURVE_0829}, True),
        # the stale 2025-08-28 2Y quote left in: 2Y zero 3.5292%
        ({"analysis/mrm027/curve.csv": CURVE_0829.replace("2Y,2027-09-03,0.93248027,3.4954", "2Y,2027-09-03,0.93184966,3.5292")}, False),
        # right numbers in the wrong folder
        ({"analysis/curve.csv": CURVE_0829}, False),
    ],
)
def test_s01_curve_values(tmp_path: Path, files: dict[str, str], expected: bool) -> None:
    assert grader("curve:s01_curve_values")(_evidence(tmp_path, files)) is expected


def test_s01_comparison_needs_the_2y_break_and_quiet_other_pillars(tmp_path: Path) -> None:
    assert grader("curve:s01_comparison")(_evidence(tmp_path / "right", {"analysis/mrm027/cmp.csv": COMPARISON_0829}))
    flat = COMPARISON_0829.replace("2Y,3.4954,3.5292,3.4", "2Y,3.4954,3.4954,0.0")
    assert not grader("curve:s01_comparison")(_evidence(tmp_path / "flat", {"analysis/mrm027/cmp.csv": flat}))
    missing = "\n".join(line for line in COMPARISON_0829.splitlines() if not line.startswith("5Y"))
    assert not grader("curve:s01_comparison")(_evidence(tmp_path / "short", {"analysis/mrm027/cmp.csv": missing}))


def test_s13_comparison_finds_the_3y_break_not_the_august_one(tmp_path: Path) -> None:
    assert grader("curve:s13_comparison")(_evidence(tmp_path / "right", {"analysis/mrm027/cmp_0930.csv": COMPARISON_0930}))
    assert not grader("curve:s13_comparison")(_evidence(tmp_path / "august", {"analysis/mrm027/cmp_0829.csv": COMPARISON_0829}))


def test_s13_curve_values_reject_the_august_curve(tmp_path: Path) -> None:
    assert not grader("curve:s13_curve_values")(_evidence(tmp_path, {"analysis/mrm027/curve.csv": CURVE_0829}))


def test_s01_forwards(tmp_path: Path) -> None:
    assert grader("curve:s01_forwards")(_evidence(tmp_path / "right", {"analysis/mrm027/forward_check.csv": FORWARDS}))
    owner_only = "period,owner_fwd_pct\n1Y-2Y,3.2598\n2Y-3Y,3.1707\n"
    assert not grader("curve:s01_forwards")(_evidence(tmp_path / "owner", {"analysis/mrm027/forward_check.csv": owner_only}))


def _team_box(tmp_path: Path) -> tuple[ToolBox, AppStore]:
    store = AppStore()
    seed = tmp_path / "seed"
    seed.mkdir()
    for name in ("00_accounts.yaml", "s05_splitwise.yaml"):
        (seed / name).write_text((APPS / name).read_text())
    store.seed_from(seed)
    box = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), store), resolve_tool_names(["workspace", "splitwise"]))
    assert box.call("splitwise__login", {"username": INES, "password": "Hbl-MV-2025"}).ok
    return box, store


@pytest.mark.parametrize(
    ("debtors", "shares", "expected"),
    [
        (["ines", "dev", "sofia"], [124.96, 124.97, 124.97], True),
        (["ines", "dev", "sofia", "marcus"], [93.73, 93.73, 93.72, 93.72], False),  # Marcus left before dinner
        (["ines", "dev", "sofia"], [124.90, 125.00, 125.00], False),  # uneven shares
    ],
)
def test_s05_dinner_split(tmp_path: Path, debtors: list[str], shares: list[float], expected: bool) -> None:
    box, store = _team_box(tmp_path)
    recorded = box.call(
        "splitwise__record_expense",
        {
            "group_id": 4101,
            "paid_amount": 374.90,
            "payer_email": INES,
            "debtor_emails": [TEAM[d] for d in debtors],
            "debt_amounts": shares,
            "description": "dinner",
        },
    )
    assert recorded.ok
    assert grader("apps:s05_dinner_split")(_evidence(tmp_path / "ws", {}, store)) is expected


def test_s05_dinner_split_without_app_state_is_false(tmp_path: Path) -> None:
    assert grader("apps:s05_dinner_split")(_evidence(tmp_path, {})) is False
