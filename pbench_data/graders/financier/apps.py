"""Graders for the financier's app sessions: Splitwise expenses."""

from __future__ import annotations

from typing import Any

TEAM = {"ines": "ines.valtonen@harbourline.example", "marcus": "marcus.oyelaran@harbourline.example",
        "dev": "dev.khatri@harbourline.example", "sofia": "sofia.brandt@harbourline.example"}


def _rows(evidence: Any, table: str) -> list[dict[str, Any]]:
    return list(evidence.apps.rows(table)) if getattr(evidence, "apps", None) is not None else []


def expense_debts(evidence: Any, paid: float) -> list[dict[str, float]]:
    """For every expense of ``paid`` dollars, its debts as {debtor email: amount}."""
    emails = {u["id"]: u["email"] for u in _rows(evidence, "splitwise_user")}
    debts = _rows(evidence, "splitwise_debt")
    return [
        {emails.get(d["debtor_id"], ""): float(d["amount"]) for d in debts if d["expense_id"] == e["id"]}
        for e in _rows(evidence, "splitwise_expense")
        if abs(float(e["paid_amount"]) - paid) < 0.005
    ]


def s05_dinner_split(evidence: Any) -> bool:
    """The 374.90 dinner is owed by Ines, Dev and Sofia only, in shares of 124.96-124.97 that add up to the total."""
    diners = {TEAM["ines"], TEAM["dev"], TEAM["sofia"]}
    for split in expense_debts(evidence, 374.90):
        shares = split.values()
        if set(split) == diners and abs(sum(shares) - 374.90) < 0.005 and all(124.955 <= s <= 124.975 for s in shares):
            return True
    return False
