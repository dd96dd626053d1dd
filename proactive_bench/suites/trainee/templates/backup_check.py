"""Checking backups (easy; proactive inquiry and monitoring): the jobs whose last good backup is older than the policy allows,
read off the backup dashboard.

The dashboard is a web page (``web_fetch``): each backup job and when it last
succeeded. How old a backup may be for the system is the engineering
manager's (k1, a scenario-wide colleague who may hold other tasks' clues,
told apart by the system they name). The report must list exactly the stale
jobs; a guessed 24-hour limit flags a different set.
"""

from __future__ import annotations

from datetime import timedelta

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

JOBS = ("db-primary", "db-replica", "file-store", "mail-archive", "wiki", "build-cache", "crm-export", "logs")
LIMITS = (6, 12, 36, 48)
GUESSED_LIMIT = 24


class BackupCheck(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager = shared_colleague(ctx, "engineering_manager")
        system = ctx.names.word("project")
        limit = rng.choice(LIMITS)
        now = ctx.day_start + timedelta(minutes=ctx.arrival_minute)
        jobs = [f"{system.lower()}-{j}" for j in rng.sample(JOBS, 6)]
        while True:
            age = {j: rng.choice((2, 4, 5, 9, 14, 20, 30, 40, 60, 80)) for j in jobs}
            stale = [j for j in jobs if age[j] > limit]
            guessed = [j for j in jobs if age[j] > GUESSED_LIMIT]
            if 1 <= len(stale) < len(jobs) and stale != guessed:
                break
        fresh = [j for j in jobs if j not in stale]
        url = f"https://backups.{ctx.company.domain}/{system.lower()}"
        page = (
            f"<html><head><title>{system} backups</title></head><body><h1>{system}: backup jobs</h1>\n"
            f"<p>As of {now.strftime('%Y-%m-%d %H:%M')}.</p>\n<table>\n<tr><th>Job</th><th>Last successful backup</th></tr>\n"
            + "".join(f"<tr><td>{j}</td><td>{(now - timedelta(hours=age[j])).strftime('%Y-%m-%d %H:%M')}</td></tr>\n" for j in jobs)
            + "</table></body></html>\n"
        )
        clue = Clue(
            id="k1",
            holder=manager.handle,
            value=f"no older than {limit} hours",
            text=f"{system} backups must be no older than {limit} hours.",
            ask=(r"\b(how old|max\w* age|older than|polic\w*|rpo|limit)\b",),
            subject=named(system),
            question=f"How old may a {system} backup be at most?",
        )
        subject = f"{system} stale backups"
        desk = f"ops@{ctx.company.domain}"
        return TaskDraft(
            title="Check backups",
            objective=(
                f"Check the {system} backup dashboard ({url}) against the backup policy for {system}. E-mail the ops desk ({desk}) "
                f"the jobs whose last successful backup is older than the policy allows, with the subject '{subject}'; name no "
                "other job."
            ),
            npcs=(manager,),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every stale job is reported",
                    needs=("k1",),
                    check=checker("email_sent", to=desk, subject_contains=subject, body_contains=stale),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Engineering Manager how old a system's backups may be, then compare with the dashboard.",
                ),
                Checkpoint(
                    id="c2",
                    text="no job within the policy is reported",
                    needs=("k1",),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject),
                        (checker("email_sent", to=desk, subject_contains=subject, body_contains=[j]) for j in fresh),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Report only the jobs past the limit.",
                ),
            ),
            pages={url: page},
            timing=Timing(due_minutes=rng.choice((60, 90, 120)), work_minutes=15),
            reference=(
                Step(tool="web_fetch", args={"url": url}),
                Step(ask="k1"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [desk], "subject": subject, "body": "Stale: " + ", ".join(stale)},
                    needs=("k1",),
                    guess={"email_addresses": [desk], "subject": subject, "body": "Stale: " + ", ".join(guessed)},
                ),
            ),
            hints=Hints(
                data=f"The dashboard at {url} shows each job's last successful backup and the time of the check.",
                method="A job is stale when the time since its last success is more than the policy's limit.",
            ),
        )


register_template(BackupCheck("backup_check", "easy", ("chat", "web", "email"), "inquiry"))
