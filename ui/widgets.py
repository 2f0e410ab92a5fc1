"""Widgets shared by several pages."""

from __future__ import annotations

import streamlit as st

from . import resources
from .errors import reported
from .state import get_state


def pick_document(key: str) -> str | None:
    """A document selector; honours ``?doc=`` in the URL and reports unknown ids.

    Returns None (after telling the user what to do) when nothing is indexed.
    """
    state = get_state()
    ids = resources.doc_ids()
    requested = st.query_params.get("doc")
    if requested and requested not in ids:
        with reported("Opening the document"):
            resources.store().manifest(requested)  # raises kgcore's IndexNotFoundError with the reason
    if not ids:
        st.info("No documents are indexed yet. Index the sample book or upload a document on the Library page.",
                icon=":material/inbox:")
        st.page_link("pages/library.py", label="Go to the Library", icon=":material/library_books:")
        return None
    default = requested if requested in ids else state.doc_id if state.doc_id in ids else ids[0]
    doc_id = st.selectbox("Document", ids, index=ids.index(default), key=key)
    state.remember_doc(doc_id)
    return doc_id
