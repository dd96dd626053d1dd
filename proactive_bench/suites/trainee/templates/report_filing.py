"""Filing a weekly status report (easy): the filing rules sit in a manual somewhere in the shared files.

The manual (a file clue, k1) gives the report's required path and reference
code; the team lead knows where the manual is (k2). An agent may find the
manual by exploring the files or by asking the lead. Deliverables: the report
at the manual's path, starting with the reference line, and the lead told over
chat where it is. The guess (a report.md in the task folder) misses both.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds

UPDATES = (
    "finished the data migration for the reporting database",
    "closed the two open accessibility bugs",
    "drafted the onboarding checklist for new hires",
    "ran the quarterly vendor review",
    "prepared the slides for the customer workshop",
    "updated the incident runbook",
)


class ReportFiling(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        project = ctx.names.word("project")
        week = rng.randint(5, 48)
        code = f"{project[:3].upper()}-{rng.randint(1000, 9999)}"
        manual = ctx.names.path(f"{ctx.folder}handbook/", "reporting_manual", "md")
        target = f"{ctx.folder}reports/{project.lower()}_week{week:02d}.md"
        updates = rng.sample(UPDATES, 3)
        manual_text = (
            f"# Reporting manual ({project})\n\nWeekly status reports are filed as reports/{project.lower()}_week<NN>.md "
            f"inside the project folder ({ctx.folder}), NN being the two-digit week number.\n\n"
            f"The first line of every report is 'Ref: {code}'. Then one bullet per update.\n"
        )
        report = f"Ref: {code}\n" + "".join(f"- {u}\n" for u in updates)
        npcs = (colleague(lead, "Team Lead", "Project Office", f"Leads {project}; reads every status report on Fridays."),)
        clues = (
            Clue(id="k1", holder=f"file:{manual}", value=code, text=f"The first line of every report is 'Ref: {code}'."),
            Clue(
                id="k2",
                holder=lead.handle,
                value=f"manual is at {manual}",
                text=f"The reporting manual is at {manual}; it has the filing rules.",
                ask=(r"\b(manual|handbook|guidelines?|filing rules?|where (do|should) i (file|put|save))\b",),
                subject=named(project),
                question=f"Where can I find the reporting manual with the filing rules for {project} status reports?",
            ),
        )
        wrong = f"{ctx.folder}report.md"
        return TaskDraft(
            title="File the weekly report",
            objective=(
                f"File this week's (week {week}) status report for {project} with these updates: {'; '.join(updates)}. "
                f"Follow the company's filing rules for reports, then tell {lead.name} over chat where the report is."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the report is filed at the path the manual prescribes",
                    needs=("k1",),
                    check=checker("file_exists", path=target),
                    attempt=called("write_file", path=ctx.folder),
                    feedback="Look for the reporting manual (or ask your team lead where it is) before filing a report.",
                ),
                Checkpoint(
                    id="c2",
                    text="the report starts with the reference line and lists the updates",
                    needs=("k1",),
                    check=file_holds(target, [f"Ref: {code}", *updates]),
                    feedback="Reports start with the reference line the manual gives, then the updates.",
                ),
                Checkpoint(
                    id="c3",
                    text="the team lead was told where the report is",
                    needs=("k1",),
                    check=checker("chat_sent", to=lead.handle, contains=[target.rsplit("/", 1)[-1]]),
                    attempt=checker("chat_sent", to=lead.handle, contains=[".md"]),  # naming a report file, not asking for the manual
                    feedback="Tell your team lead where you filed the report (its file name).",
                ),
            ),
            files={manual: manual_text},
            timing=Timing(due_minutes=rng.choice((90, 150)), work_minutes=10),
            reference=(
                Step(ask="k2"),
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": target, "content": report},
                    needs=("k1",),
                    guess={"path": wrong, "content": "".join(f"- {u}\n" for u in updates)},
                ),
                Step(
                    tool="chat__send_message",
                    args={"to": lead.handle, "text": f"The week {week} report is filed: {target}"},
                    needs=("k1",),
                    guess={"to": lead.handle, "text": f"The week {week} report is filed: {wrong}"},
                ),
            ),
            hints=Hints(
                data=f"The filing rules are in {manual}.",
                method="Read the manual first, then write the report at its path, starting with its reference line.",
            ),
        )


register_template(ReportFiling("report_filing", "easy", ("chat", "files"), "inquiry"))
