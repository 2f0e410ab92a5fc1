"""The app's session state: one typed object under one session-state key.

Widgets keep their own values; this object keeps what must survive reruns
and page switches (the last question's results, the chosen collection, a
pending confirmation, what the last indexing run did).

>>> s = AppState()
>>> s.remember_collection("peter-rabbit"); s.collection
'peter-rabbit'
>>> s.pending = Pending("remove", "peter-rabbit", "peter-rabbit"); s.forget_collection("peter-rabbit")
>>> s.collection, s.pending
(None, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from kgcore.api import Answer, QueryResult

STATE_KEY = "kg_app_state"


@dataclass
class AskRun:
    """One method's outcome for one question: kgcore's QueryResult and Answer."""

    result: QueryResult
    answer: Answer


@dataclass
class AskOutcome:
    """What the Ask page shows: the main run and, in compare mode, a second one (``doc_id``: the collection)."""

    doc_id: str
    question: str
    main: AskRun
    other: AskRun | None = None
    #: Distinguishes questions, so widgets tied to one answer (row selections) start fresh.
    run_id: int = 0


@dataclass(frozen=True)
class Pending:
    """A Library action waiting for the user's confirmation: ``remove`` / ``reindex`` a document, ``delete``."""

    action: str
    collection: str
    doc_id: str = ""


@dataclass
class AppState:
    #: The collection chosen last, on any page.
    collection: str | None = None
    ask: AskOutcome | None = None
    #: The background indexing jobs this session submitted last (their outcome is shown when they end).
    jobs: list[str] = field(default_factory=list)
    #: Refusals of the last submission (before any job ran), as (what, message).
    index_errors: list[tuple[str, str]] = field(default_factory=list)
    pending: Pending | None = None
    explorer_node: str | None = None
    sentence_id: str | None = None
    asked: int = 0

    def remember_collection(self, name: str | None) -> None:
        if name:
            self.collection = name

    def forget_collection(self, name: str) -> None:
        """Drop everything that refers to a deleted collection."""
        if self.collection == name:
            self.collection = None
        if self.ask and self.ask.doc_id == name:
            self.ask = None
        if self.pending and self.pending.collection == name:
            self.pending = None
        self.explorer_node = None


def get_state() -> AppState:
    """This session's :class:`AppState` (created on first use)."""
    state = st.session_state.get(STATE_KEY)
    if not isinstance(state, AppState):
        state = st.session_state[STATE_KEY] = AppState()
    return state
