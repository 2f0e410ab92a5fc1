"""Merge review: the entity resolver's candidates near a threshold (or kept apart as "same name, different
context"), both names with a grounded sentence each, accepted or split with one click under the reviewer's name."""

from __future__ import annotations

import streamlit as st

from kgcore.api import CONFIRMED, SPLIT, Index, KgcoreError, ReviewItem, record, resolution, review_queue
from ui import resources_panel as resources
from ui.boot_panel import ensure_app_navigation
from ui.entities_review_view import EVERY, UNDECIDED, flash_text, pair_html, queue_frame, shared_names_frame, shown
from ui.errors_panel import reported
from ui.identity_panel import reviewer_sidebar, reviewing_as
from ui.markup_html import md_escape
from ui.widgets_panel import pick_collection

FLASH_KEY = "entities_review.flash"
#: Pairs drawn with their buttons at once.
PAGE_SIZE = 20


def decide(index: Index, item: ReviewItem, status: str, reviewer: str) -> None:
    """Record a decision (a button callback, before the page is drawn)."""
    try:
        decision = record(index, item.merge.a, item.merge.b, status, reviewer)
    except KgcoreError as exc:
        st.session_state[FLASH_KEY] = ("error", str(exc))
        return
    st.session_state[FLASH_KEY] = ("success", flash_text(decision, item.a.name, item.b.name))


def show_flash() -> None:
    flash = st.session_state.pop(FLASH_KEY, None)
    if flash:
        kind, text = flash
        (st.error if kind == "error" else st.success)(md_escape(text))


def pair_controls(doc_id: str, index: Index, item: ReviewItem, reviewer: str) -> None:
    with st.container(border=True):
        st.markdown(pair_html(item, doc_id), unsafe_allow_html=True)
        c_accept, c_split, _ = st.columns([1, 1, 3])
        help_text = None if reviewer else "Choose who is reviewing in the sidebar first"
        c_accept.button("Accept merge", key=f"er.accept.{item.key}", icon=":material/merge:", disabled=not reviewer,
                        on_click=decide, args=(index, item, CONFIRMED, reviewer), help=help_text)
        c_split.button("Split", key=f"er.split.{item.key}", icon=":material/call_split:", disabled=not reviewer,
                       on_click=decide, args=(index, item, SPLIT, reviewer), help=help_text)


def main(reviewer: str) -> None:
    st.title("Merge review")
    st.caption("Entity resolution merges nodes that name the same thing (an acronym and its long form, a plural, "
               "a misspelling); these are its candidates closest to a threshold. Every decision is stored with "
               "your name and survives re-indexing.")
    show_flash()
    doc_id = pick_collection("entities_review.doc")
    if doc_id is None:
        return
    index = resources.engine().index(doc_id)
    c_filter, c_all = st.columns([2, 2])
    which = c_filter.radio("Show", [UNDECIDED, EVERY], horizontal=True, key="entities_review.which")
    everything = c_all.toggle("Every candidate, not only those near a threshold", key="entities_review.everything")
    with st.spinner("Resolving the collection's entities (once per collection version)…"):
        items = review_queue(index, everything=everything)
    shared = resolution(index).shared_names
    if shared:
        with st.expander(f"Shared names used differently ({len(shared)}): maybe two entities under one name"):
            st.caption("One node holds these names in several documents whose sentences about them share nothing "
                       "(the least context cosine between two documents is below the same-name threshold).")
            st.dataframe(shared_names_frame(shared), hide_index=True)
    if not reviewer:
        st.warning("Choose who is reviewing in the sidebar to accept or split merges.", icon=":material/person:")
    st.dataframe(queue_frame(items), hide_index=True)
    todo = shown(items, which)
    if not todo:
        st.info("Nothing to review here." if items else "No candidates near a threshold in this collection.",
                icon=":material/task_alt:")
        return
    st.markdown(f"**{len(todo)} pairs** (the first {min(len(todo), PAGE_SIZE)} below)")
    for item in todo[:PAGE_SIZE]:
        pair_controls(doc_id, index, item, reviewer)


ensure_app_navigation()
me = reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Merge review"):
    main(me or reviewing_as())
