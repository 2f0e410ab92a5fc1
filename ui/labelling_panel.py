"""Label widgets: let an analyst say which stage failed, from any page.

Everything writes to the audit database of the current store
(:func:`audit_db`) through :class:`kgcore.audit.AuditDB`, as the reviewer
chosen in the sidebar (:mod:`ui.identity_panel`).  The Ask page uses them like this::

    author = current_author()                                # who is reviewing (sidebar, app.py)
    db = audit_db()
    record_id = record_for(db, run.result, run.answer, index) # saved once (idempotent)
    sentence_label_buttons(db, record_id, sentence.id, in_context=True, author=author, key="s3")
    render_label_controls(db, record_id, run.result, run.answer, index, author)

Every writing widget shows a kgcore error (no author, unknown sentence …)
as a message, and reruns the page after a successful write so every view
of the labels is current; the confirmation survives the rerun (:func:`flash`).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from kgcore.api import (
    ALLOWED_ARTIFACTS,
    LABEL_TYPES,
    Answer,
    AuditDB,
    AuditRecord,
    Embedder,
    Index,
    QueryResult,
    diagnose,
    diagnose_without_gold,
    record_to_result,
    store_suggestion,
)

from . import auth_panel as auth
from . import resources_panel as resources
from .auth_view import NEEDS
from .errors_panel import reported
from .identity_panel import reviewing_as
from .labels import TARGETS, TYPE_LABELS, distinct_labels, next_best_note
from .markup_html import esc, md_escape
from .resources_panel import audit_db  # noqa: F401 - the pages open the database through this module
from .state_panel import AskOutcome, AskRun, get_state

#: The audit record the Review page re-opened in the Ask view (its id).
OPEN_RECORD_KEY = "audit.open_record"
#: (QueryResult object, record id) of that re-opened record, so labels go to the record it came from.
REOPENED_KEY = "audit.reopened"
#: The answer last saved as an audit record in this session, and its record id.
SAVED_KEY = "audit.saved"
FLASH_KEY = "audit.flash"
MAX_OPTIONS = 300
SEARCH_LIMIT = 10


# -- shared pieces -------------------------------------------------------------------
def current_author() -> str:
    """Who is reviewing (:func:`ui.identity_panel.reviewing_as`; empty when nobody is chosen)."""
    return reviewing_as()


def flash(message: str) -> None:
    """Show ``message`` once, after the rerun that follows a write."""
    st.session_state[FLASH_KEY] = message


def show_flash() -> None:
    """The pending :func:`flash` message, if any.

    The container is drawn either way, so the elements below keep their
    positions and an open expander stays open across the rerun.
    """
    box = st.container()
    message = st.session_state.pop(FLASH_KEY, None)
    if message:
        box.success(md_escape(message), icon=":material/check_circle:")
        st.toast(md_escape(message), icon=":material/check_circle:")  # seen even when the panel is scrolled away


def record_for(db: AuditDB, result: QueryResult, answer: Answer | None, index: Index, gold=None) -> int:
    """The audit record of an answered question, saved on first use (saving again is a no-op).

    A result re-opened from the Review page (:func:`reopen_record`) keeps
    its record, even when its document has been re-indexed since.
    """
    reopened = st.session_state.get(REOPENED_KEY)
    if reopened is not None and reopened[0] is result:
        return reopened[1]
    saved = st.session_state.get(SAVED_KEY)  # the page runs again on every click: save an answer once
    if (gold is None and saved is not None and saved[0] is result and saved[1] is answer and saved[2] == db.where
            and db.has_record(saved[3])):  # not deleted since
        return saved[3]
    record_id = db.save_record(result, answer, index.manifest, gold)
    st.session_state[SAVED_KEY] = (result, answer, db.where, record_id)
    return record_id


def _add_label(db: AuditDB, record_id: int, author: str, label_type: str, kind: str = "record",
               artifact_id: str = "", note: str = "", cleared: tuple[str, ...] = ()) -> None:
    """Add one label; on success flash a confirmation, empty the form's ``cleared`` widgets (so that a second
    click does not add the same label again) and rerun; on failure say that nothing was saved, and why."""
    saved = False
    with reported("Saving the label (it was not saved)"):
        db.add_label(record_id, label_type, kind, artifact_id, note, author)
        saved = True
    if saved:
        for key in cleared:
            st.session_state.pop(key, None)
        target = TARGETS.get(kind, kind).lower() if kind == "record" else f"{kind.replace('_', ' ')} {artifact_id}"
        flash(f"Saved: {TYPE_LABELS[label_type]} on {target}.")
        st.rerun()


def _no_author_help(author: str, text: str) -> str:
    return text if author else "Choose who is reviewing in the sidebar first"


# -- one-click buttons ----------------------------------------------------------------
def sentence_label_buttons(db: AuditDB, record_id: int, sentence_id: str, in_context: bool, author: str,
                           key: str) -> None:
    """Buttons for one sentence: a graph error in it (I) and, when it was not retrieved, "should have been" (II)."""
    cols = iter(st.columns(2))
    if not in_context and next(cols).button("Should have been retrieved (II)", key=f"label.miss.{record_id}.{key}",
                                            disabled=not author,
                                            help=_no_author_help(author, "Retrieval missed this sentence")):
        _add_label(db, record_id, author, "II", "sentence", sentence_id, "Missing sentence: should have been retrieved")
    if next(cols).button("Graph error here (I)", key=f"label.sgraph.{record_id}.{key}", disabled=not author,
                         help=_no_author_help(author, "The graph built from this sentence is wrong or incomplete")):
        _add_label(db, record_id, author, "I", "sentence", sentence_id)


def correct_button(db: AuditDB, record_id: int, author: str, key: str = "correct") -> None:
    """"Correct" for the whole answer."""
    if st.button("Answer is correct", key=f"label.correct.{record_id}.{key}", icon=":material/check:",
                 disabled=not author, help=_no_author_help(author, "Label the whole answer as correct")):
        _add_label(db, record_id, author, "correct")


def next_best_buttons(db: AuditDB, record_id: int, answer: Answer | None, author: str, key: str = "next") -> None:
    """For each of the answer pick's next best sentences (the verdict's ``alternatives``): its quote and a button
    labelling the answer III (a III label is on the answer), its note naming that sentence as the one that answers
    (the retrieval found it, the pick did not)."""
    others = answer.verdict.alternatives if answer is not None and answer.verdict is not None else []
    if not others:
        st.caption("No next best sentences: only the offline extractive answerer lists them, and answers stored "
                   "before it did have none. Use *Add a label* below.")
        return
    for k, alt in enumerate(others):
        left, right = st.columns([4, 1])
        left.markdown(f"<div><code>{esc(alt.sentence_id)}</code> {esc(alt.quote)}</div>",  # an HTML block:
                      unsafe_allow_html=True)  # no markdown read in the document's text
        if right.button("This one answers it (III)", key=f"label.next.{record_id}.{key}.{k}", disabled=not author,
                        help=_no_author_help(author, "The right answer was in the context: an answer-generation "
                                                     "error, with this sentence as the one to quote")):
            _add_label(db, record_id, author, "III", note=next_best_note(alt.sentence_id, alt.quote))


# -- search and form -------------------------------------------------------------------
def search_sentences(index, query: str, limit: int = SEARCH_LIMIT) -> list:
    """Sentences of the index containing every word of ``query`` (or with that id), in document order.

    >>> from types import SimpleNamespace as NS
    >>> idx = NS(sentences=[NS(id="text_0-1", original="He was put in a pie.", resolved="Father was put in a pie."),
    ...                     NS(id="text_0-2", original="Peter ran.", resolved="Peter ran.")])
    >>> [s.id for s in search_sentences(idx, "father PIE")], [s.id for s in search_sentences(idx, "text_0-2")]
    (['text_0-1'], ['text_0-2'])
    """
    words = query.lower().split()
    if not words:
        return []
    hits = []
    for s in index.sentences:
        text = f"{s.original} {s.resolved}".lower()
        if s.id == query.strip() or all(w in text for w in words):
            hits.append(s)
            if len(hits) >= limit:
                break
    return hits


def missing_sentence_search(db: AuditDB, record_id: int, result, index, author: str, key: str = "missing") -> None:
    """A search box over the document's sentences to mark the one that should have been retrieved."""
    query = st.text_input("Mark a missing sentence: search the document", key=f"label.search.{record_id}.{key}",
                          placeholder="words of the sentence that answers the question, or its id")
    if not query.strip():
        return
    hits = search_sentences(index, query)
    if not hits:
        st.caption("No sentence contains all these words.")
    context = set(result.sentence_ids)
    for s in hits:
        with st.container(border=True):
            status = "in the context" if s.id in context else "not retrieved"
            st.markdown(f"`{s.id}` · {status} — {md_escape(s.original)}")
            sentence_label_buttons(db, record_id, s.id, s.id in context, author, key=f"{key}.{s.id}")


