"""One episode run: its settings, its sessions in order, their checkpoints and rows.

- ``launch``: :class:`RunSpec` (the run's one settings object, stored with the
  run), ``start_run``, ``build_participants``, ``execute_run``;
- ``runner``: ``run_episode`` over an :class:`EpisodeRun` (store, run row,
  episode, :class:`Participants`, call ledger, cache), ``CallLedger``;
- ``session_graph``: the LangGraph agent/user loop of one session, with its
  ``SessionRuntime`` as the graph's run context;
- ``rows``: the one place a session's records become store rows;
- ``checkpoints``: workspace checkpoints, and resuming a run where it stopped.
"""
