"""The session loop's update rule: a node's update extends the state's lists into new ones and replaces the rest."""

from __future__ import annotations

from proactive_bench.data_model import IntentLabel, IntentStatus, Message, SessionOutcome, Stage
from proactive_bench.dataset import load_episode
from proactive_bench.episode.session_graph import initial_state, merged
from tests.helpers.paths import MINI


def test_an_update_extends_the_lists_into_new_ones_and_replaces_the_other_keys() -> None:
    session = load_episode(MINI, "mini").sessions[0]
    before = initial_state(session)
    opening = list(before["transcript"])
    reply = Message("agent", "done", 1)
    label = IntentLabel("i1", IntentStatus.COMPLETED, Stage.COMPLETION, "saved", "rules", turn=1)
    after = merged(before, {"turn": 1, "transcript": [reply], "labels": [label], "outcome": SessionOutcome.COMPLETED})
    assert after["transcript"] == [*opening, reply] and after["labels"] == [label] and after["leaks"] == []
    assert after["turn"] == 1 and after["outcome"] == SessionOutcome.COMPLETED and after["pending"] == session.trigger.message
    # the earlier state is as it was: a user view made from it (earlier labels, transcript) does not change under it
    assert before["transcript"] == opening and before["labels"] == [] and before["turn"] == 0
    assert before["outcome"] == SessionOutcome.RUNNING