def artifact_options(kind: str, result: QueryResult, answer: Answer | None, index: Index) -> list[tuple[str, str]]:
    """(artifact id, description) pairs a label of ``kind`` can point at for this result."""
    if kind == "match":
        labels = {n.key: n.label for n in result.query_graph.nodes} if result.query_graph else {}
        return [(f"{m.query_node}|{m.node_id}", f"{labels.get(m.query_node, m.query_node)} → {m.label} ({m.score:.2f})")
                for m in result.matches]
    if kind == "sentence":
        return [(s.id, f"{s.id} · {s.text[:90]}") for s in result.sentences]
    if kind == "answer_sentence":
        citations = answer.citations if answer is not None else []
        if not citations and answer is not None and answer.text:
            return [("0", answer.text[:120])]
        return [(str(i), c.answer_sentence[:120]) for i, c in enumerate(citations)]
    graph = index.graph
    node_ids = list(dict.fromkeys([m.node_id for m in result.matches] +
                                  [n.node_id for sid in result.sentence_ids for n in graph.nodes_in_sentence(sid)]))
    node_ids = [n for n in node_ids if n in graph.nodes][:MAX_OPTIONS]
    if kind == "node":
        return [(n, f"{graph.nodes[n].label} ({graph.nodes[n].node_type}) · {n}") for n in node_ids]
    if kind == "edge":
        keep, context = set(node_ids), set(result.sentence_ids)
        edges = [e for e in graph.edges if e.source in keep and e.target in keep and context & set(e.grounded_texts)]
        return [(f"{e.source}|{e.edge_role}|{e.target}", f"{e.source} —{e.edge_role}→ {e.target}")
                for e in edges[:MAX_OPTIONS]]
    return []


