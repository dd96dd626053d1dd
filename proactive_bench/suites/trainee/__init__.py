"""The ``trainee`` suite: Trainee-Bench-style workplace scenarios (seed paper 003; /work/trainee-spec.md).

| module | owns |
| --- | --- |
| `model.py` | what a template draws: `Npc` (`shared`: a scenario-wide colleague), `Clue` (`from_minute`: announced in a meeting; `in_image`: drawn in a picture), `Checkpoint`, `Timing`, `Step`, `Hints`, `TaskDraft` (`pages`: web pages); the four `DOMAINS` |
| `template.py` | the `Template` protocol (name, difficulty, apps, domain), `TemplateContext`, `NamePool` (unique names; `shared`: the scenario's one person in a role of `SHARED_ROLES`), `TEMPLATES`, `register_template` |
| `files.py` | generated spreadsheets and documents (kept per data) |
| `pictures.py` | pictures holding a clue, drawn with matplotlib (loaded on first drawing): heatmap, floor plan, bar, line and pie charts, map, receipt (kept per data) |
| `canvas.py` | `PictureCanvas`: matplotlib's Agg canvas the pictures are drawn on, plain text measured once per process (same bytes) |
| `kept.py` | `KeptBytes`: a process's store of generated files, made once per data (the last few kept) |
| `templates/` | the shipped templates, one module each |
| `compose.py` | scenarios `s<seed>-n<count>`: templates by seed, unique names, the timeline, day 2's new seeds |
| `day_plan.py` | one day as pbench material: opening, checklist, app rows, notices, the oracle's timeline |
| `colleagues.py` | rules NPCs: a clue only for a targeted question about it (naming its subject, asking for its kind of fact) that meets its condition (its `after` clue out, its meeting started) |
| `checkers.py` | `chat_sent`, `clue_obtained` (added to the `checker` predicate kind) |
| `loading.py` | a scenario as an episode (one session per day, each day's files and app rows placed when it starts, the company's web pages under `web/`, day-2 feedback: each missed checkpoint and the mentor's advice) |
| `figures.py` | Checkpoint Score, Success Rate, clues asked, guesses (an attempt before its clue came in counts), messages per clue |
| `offline_play.py` | `play`: the oracle and the baselines played offline through the tools (`play_modes`: several modes of one scenario, its folder and seeded day 1 made once) (in runs: `scripted:reference`, `passive`, `guess`, `canvass`), and the four-keyword asker (`KEYWORD_QUESTIONS` to every colleague; in runs: `tests/helpers/trainee_agents.py:KeywordCanvass`) |
| `validity.py` | what `pbench validate --suite trainee` checks: each template over many seeds, and each scenario that runs (the default benchmark or a `--task` list) composed over two days |
| `colleagues_llm.py` | LLM NPCs (prompt `prompts/npc.v1.md`): the model judges which clue a question targets, under the same screen; a structured call on the run's model-call path (role `npc`, replayed), a judgment that cannot be made a recorded no-reply |
| `settings.py` | `TraineeOptions` (the suite's `settings_model`), loading nothing else of the suite (the CLI builds its options from it) |
| `suite.py` | `TraineeSuite`, registered in `suites.SUITES` as `trainee`; importing it adds the trainee checkers |
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "compose": (
            "Scenario",
            "ScenarioNameError",
            "compose_scenario",
            "default_names",
            "parse_name",
        ),
        "figures": (
            "DayFigures",
            "TaskScore",
            "day_figures",
            "task_scores",
        ),
        "loading": (
            "TraineeSettings",
            "load_scenario",
        ),
        "offline_play": (
            "KEYWORD_QUESTIONS",
            "MODES",
            "PlayedDay",
            "play",
        ),
        "suite": (
            "SUITE",
            "TraineeSuite",
        ),
        "template": (
            "TEMPLATES",
            "Template",
            "TemplateContext",
        ),
        "validity": (
            "VALIDATE_SEEDS",
            "scenarios_problems",
            "templates_problems",
        ),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.suites.trainee.compose import Scenario, ScenarioNameError, compose_scenario, default_names, parse_name
    from proactive_bench.suites.trainee.figures import DayFigures, TaskScore, day_figures, task_scores
    from proactive_bench.suites.trainee.loading import TraineeSettings, load_scenario
    from proactive_bench.suites.trainee.offline_play import KEYWORD_QUESTIONS, MODES, PlayedDay, play
    from proactive_bench.suites.trainee.suite import SUITE, TraineeSuite
    from proactive_bench.suites.trainee.template import TEMPLATES, Template, TemplateContext
    from proactive_bench.suites.trainee.validity import VALIDATE_SEEDS, scenarios_problems, templates_problems

__all__ = [
    "KEYWORD_QUESTIONS",
    "MODES",
    "SUITE",
    "TEMPLATES",
    "VALIDATE_SEEDS",
    "DayFigures",
    "PlayedDay",
    "Scenario",
    "ScenarioNameError",
    "TaskScore",
    "Template",
    "TemplateContext",
    "TraineeSettings",
    "TraineeSuite",
    "compose_scenario",
    "day_figures",
    "default_names",
    "load_scenario",
    "parse_name",
    "play",
    "scenarios_problems",
    "task_scores",
    "templates_problems",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
