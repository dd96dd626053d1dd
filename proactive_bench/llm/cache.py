"""Record and replay of model calls, as a LangChain cache stored in the results database.

The cache is LangChain's ``BaseCache`` without importing it: a run whose models are all on the transport (or none, a
scripted run) loads neither LangChain's cache module nor the dump and generations only its other models' answers use.

Every successful model answer of a run is stored (through the store's
:class:`~proactive_bench.store.RecordedAnswers`) under the session it belongs
to, keyed by a hash of the call and by *occurrence*: the n-th answer served
for that key in that session. Replaying serves the same answers in the same
order, so a run's decisions come out identical; retries after a malformed
answer see the next recorded answer, as they did live.

Two keys and two stored forms:
- a model on the transport (:class:`~proactive_bench.llm.http_chat.HttpChatOpenAI`) keys a call by
  :func:`request_key`, a hash of the endpoint and the request body it sends (its answer cap apart), and stores the server's
  answer body as JSON (:meth:`CallCache.lookup_request`, :meth:`CallCache.record_request`);
- any other model (LangChain's cache interface: :meth:`CallCache.lookup`, :meth:`CallCache.update`),
  token counts and embeddings key a call by :func:`call_key`, a hash of LangChain's dump of the model
  settings and the messages, and store LangChain's dump of the generations. Runs recorded before
  request keys existed hold only these: a session whose recorded answers have no request key is
  keyed the old way throughout (:attr:`CallCache.legacy`), so it replays and resumes as recorded.

Modes:
- ``record``: hits are served (this makes an interrupted session resume
  without repeating finished model work), misses go to the server and are stored;
- ``replay``: answers come from another run; a miss is an error, no server is called;
- ``reuse``: answers come from another run where a call matches, a miss goes to the server; both are stored
  in this run (the pytest plugin: an unchanged test calls no model, a changed agent's new calls are made).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from proactive_bench.after_import import after_import
from proactive_bench.llm.ledger import CACHED_FLAG
from proactive_bench.store import Fences, RecordedAnswers

if TYPE_CHECKING:  # LangChain's cache, dump and generations load with the first call that uses them (see CallCache)
    from langchain_core.caches import BaseCache as _LangChainCache
    from langchain_core.outputs import Generation
else:
    _LangChainCache = object

CacheMode = Literal["record", "replay", "reuse"]


class ReplayMissError(RuntimeError):
    """Replay asked for an answer the recorded run does not have."""


VOLATILE_MESSAGE_FIELDS = ("id", "response_metadata", "usage_metadata")
"""Message fields that differ between a live answer and the same answer served again."""


REQUEST_KEY_PREFIX = "req:"
"""What starts a :func:`request_key` (a :func:`call_key` is bare hex)."""


def request_key(url: str, body: str, cap: int | None) -> str:
    """A hash of the request a transport model sends: the endpoint, the JSON body but for its answer cap (whose field
    depends on what the endpoint was found to read), and the cap."""
    return REQUEST_KEY_PREFIX + hashlib.sha256(f"{url}\x00{cap}\x00{body}".encode()).hexdigest()


def call_key(prompt: str, llm_string: str) -> str:
    """A hash of the model settings and the messages' content, tool calls and roles."""
    try:
        messages = json.loads(prompt)
    except json.JSONDecodeError:
        messages = prompt
    if isinstance(messages, list):
        for message in messages:
            kwargs = message.get("kwargs", {}) if isinstance(message, dict) else {}
            for name in VOLATILE_MESSAGE_FIELDS:
                kwargs.pop(name, None)
    canonical = json.dumps(messages, sort_keys=True)
    return hashlib.sha256(f"{llm_string}\x00{canonical}".encode()).hexdigest()


