"""The records a session is made of, shared by every layer above the environment.

- ``messages``: :class:`Message` (role, content, turn) of the dialogue;
- ``labels``: :class:`IntentLabel` (an intent's terminal status, stage, evidence
  and turn), :class:`Leak`, and the ``IntentStatus`` / ``Stage`` enums;
- ``evidence``: what graders and judges look at (:class:`Evidence`);
- ``trace``: renderings of a session for prompts, clipped to a context window.
"""
