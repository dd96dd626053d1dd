"""Document completion (easy): fill the two open terms of a supplier contract and send it back to legal.

Data: a contract draft (.docx) with the placeholders ``[LIABILITY CAP]`` and
``[NOTICE PERIOD]``. Legal counsel knows the agreed liability cap (k1); the
procurement manager knows the negotiated notice period (k2). The completed
contract must hold exactly the agreed terms (no other candidate figure, no
placeholder left) and counsel is e-mailed before the deadline.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import docx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, email_step, file_holds

CAP_MARK, NOTICE_MARK = "[LIABILITY CAP]", "[NOTICE PERIOD]"
CAPS = ("150,000 euros", "250,000 euros", "400,000 euros", "600,000 euros", "750,000 euros")
NOTICES = ("45 calendar days", "60 calendar days", "75 calendar days", "90 calendar days", "120 calendar days")
GUESSED_CAP, GUESSED_NOTICE = "1,000,000 euros", "30 calendar days"
"""What a contract template usually says (neither is ever the agreed term)."""


class ContractFill(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        counsel, buyer = ctx.names.person(), ctx.names.person()
        supplier = ctx.names.word("vendor")
        cap, notice = rng.choice(CAPS), rng.choice(NOTICES)
        contract = ctx.names.path(ctx.folder, f"{supplier.lower()}_supply_agreement", "docx")
        due = rng.choice((90, 120, 150, 180))
        subject = f"{supplier} agreement completed"
        npcs = (
            colleague(counsel, "Legal Counsel", "Legal", "Exact and formal; drafts the company's supplier contracts."),
            colleague(buyer, "Procurement Manager", "Procurement", f"Easy-going negotiator; led the talks with {supplier}."),
        )
        clues = (
            Clue(
                id="k1",
                holder=counsel.handle,
                value=cap,
                text=f"We agreed a liability cap of {cap} with {supplier}.",
                ask=(r"\b(liabilit\w*|cap|indemn\w*)\b",),
                subject=named(supplier),
                question=f"What liability cap did we agree with {supplier}?",
            ),
            Clue(
                id="k2",
                holder=buyer.handle,
                value=notice,
                text=f"{supplier} accepted a termination notice of {notice}.",
                ask=(r"\b(notice|terminat\w*|cancel\w*)\b",),
                subject=named(supplier),
                question=f"What termination notice period did {supplier} accept?",
            ),
        )
        paragraphs = [
            f"This agreement is made between {ctx.company.name} (the Customer) and {supplier} (the Supplier).",
            "1. Supply. The Supplier delivers the goods listed in the purchase orders the Customer places under this agreement.",
            f"2. Liability. The total liability of either party under this agreement is limited to {CAP_MARK}.",
            f"3. Termination. Either party may end this agreement by written notice of {NOTICE_MARK}.",
            "4. Law. This agreement is governed by the law of the Customer's registered seat.",
        ]
        edited = called("docx_edit", path=contract)

        def fill(with_cap: str, with_notice: str) -> dict[str, object]:
            return {"path": contract, "replace": [{"old": CAP_MARK, "new": with_cap}, {"old": NOTICE_MARK, "new": with_notice}]}

        def only(right: str, candidates: tuple[str, ...]) -> dict[str, object]:
            return file_holds(contract, [right], [c for c in candidates if c != right])

        return TaskDraft(
            title="Complete a contract",
            objective=(
                f"The supply agreement with {supplier} ({contract}) still has two open terms, {CAP_MARK} and {NOTICE_MARK}. "
                f"Replace them with the terms that were agreed, in the document itself, and e-mail {counsel.name} "
                f"({counsel.email}) with the subject '{subject}' when it is done."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the agreed liability cap is in the contract, and no other",
                    needs=("k1",),
                    check={"all": [only(cap, (*CAPS, GUESSED_CAP)), checker("file_contains", path=contract, text=CAP_MARK, absent=True)]},
                    attempt=edited,
                    feedback="Ask Legal Counsel for an agreed contract term rather than using a standard figure.",
                ),
                Checkpoint(
                    id="c2",
                    text="the agreed notice period is in the contract, and no other",
                    needs=("k2",),
                    check={
                        "all": [
                            only(notice, (*NOTICES, GUESSED_NOTICE)),
                            checker("file_contains", path=contract, text=NOTICE_MARK, absent=True),
                        ]
                    },
                    attempt=edited,
                    feedback="The Procurement Manager who negotiated the deal knows its notice period; ask them.",
                ),
                Checkpoint(
                    id="c3",
                    text="legal counsel was told before the deadline",
                    check=checker(
                        "email_sent", to=counsel.email, subject_contains=subject, before=minute_iso(ctx, ctx.arrival_minute + due)
                    ),
                    attempt=checker("email_sent", to=counsel.email),
                    feedback="Tell Legal Counsel by e-mail when the contract is complete, before the deadline.",
                ),
            ),
            files={contract: docx_bytes(f"Supply agreement: {supplier}", paragraphs)},
            timing=Timing(due_minutes=due, work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(tool="docx_edit", args=fill(cap, notice), needs=("k1", "k2"), guess=fill(GUESSED_CAP, GUESSED_NOTICE)),
                email_step(counsel.email, subject, f"The {supplier} agreement is complete: {contract}."),
            ),
            hints=Hints(
                data=f"Legal Counsel agreed the liability cap; the Procurement Manager negotiated the notice period with {supplier}.",
                method="",
            ),
        )


register_template(ContractFill("contract_fill", "easy", ("chat", "documents", "email"), "inquiry"))
