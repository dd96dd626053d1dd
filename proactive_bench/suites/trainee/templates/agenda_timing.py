"""Timing a workshop agenda (easy; time management and scheduling): when each session starts, from the start time the organiser
set.

One clue: when the workshop starts is the organiser's (k1). The agenda sheet
lists the sessions in order with their lengths and the breaks between them.
The timed agenda must give every session's start, and the closing time must
reach the venue; a guessed 09:00 start shifts every time.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

SESSIONS = ("Welcome", "Market update", "Customer panel", "Roadmap", "Breakout groups", "Breakout reports", "Open questions", "Close")
STARTS = (time(8, 30), time(9, 15), time(9, 45), time(10, 0), time(13, 30))
GUESSED_START = time(9, 0)


def timed(start: time, rows: list[tuple[str, int, int]]) -> tuple[list[tuple[str, str]], str]:
    """Each session's start (HH:MM) and the closing time, from the start and (session, minutes, break after) rows."""
    now = datetime.combine(datetime.min.date(), start)
    out = []
    for name, minutes, pause in rows:
        out.append((name, now.strftime("%H:%M")))
        now += timedelta(minutes=minutes + pause)
    return out, (now - timedelta(minutes=rows[-1][2])).strftime("%H:%M")


class AgendaTiming(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        organiser = ctx.names.person()
        venue = ctx.names.word("venue")
        workshop = ctx.names.word("project")
        names = [SESSIONS[0], *rng.sample(SESSIONS[1:-1], 4), SESSIONS[-1]]
        rows = [(n, rng.choice((15, 20, 30, 45, 60)), rng.choice((0, 0, 10, 15))) for n in names]
        rows[-1] = (rows[-1][0], rows[-1][1], 0)
        start = rng.choice(STARTS)
        agenda, closing = timed(start, rows)
        guessed, guessed_closing = timed(GUESSED_START, rows)
        sheet = ctx.names.path(ctx.folder, f"{workshop.lower()}_agenda", "xlsx")
        out = ctx.names.path(ctx.folder, f"{workshop.lower()}_timed_agenda", "md")
        venue_mail = f"events@{venue.lower().replace(' ', '')}.example"
        subject = f"{workshop} workshop: closing time"
        clue = Clue(
            id="k1",
            holder=organiser.handle,
            value=f"starts at {start.strftime('%H:%M')}",
            text=f"The {workshop} workshop starts at {start.strftime('%H:%M')}.",
            ask=(r"\b(when|what time|start\w*|begin\w*)\b",),
            subject=named(workshop),
            question=f"What time does the {workshop} workshop start?",
        )
        table = "".join(f"- {t} {n}\n" for n, t in agenda)
        right = [f"{t} {n}" for n, t in agenda]
        others = [timed(s, rows) for s in STARTS if s != start]  # the agendas of every other start: listing them all is no answer
        shifted = [f"{t} {n}" for lines, _ in others for n, t in lines]
        other_closings = sorted({c for _, c in others} - {closing})
        return TaskDraft(
            title="Time an agenda",
            objective=(
                f"Turn the {workshop} workshop's agenda ({sheet}: sessions in order, their length and the break after each) into a "
                f"timed agenda in {out}: one line per session, its start time (HH:MM) then its name. Then e-mail the venue, {venue} "
                f"({venue_mail}), the time the last session ends, with the subject '{subject}'."
            ),
            npcs=(colleague(organiser, "Events Manager", "Marketing", f"Organises the {workshop} workshop."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every session has its start time, and no session another",
                    needs=("k1",),
                    check=file_holds(out, right, [line for line in shifted if line not in right]),
                    attempt=called("write_file", path=out),
                    feedback="Ask the organiser when a workshop starts before timing its agenda.",
                ),
                Checkpoint(
                    id="c2",
                    text="the venue got the closing time",
                    needs=("k1",),
                    check=none_but(
                        checker("email_sent", to=venue_mail, subject_contains=subject, body_contains=[closing]),
                        (checker("email_sent", to=venue_mail, subject_contains=subject, body_contains=[c]) for c in other_closings),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Tell the venue when the last session ends.",
                ),
            ),
            files={sheet: xlsx_bytes({"Agenda": [["Session", "Minutes", "Break after (minutes)"], *([n, m, p] for n, m, p in rows)]})},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": f"# {workshop} workshop\n\n{table}"},
                    needs=("k1",),
                    guess={"path": out, "content": f"# {workshop} workshop\n\n" + "".join(f"- {t} {n}\n" for n, t in guessed)},
                ),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [venue_mail], "subject": subject, "body": f"The last session ends at {closing}."},
                    needs=("k1",),
                    guess={"email_addresses": [venue_mail], "subject": subject, "body": f"The last session ends at {guessed_closing}."},
                ),
            ),
            hints=Hints(
                data=f"{sheet} has each session's length and the break after it; the organiser knows the start time.",
                method="Start at the start time; each session starts when the previous one and its break end.",
            ),
        )


register_template(AgendaTiming("agenda_timing", "easy", ("chat", "spreadsheets", "files", "email"), "scheduling"))
