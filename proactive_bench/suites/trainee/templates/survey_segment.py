"""A survey figure for the board (easy; information synthesis and analysis): one segment's mean score, the segment asked of
the research lead.

One clue: which customer segment and which question the board wants from the
survey is the research lead's (k1). The responses sheet holds every segment
and question; the figure is the mean over that segment's answers to that
question, one decimal. The overall mean, the natural guess, differs; a
message listing every segment's mean fails the "only that figure" check.
"""

from __future__ import annotations

from statistics import mean

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, none_but

SEGMENTS = ("Small business", "Enterprise", "Public sector", "Education", "Non-profit")
QUESTIONS = ("Ease of use", "Support", "Value for money")


class SurveySegment(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead, analyst = ctx.names.person(), ctx.names.person()
        survey = ctx.names.word("project")
        segments = rng.sample(SEGMENTS, 4)
        while True:
            answers = [(f"R{n:03d}", rng.choice(segments), [rng.randint(1, 10) for _ in QUESTIONS]) for n in range(1, rng.randint(28, 40))]
            rows = [[r, s, *scores] for r, s, scores in answers]
            means = {
                (s, q): mean(scores[i] for _, seg, scores in answers if seg == s)
                for s in segments
                for i, q in enumerate(QUESTIONS)
                if any(seg == s for _, seg, _ in answers)
            }
            if len(means) < len(segments) * len(QUESTIONS):
                continue
            shown = {k: f"{v:.1f}" for k, v in means.items()}
            segment, question = rng.choice(segments), rng.choice(QUESTIONS)
            figure = shown[(segment, question)]
            overall = f"{mean(scores[QUESTIONS.index(question)] for _, _, scores in answers):.1f}"
            others = {v for k, v in shown.items() if k != (segment, question)} - {figure}
            if overall != figure and len(others) >= 6:
                break
        sheet = ctx.names.path(ctx.folder, f"{survey.lower()}_survey", "xlsx")
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=f"{segment} customers' {question.lower()} score",
            text=f"For the {survey} survey the board wants the {segment} customers' {question.lower()} score (the mean, one decimal).",
            ask=(r"\b(which (segment|figure|question|score)|what .* board wants?|segment|figure)\b",),
            subject=named(survey),
            question=f"Which figure from the {survey} survey does the board want?",
        )
        message = f"{survey} survey, {segment}, {question.lower()}: {figure}"
        return TaskDraft(
            title="Report a survey figure",
            objective=(
                f"The board wants one figure from the {survey} customer survey ({sheet}): a segment's mean score on one question, "
                f"one decimal. Send it to {lead.name} over chat, with the segment and the question, and no other figure."
            ),
            npcs=(
                colleague(lead, "Research Lead", "Insights", f"Ran the {survey} survey; talks to the board about it."),
                colleague(analyst, "Research Analyst", "Insights", "Cleans survey data; friendly."),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the figure is the right segment's mean on the right question",
                    needs=("k1",),
                    check=checker("chat_sent", to=lead.handle, contains=[segment, figure]),
                    attempt=checker("chat_sent", to=lead.handle, contains=["."]),
                    feedback="Ask the Research Lead which segment and question the board wants before computing anything.",
                ),
                Checkpoint(
                    id="c2",
                    text="no other figure is sent",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=lead.handle, contains=[figure]),
                        (checker("chat_sent", to=lead.handle, contains=[v]) for v in sorted(others) if v not in figure),
                    ),
                    attempt=checker("chat_sent", to=lead.handle, contains=["."]),
                    feedback="Send the one figure asked for.",
                ),
            ),
            files={sheet: xlsx_bytes({"Responses": [["Response", "Segment", *QUESTIONS], *rows]})},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="chat__send_message",
                    args={"to": lead.handle, "text": message},
                    needs=("k1",),
                    guess={"to": lead.handle, "text": f"{survey} survey, all customers, {question.lower()}: {overall}"},
                ),
            ),
            hints=Hints(
                data=f"Every response is a row of {sheet}: its segment and a 1-10 score per question.",
                method="Average the chosen question's scores over the rows of the chosen segment only.",
            ),
        )


register_template(SurveySegment("survey_segment", "easy", ("chat", "spreadsheets"), "analysis"))