def label_form(db: AuditDB, record_id: int, result: QueryResult, answer: Answer | None, index: Index, author: str,
               key: str = "form") -> None:
    """A form for any label: pick what failed, the error type, add a note."""
    k = f"label.{key}.{record_id}"
    kind = st.selectbox("What failed?", list(TARGETS), format_func=TARGETS.get, key=f"{k}.kind")
    artifact_id = ""
    if kind != "record":
        options = artifact_options(kind, result, answer, index)
        if not options:
            st.caption(f"This answer has no {TARGETS[kind].lower().removeprefix('a ').removeprefix('an ')} to label.")
            return
        described = dict(zip([i for i, _ in options], distinct_labels([d for _, d in options])))
        artifact_id = st.selectbox("Which one", list(described), format_func=described.get, key=f"{k}.artifact")
    types = [t for t in LABEL_TYPES if kind in ALLOWED_ARTIFACTS[t]]
    label_type = st.radio("Error type", types, format_func=TYPE_LABELS.get, horizontal=True, key=f"{k}.type")
    note = st.text_area("Note", key=f"{k}.note", height=80, placeholder="Why? (optional)")
    if st.button("Add label", key=f"{k}.add", type="primary", icon=":material/label:", disabled=not author,
                 help=_no_author_help(author, "Store this label with your name")):
        _add_label(db, record_id, author, label_type, kind, artifact_id, note, cleared=(f"{k}.note", f"{k}.type"))


# -- diagnosis and the label list ------------------------------------------------------
def diagnosis_panel(db: AuditDB, record_id: int, result: QueryResult, answer: Answer | None, index: Index, author: str,
                    embedder: Embedder | None = None, key: str = "diag") -> None:
    """Gold answers in, an automatic diagnosis out, stored as a suggestion (never as a human label)."""
    k = f"label.{key}.{record_id}"
    record = db.get_record(record_id)
    gold = st.text_area("Gold answer(s), one per line", value="\n".join(record.gold), key=f"{k}.gold", height=70)
    if st.button("Diagnose automatically", key=f"{k}.run", icon=":material/troubleshoot:",
                 help="Suggest the failing stage (correct / gold not in document / I / II / III) from the gold "
                      "answers; without any, from the answer's verdict and the retrieval"):
        done = False
        with reported("Diagnosing"):
            golds = [g for g in gold.splitlines() if g.strip()]
            db.set_gold(record_id, golds)
            diagnosis = diagnose(result, answer, golds, index, embedder or resources.embedder()) if golds \
                else diagnose_without_gold(result, answer)
            store_suggestion(db, record_id, diagnosis)
            done = True
        if done:
            flash(f"Suggestion: {TYPE_LABELS[diagnosis.stage]} — {diagnosis.reason} Accept or override it below.")
            st.rerun()


def labels_frame(labels) -> pd.DataFrame:
    """The labels of a record as a table narrow enough for the answer's column: what, on what, by whom and why
    (an automatic diagnosis marked as a suggestion, a label accepting or overriding one names it)."""
    return pd.DataFrame([{
        "#": lb.id, "label": TYPE_LABELS.get(lb.label_type, lb.label_type),
        "on": "the answer" if lb.artifact_kind == "record" else f"{lb.artifact_kind} {lb.artifact_id}".strip(),
        "by": _by(lb),
        "note": lb.note, "at (UTC)": lb.created_at,
    } for lb in labels])


def _by(label) -> str:
    """Who gave a label, with what it is: a suggestion, one accepting or overriding suggestion #N, a final one."""
    return label.author + (" (suggestion)" if label.source == "automatic" else "") + (
        f" (on #{label.suggestion_id})" if label.suggestion_id else "") + (
        " (final)" if label.role == "adjudication" else "")