class CallCache(_LangChainCache):
    """The cache of one episode run; :meth:`begin_session` scopes it to a session.

    A LangChain cache (``isinstance(cache, BaseCache)``, for any chat model's ``cache``) without loading LangChain's cache
    module, its callbacks and messages (~0.1 s of CPU a start) in a run that builds no LangChain model: the class is
    registered as a virtual subclass of ``BaseCache`` as that module loads (:func:`_register_as_langchain_cache`).
    """

    def __init__(
        self,
        answers: RecordedAnswers,
        run_id: str,
        mode: CacheMode = "record",
        source_run_id: str | None = None,
        *,
        fresh: bool = False,
        fence: Fences | None = None,
    ) -> None:
        """``answers`` are the database's shared recorded answers (``Store.answers``).

        ``fresh``: the run has never started, so it has no recorded answers to look up.
        ``fence``: the lease(s) the run writes under (``Store.fence``): its answers are written only while it holds them.
        """
        self.fence = fence
        if mode != "record" and source_run_id is None:
            raise ValueError(f"{mode} needs the run whose answers to serve")
        self.answers = answers
        self.run_id = run_id
        self.mode = mode
        self.source_run_id = source_run_id or run_id
        self._session = ""
        self._served: dict[str, int] = defaultdict(int)
        self._source_keys: set[tuple[str, int]] | None = None  # recorded answers of the session, read once
        self._own_keys: set[tuple[str, int]] | None = None
        self._miss_keys: dict[tuple[str, str], str] = {}
        self._sessions_by_run: dict[str, set[str]] = {run_id: set()} if fresh else {}
        self.legacy = False
        """This session's answers were recorded before request keys: transport calls are keyed by :func:`call_key` too."""

    def begin_session(self, session_id: str) -> None:
        """Scope lookups and writes to one session; occurrence counts start again."""
        self._session = session_id
        self._served.clear()
        self._source_keys = self._own_keys = None
        self._miss_keys.clear()
        self.legacy = False

    def flush(self) -> None:
        """Write the answers still waiting (when a run stops mid-session, so that resuming it finds them)."""
        self.answers.flush()

    def _recorded(self, run_id: str) -> set[tuple[str, int]]:
        """(key, occurrence) of every answer recorded for this session of ``run_id``."""
        if self._session not in self._sessions_recorded(run_id):
            return set()  # the usual case for a new run: no query per session
        return self.answers.keys(self._namespace(run_id))

    def _sessions_recorded(self, run_id: str) -> set[str]:
        """Sessions of ``run_id`` with recorded answers when this cache first asked (read once per run)."""
        if run_id not in self._sessions_by_run:
            self._sessions_by_run[run_id] = self.answers.sessions(run_id)
        return self._sessions_by_run[run_id]

    async def alookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        return self.lookup(prompt, llm_string)  # no thread hop: a miss is answered from memory

    async def aupdate(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        self.update(prompt, llm_string, return_val)

    async def aclear(self, **kwargs: Any) -> None:
        """:meth:`clear` on a worker thread (as ``BaseCache.aclear``)."""
        from langchain_core.runnables import run_in_executor

        await run_in_executor(None, self.clear, **kwargs)

    def _namespace(self, run_id: str) -> str:
        return f"{run_id}/{self._session}"

    def _key(self, prompt: str, llm_string: str) -> str:
        """The call's key; a miss's key is kept for the update that follows it (hashing the prompt twice is costly)."""
        known = self._miss_keys.pop((prompt, llm_string), None)
        return known if known is not None else call_key(prompt, llm_string)

    def _read_session(self) -> set[tuple[str, int]]:
        """The session's recorded (key, occurrence) in the source run, read at its first lookup; whether it is :attr:`legacy`
        is decided there, from what the database holds (the source's answers and, reusing, this run's own)."""
        if self._source_keys is None:
            self._source_keys = self._recorded(self.source_run_id)
            recorded = set(self._source_keys)
            if self.mode == "reuse":
                recorded |= self._own()
            self.legacy = bool(recorded) and not any(key.startswith(REQUEST_KEY_PREFIX) for key, _ in recorded)
        return self._source_keys

    def _serve(self, key: str) -> str | None:
        """The answer recorded for ``key``'s next occurrence (counted as served), or None; replay: a miss raises."""
        occurrence = self._served[key]
        recorded = None
        if (key, occurrence) in self._read_session():
            recorded = self.answers.generations(self._namespace(self.source_run_id), key, occurrence)
        if recorded is None and self.mode == "reuse" and (key, occurrence) in self._own():  # a resumed run's own answers
            recorded = self.answers.generations(self._namespace(self.run_id), key, occurrence)
        if recorded is None:
            if self.mode == "replay":
                raise ReplayMissError(
                    f"run {self.source_run_id} has no recorded answer #{occurrence + 1} for this call in session "
                    f"{self._session!r}: the run's settings, prompts or data differ from the recorded ones"
                )
            return None
        self._served[key] += 1
        if self.source_run_id != self.run_id:  # replay, reuse: this run keeps what it was served
            self._store(key, occurrence, recorded)
        return recorded

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        key = self._key(prompt, llm_string)
        recorded = self._serve(key)
        if recorded is None:
            self._miss_keys[(prompt, llm_string)] = key
            return None
        return served_generations(recorded)

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        from langchain_core.load import dumps

        key = self._key(prompt, llm_string)
        self._record(key, dumps([_serializable(g) for g in return_val]))

    def lookup_request(self, key: str, legacy: Callable[[], tuple[str, str]]) -> tuple[str, str | None]:
        """The key a transport call is recorded under in this session and the answer recorded for it, if any: the stored
        text, a server answer's JSON (:meth:`record_request`) or, recorded before request keys, LangChain's dump of the
        generations (:func:`served_generations`). ``key``: its :func:`request_key`; ``legacy``: the call's
        ``(prompt, llm_string)`` for :func:`call_key`, asked only in a :attr:`legacy` session. Replay: a miss raises."""
        self._read_session()
        if self.legacy:
            key = call_key(*legacy())
        return key, self._serve(key)

    def record_request(self, key: str, answer: str) -> None:
        """Record the server's answer (its JSON) to a call :meth:`lookup_request` found no answer for, under the key it gave."""
        self._record(key, answer)

    def _record(self, key: str, answer: str) -> None:
        occurrence = self._served[key]
        self._served[key] += 1
        self._store(key, occurrence, answer)

    def _own(self) -> set[tuple[str, int]]:
        """(key, occurrence) of the answers this run recorded in this session (read once)."""
        if self._own_keys is None:
            source = self._source_keys if self.source_run_id == self.run_id else None  # recording here
            self._own_keys = source if source is not None else self._recorded(self.run_id)
        return self._own_keys

    def _store(self, key: str, occurrence: int, generations: str) -> None:
        own = self._own()
        if (key, occurrence) in own:
            return  # recorded before an interruption: the first answer stays
        self.answers.add(self._namespace(self.run_id), key, occurrence, generations, self.fence)
        own.add((key, occurrence))

    def clear(self, **kwargs: Any) -> None:
        """Forget this run's recorded answers."""
        self.answers.forget(self.run_id)


def served_generations(recorded: str) -> list[Generation]:
    """Generations stored as LangChain's dump (:meth:`CallCache.update`), flagged as served from the cache."""
    from langchain_core._api import LangChainBetaWarning
    from langchain_core.load import loads

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangChainBetaWarning)
        generations: list[Generation] = loads(recorded, allowed_objects="core")
    for generation in generations:
        message = getattr(generation, "message", None)
        if message is not None:
            message.response_metadata[CACHED_FLAG] = True
    return generations


def _serializable(generation: Generation) -> Generation:
    """The generation without the client's parsed object (re-parsed from the text when served)."""
    message = getattr(generation, "message", None)
    if message is None or "parsed" not in message.additional_kwargs:
        return generation
    kwargs = {k: v for k, v in message.additional_kwargs.items() if k != "parsed"}
    return generation.model_copy(update={"message": message.model_copy(update={"additional_kwargs": kwargs})})


def _register_as_langchain_cache() -> None:
    """Make :class:`CallCache` a ``BaseCache`` for ``isinstance`` and ``issubclass`` (LangChain's chat models check it)."""
    from langchain_core.caches import BaseCache

    BaseCache.register(CallCache)


after_import("langchain_core.caches", _register_as_langchain_cache)
