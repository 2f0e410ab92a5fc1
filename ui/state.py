"""The app's session state: one typed object under one session-state key.

Widgets keep their own values; this object keeps what must survive reruns
and page switches (the last question's results, the chosen document, a
pending confirmation).

>>> s = AppState()
>>> s.remember_doc("peter-rabbit"); s.doc_id
'peter-rabbit'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from kgcore.core.types import Answer, QueryResult
from kgcore.index.manifest import IndexOutcome

STATE_KEY = "kg_app_state"


@dataclass
class AskRun:
    """One method's outcome for one question: kgcore's QueryResult and Answer."""

    result: QueryResult
    answer: Answer


@dataclass
class AskOutcome:
    """What the Ask page shows: the main run and, in compare mode, a second one."""

    doc_id: str
    question: str
    main: AskRun
    other: AskRun | None = None
    #: Distinguishes questions, so widgets tied to one answer (row selections) start fresh.
    run_id: int = 0


@dataclass
class AppState:
    doc_id: str | None = None
    ask: AskOutcome | None = None
    #: What the last indexing run did to each document.
    indexed: list[IndexOutcome] = field(default_factory=list)
    #: Errors of the last indexing run, as (file name, message).
    index_errors: list[tuple[str, str]] = field(default_factory=list)
    #: ("delete" | "reindex", doc_id) waiting for the user's confirmation.
    pending: tuple[str, str] | None = None
    explorer_node: str | None = None
    sentence_id: str | None = None
    asked: int = 0

    def remember_doc(self, doc_id: str | None) -> None:
        if doc_id:
            self.doc_id = doc_id

    def forget_doc(self, doc_id: str) -> None:
        """Drop everything that refers to a deleted document."""
        if self.doc_id == doc_id:
            self.doc_id = None
        if self.ask and self.ask.doc_id == doc_id:
            self.ask = None
        self.explorer_node = None


def get_state() -> AppState:
    """This session's :class:`AppState` (created on first use)."""
    state = st.session_state.get(STATE_KEY)
    if not isinstance(state, AppState):
        state = st.session_state[STATE_KEY] = AppState()
    return state