def labels_list(db: AuditDB, record_id: int, author: str, key: str = "list") -> None:
    """The record's labels, with delete and, for automatic suggestions, accept / override."""
    labels = db.labels_for(record_id)
    if not labels:
        st.caption("No labels yet.")
        return
    st.dataframe(labels_frame(labels), hide_index=True)
    k = f"label.{key}.{record_id}"
    by_id = {lb.id: lb for lb in labels}
    chosen = st.selectbox("Label", list(by_id), key=f"{k}.pick",
                          format_func=lambda i: f"#{i} {TYPE_LABELS.get(by_id[i].label_type)} by {by_id[i].author}")
    label = by_id[chosen]
    if label.source == "automatic":  # the choice on a row of its own: the answer's column is narrow
        other = st.selectbox("Override with", LABEL_TYPES, format_func=TYPE_LABELS.get, key=f"{k}.override_type")
    cols = st.columns(3, vertical_alignment="bottom")
    if label.source == "automatic":
        if cols[0].button("Accept", key=f"{k}.accept", disabled=not author, type="primary",
                          help=_no_author_help(author, "Store this diagnosis as your own label")):
            _write(lambda: db.accept_suggestion(label.id, author), f"Accepted suggestion #{label.id}.")
        if cols[1].button("Override", key=f"{k}.override", disabled=not author,
                          help=_no_author_help(author, "Store your own verdict instead of the suggestion")):
            _write(lambda: db.override(label.id, author, other),
                   f"Overrode suggestion #{label.id} with {TYPE_LABELS[other]}.")
    delete_button(db, label, author, cols[2], k)


def delete_button(db: AuditDB, label, author: str, where, key: str) -> None:
    """Delete a label after a confirmation, recording who deleted it; another reviewer's label, or an automatic
    suggestion (which other labels may accept or override), only as a maintainer (with sign-in on;
    :data:`ui.auth_view.NEEDS`)."""
    own = label.source == "human" and label.author == author  # a suggestion is nobody's: labels may point to it
    if not author or not (own or auth.has_role(NEEDS["delete other people's labels"])):
        where.button("Delete label", key=f"{key}.delete", icon=":material/delete:", disabled=True,
                     help=_no_author_help(author, "Only its author or a maintainer may delete this label"))
        return  # nothing that deletes is drawn
    with where.popover("Delete label", icon=":material/delete:"):
        st.caption(md_escape(f"Delete #{label.id} ({TYPE_LABELS.get(label.label_type)} by {label.author})? The label "
                             "history keeps it, with your name."))
        if st.button("Delete it", key=f"{key}.delete.{label.id}", type="primary"):
            _write(lambda: db.delete_label(label.id, by=author), f"Deleted label #{label.id}.")


def _write(action, message: str) -> None:
    done = False
    with reported("Updating the labels"):
        action()
        done = True
    if done:
        flash(message)
        st.rerun()


def render_label_controls(db: AuditDB, record_id: int, result: QueryResult, answer: Answer | None, index: Index,
                          author: str, embedder: Embedder | None = None) -> None:
    """Everything for labelling one answered question: one-click "correct", the automatic diagnosis,
    a form for any label, the missing-sentence search and the list of labels (accept / override / delete).

    ``result``/``answer`` are the kgcore ``QueryResult``/``Answer`` of record
    ``record_id``, ``index`` its loaded index, ``author`` from :func:`current_author`;
    ``embedder`` defaults to the app engine's (only used when diagnosing).
    """
    show_flash()
    if not author:
        st.info("Choose who is reviewing (sidebar) to add labels.", icon=":material/person:")
    correct_button(db, record_id, author)
    with st.expander("The right answer was in the context", icon=":material/format_list_numbered:"):
        next_best_buttons(db, record_id, answer, author)
    with st.expander("Automatic diagnosis (a guess without a gold answer)", icon=":material/troubleshoot:"):
        diagnosis_panel(db, record_id, result, answer, index, author, embedder)
    with st.expander("Add a label", icon=":material/label:", expanded=True):
        label_form(db, record_id, result, answer, index, author)
    with st.expander("Mark a missing sentence", icon=":material/search:"):
        missing_sentence_search(db, record_id, result, index, author)
    st.markdown("**Labels**")
    labels_list(db, record_id, author)


def reopen_record(record: AuditRecord) -> None:
    """Put a stored record into the Ask view exactly as it was answered (no re-run) and go there."""
    result, answer = record_to_result(record)
    state = get_state()
    state.asked += 1
    state.remember_collection(record.doc_id)
    state.ask = AskOutcome(record.doc_id, record.question, AskRun(result, answer), None, state.asked)
    st.session_state[OPEN_RECORD_KEY] = record.id
    st.session_state[REOPENED_KEY] = (result, record.id)
    st.switch_page("pages/ask.py")
