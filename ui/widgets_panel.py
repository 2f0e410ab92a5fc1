"""Widgets shared by several pages: the collection selector, the documents filter and tabs that run only when
open."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from kgcore.api import CollectionManifest

from . import resources_panel as resources
from .errors_panel import reported
from .state_panel import get_state


def open_tab_only(views: dict[str, Callable[[], None]]) -> None:
    """Tabs labelled by ``views``' keys, running only the open tab's view (each under :func:`reported`): Streamlit
    otherwise runs every tab's content on every rerun.  The ``tab`` query parameter names the open tab, so a tab
    can be linked (``?tab=Communities``)."""
    for (name, view), tab in zip(views.items(), st.tabs(list(views), key="tab", bind="query-params")):
        if tab.open:
            with tab, reported(name):
                view()


def pick_collection(key: str) -> str | None:
    """A collection selector; honours ``?doc=`` (or ``?collection=``) in the URL and reports unknown names.

    Returns None (after telling the user what to do) when nothing is indexed.
    """
    state = get_state()
    names = resources.collection_names()
    requested = st.query_params.get("collection") or st.query_params.get("doc")
    if requested and requested not in names:
        with reported("Opening the collection"):
            resources.store().manifest(requested)  # raises kgcore's IndexNotFoundError with the reason
    if not names:
        st.info("No documents are indexed yet. Index the sample book or upload documents on the Library page.",
                icon=":material/inbox:")
        st.page_link("pages/library.py", label="Go to the Library", icon=":material/library_books:")
        return None
    default = requested if requested in names else state.collection if state.collection in names else names[0]
    name = st.selectbox("Collection", names, index=names.index(default), key=key)
    state.remember_collection(name)
    return name


def pick_documents(manifest: CollectionManifest, key: str) -> tuple[str, ...]:
    """A multiselect of the collection's documents (none chosen: all of them); empty for a collection of one."""
    if len(manifest.documents) < 2:
        return ()
    files = {d.doc_id: d.manifest.source_file for d in manifest.documents}
    chosen = st.multiselect(
        "Documents (none: the whole collection)", list(files), key=f"{key}.{manifest.name}",
        format_func=lambda d: f"{d} ({files[d]})" if files[d] else d, placeholder="All documents",
        help="Retrieve only from these documents; leave empty to retrieve from the whole collection",
    )
    return tuple(chosen)
