"""Writing a launch notice (easy): a short document with the launch date and the reference line the brand guide requires.

Clues: the product manager holds the launch date (k1); the brand guide, a
file in the task's folder, holds the reference line every public notice must
carry (k2, a file clue the agent has to open). Deliverables: the notice (.docx)
with exactly one of the candidate launch dates, the right one, and the
reference line; the product manager told over chat before the deadline.
"""

from __future__ import annotations

from datetime import date, timedelta

from proactive_bench.suites.trainee.files import docx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds

LAUNCH_WEEKS = range(2, 10)
"""A launch is on a Tuesday or Thursday this many weeks ahead (the candidate dates the checks know)."""


def candidate_dates(today: date) -> list[date]:
    monday = today - timedelta(days=today.weekday())
    return [monday + timedelta(weeks=w, days=d) for w in LAUNCH_WEEKS for d in (1, 3)]


def spoken(day: date) -> str:
    """A date as the notice writes it, two-digit day: 07 April 2026 (never a part of another date)."""
    return f"{day:%d %B %Y}"


class LaunchNotice(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager, writer = ctx.names.person(), ctx.names.person()
        product = f"{ctx.names.word('project')} {rng.choice(('Cloud', 'Studio', 'Mobile', 'Connect', 'Insights'))}"
        dates = candidate_dates(ctx.company.day)
        launch = rng.choice(dates[1:])
        guessed = dates[0]
        ref = f"{product.split()[0][:3].upper()}-PN-{rng.randint(1000, 9999)}"
        notice = ctx.names.path(ctx.folder, "launch_notice", "docx")
        guide = ctx.names.path(ctx.folder, "brand_guide", "txt")
        due = rng.choice((90, 120, 150))
        ref_line = f"Reference: {ref}"
        npcs = (
            colleague(manager, "Product Manager", "Product", f"Enthusiastic; owns the {product} roadmap and its release plan."),
            colleague(writer, "Communications Manager", "Communications", "Polished; reviews what the company says in public."),
        )
        clues = (
            Clue(
                id="k1",
                holder=manager.handle,
                value=f"on {spoken(launch)}",
                text=f"{product} goes live on {spoken(launch)}; you can announce that date.",
                ask=(r"\b(launch\w*|release\w*|date|when|live)\b",),
                subject=named(product.split()[0]),
                question=f"On what date does {product} launch?",
            ),
            Clue(id="k2", holder=f"file:{guide}", value=ref_line, text=ref_line),
        )
        guide_text = (
            f"Brand guide: public notices\n- Write the product's full name, {product}, in every notice.\n"
            "- Keep it short: a heading and a paragraph or two.\n"
            f"- Every public notice about {product} ends with this line:\n{ref_line}\n"
        )

        def blocks(day: date, ending: list[str]) -> dict[str, object]:
            body = [
                {"type": "heading", "text": f"{product} is coming"},
                {"type": "paragraph", "text": f"{ctx.company.name} launches {product} on {spoken(day)}."},
                *({"type": "paragraph", "text": line} for line in ending),
            ]
            return {"path": notice, "blocks": body}

        others = [d for d in dates if d != launch]
        wrote = called("docx_create", path=notice)
        return TaskDraft(
            title="Write a launch notice",
            objective=(
                f"Write a short public notice announcing the launch of {product} as a Word document at {notice}: the "
                f"product's name and its launch date (written like 09 June 2027), following the company's brand rules "
                f"for public notices. Then tell {manager.name} over chat that the notice is ready, naming its path."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the notice gives the launch date, and no other candidate date",
                    needs=("k1",),
                    check=file_holds(notice, [spoken(launch)], [spoken(d) for d in others]),
                    attempt=wrote,
                    feedback="Ask the Product Manager for the launch date; never announce an assumed one.",
                ),
                Checkpoint(
                    id="c2",
                    text="the notice carries the brand guide's reference line",
                    needs=("k2",),
                    check=checker("file_contains", path=notice, text=ref_line),
                    attempt=wrote,
                    feedback="Look through the task's files for the brand rules before writing anything public.",
                ),
                Checkpoint(
                    id="c3",
                    text="the product manager was told before the deadline",
                    check=checker("chat_sent", to=manager.handle, contains=[notice], before=minute_iso(ctx, ctx.arrival_minute + due)),
                    feedback="Tell the Product Manager where the notice is, before the deadline.",
                ),
            ),
            files={
                guide: guide_text,
                ctx.names.path(ctx.folder, "last_notice", "docx"): docx_bytes(
                    "An earlier notice", [f"{ctx.company.name} opens a new office.", "Every notice has its own reference line."]
                ),
            },
            timing=Timing(due_minutes=due, work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(tool="docx_create", args=blocks(launch, [ref_line]), needs=("k1", "k2"), guess=blocks(guessed, [])),
                Step(tool="chat__send_message", args={"to": manager.handle, "text": f"The launch notice is ready: {notice}"}),
            ),
            hints=Hints(data=f"The Product Manager knows the launch date; {guide} holds the brand rules.", method=""),
        )


register_template(LaunchNotice("launch_notice", "easy", ("chat", "documents", "files"), "inquiry"))
