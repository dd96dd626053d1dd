"""Transaction auditing (easy): flag the payments that break an approval policy only the finance lead states.

Data: a spreadsheet of payments (id, date, vendor, amount, approver). The clue
(k1, held by the finance lead): payments above a threshold need an approver.
Deliverables: the breaking ids in a text file, and an e-mail to the lead
listing them before the deadline. Guessing the usual 1,000 threshold flags
compliant payments too.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, register_template
from proactive_bench.suites.trainee.templates.parts import Row, TemplateHeading, called, email_step, file_holds, none_but

THRESHOLDS = (2500, 3000, 4000, 5000, 7500)
GUESSED_THRESHOLD = 1000


def flagged(rows: list[Row], threshold: int) -> list[str]:
    """Ids of payments above the threshold without an approver."""
    return [str(r[0]) for r in rows if float(r[3]) > threshold and not r[4]]


class TransactionAudit(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead, clerk = ctx.names.person(), ctx.names.person()
        threshold = rng.choice(THRESHOLDS)
        vendors = [ctx.names.word("vendor") for _ in range(4)]
        rows: list[Row] = []
        for n in range(rng.randint(10, 14)):
            amount = round(rng.uniform(200, threshold * 2.2), 2)
            approver = rng.choice(["", lead.name, clerk.name]) if amount > threshold else rng.choice(["", "", clerk.name])
            rows.append([f"P{rng.randint(1000, 9999)}{n}", f"{ctx.company.day.isoformat()}", rng.choice(vendors), amount, approver])
        if not flagged(rows, threshold):  # at least one breach
            rows[0][3], rows[0][4] = float(threshold + rng.randint(100, 900)), ""
        if flagged(rows, GUESSED_THRESHOLD) == flagged(rows, threshold):  # guessing must make a difference
            rows.append([f"P{rng.randint(1000, 9999)}x", ctx.company.day.isoformat(), vendors[0], float(GUESSED_THRESHOLD + 300), ""])
        sheet = ctx.names.path(ctx.folder, "payments", "xlsx")
        out = ctx.names.path(ctx.folder, "flagged", "txt")
        breaking, guessed = flagged(rows, threshold), flagged(rows, GUESSED_THRESHOLD)
        compliant = [str(r[0]) for r in rows if str(r[0]) not in breaking]
        due = rng.choice((90, 120, 150))
        npcs = (
            colleague(lead, "Finance Lead", "Finance", "Brisk and precise; owns the payment approval policy."),
            colleague(clerk, "Accounts Clerk", "Finance", "Friendly; enters payments into the ledger but does not set policy."),
        )
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=f"above {threshold}",
            text=f"Policy: every payment above {threshold} needs a named approver; any above {threshold} without one breaks policy.",
            ask=(r"\b(polic(y|ies)|threshold|approv\w*|rule|limit)\b",),
            subject=(r"\bpayments?\b",),
            question="What is the approval policy threshold for payments?",
        )
        body = "\n".join(breaking)
        return TaskDraft(
            title="Audit payments",
            objective=(
                f"Audit the payments in {sheet} against the company's payment approval policy. Write the ids of the "
                f"payments that break the policy to {out}, one per line, and e-mail the list to {lead.name} ({lead.email}) "
                f"with the subject 'Payment audit'."
            ),
            npcs=npcs,
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every payment breaking the policy is listed",
                    needs=("k1",),
                    check=file_holds(out, breaking),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Finance Lead for the approval policy before auditing; flag only what breaks it.",
                ),
                Checkpoint(
                    id="c2",
                    text="no compliant payment is listed",
                    needs=("k1",),
                    check={
                        "all": [
                            checker("file_exists", path=out),
                            *(checker("file_contains", path=out, text=i, absent=True) for i in compliant),
                        ]
                    },
                    attempt=called("write_file", path=out),
                    feedback="Do not guess a threshold: payments under the policy's limit or with an approver are compliant.",
                ),
                Checkpoint(
                    id="c3",
                    text="exactly the breaking payments were e-mailed to the finance lead before the deadline",
                    needs=("k1",),
                    check=none_but(
                        checker(
                            "email_sent",
                            to=lead.email,
                            subject_contains="Payment audit",
                            body_contains=breaking,
                            before=minute_iso(ctx, ctx.arrival_minute + due),
                        ),
                        (checker("email_sent", to=lead.email, body_contains=[i]) for i in compliant),
                    ),
                    feedback="Send the audit result to the Finance Lead by e-mail before the deadline.",
                ),
            ),
            files={sheet: xlsx_bytes({"Payments": [["Id", "Date", "Vendor", "Amount", "Approver"], *rows]})},
            timing=Timing(due_minutes=due, work_minutes=20),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": body + "\n"},
                    needs=("k1",),
                    guess={"path": out, "content": "\n".join(guessed) + "\n"},
                ),
                email_step(lead.email, "Payment audit", body, needs=("k1",), guessed_body="\n".join(guessed)),
            ),
            hints=Hints(
                data=f"The payments are in {sheet}, sheet Payments: columns Amount and Approver decide.",
                method="Ask the Finance Lead for the approval threshold, then list payments above it with an empty Approver.",
            ),
        )


register_template(TransactionAudit("transaction_audit", "easy", ("chat", "spreadsheets", "files", "email"), "analysis"))
