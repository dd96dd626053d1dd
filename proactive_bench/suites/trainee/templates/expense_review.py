"""Expense review (hard): work out what each expense claim reimburses and send payroll the total, before the deadline.

Data: ``claims.xlsx`` (Claim, Employee id, Category, Amount, Receipt) and a
policy note that covers hotels only. The HR officer holds the rest, over a
short conversation: the meal cap per claim (k1), and — only once the meal cap
is settled, as a follow-up — how taxi rides are treated (k2: without a receipt
a taxi claim pays nothing, or half). Reimbursing every claim in full (the
guess) overpays at least one meal and one taxi.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, register_template
from proactive_bench.suites.trainee.templates.parts import Row, TemplateHeading, called, email_step, none_but

MEAL_CAPS = (35, 40, 45, 55, 60)
TAXI_RULES = {"nothing": 0.0, "half the amount": 0.5}
"""What a taxi claim without a receipt pays (a share of its amount); with a receipt it pays in full."""
CATEGORIES = ("Meals", "Taxi", "Hotel")


def reimbursed(category: str, amount: float, receipt: str, meal_cap: float, taxi_share: float) -> float:
    """What one claim pays under the policy."""
    if category == "Meals":
        return round(min(amount, meal_cap), 2)
    if category == "Taxi" and receipt == "no":
        return round(amount * taxi_share, 2)
    return round(amount, 2)


def policy_total(claims: list[Row], meal_cap: float, taxi_share: float) -> float:
    """The total a policy pays out for the claims."""
    return round(sum(reimbursed(str(c[2]), float(c[3]), str(c[4]), meal_cap, taxi_share) for c in claims), 2)


class ExpenseReview(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        officer, payroll = ctx.names.person(), ctx.names.person()
        staff = [f"E{rng.randint(1000, 9999)}" for _ in range(3)]
        cap = rng.choice(MEAL_CAPS)
        rule = rng.choice(sorted(TAXI_RULES))
        claims: list[Row] = []
        for n in range(rng.randint(8, 12)):
            category = CATEGORIES[n] if n < 3 else rng.choice(CATEGORIES)
            amount = {"Meals": rng.uniform(12, 95), "Taxi": rng.uniform(9, 70), "Hotel": rng.uniform(80, 240)}[category]
            claims.append([f"EC-{rng.randint(100, 999)}{n}", rng.choice(staff), category, round(amount, 2), rng.choice(("yes", "no"))])
        claims[0][3] = float(cap + rng.randint(8, 30))  # a meal over the cap
        claims[1][4] = "no"  # a taxi without a receipt
        paid = [reimbursed(str(c[2]), float(c[3]), str(c[4]), cap, TAXI_RULES[rule]) for c in claims]
        total = policy_total(claims, cap, TAXI_RULES[rule])
        others = {policy_total(claims, c, share) for c in MEAL_CAPS for share in TAXI_RULES.values()} - {total}
        claimed = round(sum(float(c[3]) for c in claims), 2)
        sheet = ctx.names.path(ctx.folder, "claims", "xlsx")
        note = ctx.names.path(ctx.folder, "expense_policy", "txt")
        due = rng.choice((150, 180, 210))
        last = len(claims) + 1
        subject = f"Expense review {ctx.company.day.isoformat()}"
        wrote = called("xlsx_write", path=sheet)

        def column(values: list[float]) -> dict[str, object]:
            return {"path": sheet, "cells": {"F1": "Reimbursed", **{f"F{row}": v for row, v in enumerate(values, start=2)}}}

        npcs = (
            colleague(officer, "HR Officer", "People", "Patient; answers questions about staff policies one at a time."),
            colleague(payroll, "Payroll Specialist", "Finance", "Meticulous; pays out what the reviewers approve."),
        )
        clues = (
            Clue(
                id="k1",
                holder=officer.handle,
                value=f"capped at {cap} per claim",
                text=f"Meal claims are capped at {cap} per claim; anything above is not reimbursed.",
                ask=(r"\b(limit\w*|caps?|capped|maximum|max|polic\w*|rules?|reimburs\w*|allow\w*|how much)\b",),
                subject=(r"\b(meals?|food|lunch\w*|dinners?)\b",),
                question="What is the current limit on meal expense claims?",
            ),
            Clue(
                id="k2",
                holder=officer.handle,
                value=f"receipt pays {rule}",
                text=f"A taxi claim with a receipt is paid in full; one without a receipt pays {rule}.",
                ask=(r"\b(reimburs\w*|pa(y|id|ys)|receipts?|polic\w*|rules?|how much)\b",),
                subject=(r"\b(taxis?|cabs?|rides?)\b",),
                question="How do we reimburse taxi expense claims?",
                after="k1",
            ),
        )
        return TaskDraft(
            title="Review expense claims",
            objective=(
                f"Review the expense claims in {sheet}: in column F (header 'Reimbursed' in F1) write what each claim is "
                f"reimbursed under the current expense policy ({note} has what is written down so far), then e-mail "
                f"{payroll.name} ({payroll.email}) the total to pay out (a plain number with two decimals, like 1234.50), "
                f"subject '{subject}'."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every claim's reimbursement follows the policy",
                    needs=("k1", "k2"),
                    check=checker("xlsx_range", path=sheet, range=f"F2:F{last}", values=paid, tolerance=0.01),
                    attempt=wrote,
                    feedback="Ask HR for the parts of the expense policy that are not written down, one question at a time.",
                ),
                Checkpoint(
                    id="c2",
                    text="payroll got the right total, and no other candidate, before the deadline",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker(
                            "email_sent",
                            to=payroll.email,
                            subject_contains=subject,
                            body_contains=[f"{total:.2f}"],
                            before=minute_iso(ctx, ctx.arrival_minute + due),
                        ),
                        (checker("email_sent", to=payroll.email, body_contains=[f"{t:.2f}"]) for t in sorted(others | {claimed})),
                    ),
                    attempt=checker("email_sent", to=payroll.email),
                    feedback="Send payroll the total of the approved amounts, not of the claims, before the deadline.",
                ),
            ),
            files={
                sheet: xlsx_bytes({"Claims": [["Claim", "Employee id", "Category", "Amount", "Receipt"], *claims]}),
                note: "Expense policy (draft)\nHotel nights are reimbursed in full.\nMeals and taxis: rules being updated, ask HR.\n",
            },
            timing=Timing(due_minutes=due, work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(tool="xlsx_write", args=column(paid), needs=("k1", "k2"), guess=column([round(float(c[3]), 2) for c in claims])),
                email_step(
                    payroll.email,
                    subject,
                    f"Total to pay out: {total:.2f}",
                    needs=("k1", "k2"),
                    guessed_body=f"Total to pay out: {claimed:.2f}",
                ),
            ),
            hints=Hints(
                data=f"Claims are in {sheet}; the HR Officer knows the meal limit and, asked next, the taxi rule.",
                method="Meals pay at most the cap; a taxi without a receipt pays the HR share; hotels pay in full; sum column F.",
            ),
        )


register_template(ExpenseReview("expense_review", "hard", ("chat", "spreadsheets", "files", "email"), "analysis"))
