"""Streamlit panels of the Graph explorer over the contextual graph: a sentence's neighbourhood ("Context graph")
and the citation graph between a collection's documents ("Citations")."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from kgcore.api import DocumentCitation, context_graph, document_citations

from . import resources_panel as resources
from .context_view import (
    MAX_NEIGHBOURS,
    citation_choice,
    citation_rows,
    citation_vis,
    citing_sentences_html,
    context_legend,
    context_neighbourhood,
    context_vis,
    find_sentences,
    neighbour_rows,
    sentence_choice,
)
from .graph_html import KIND_COLORS, GraphPage, shown_texts
from .graph_panel import graph_frame
from .labels import EDGE_KIND_LABELS
from .markup_html import md_escape
from .state_panel import get_state


def contextual(index):
    """The index's contextual graph (built once per loaded index, kept with it)."""
    with st.spinner("Building the contextual graph…"):
        return context_graph(index)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_citations(root: str, doc_id: str, stamp: str) -> list[DocumentCitation]:
    """The citation graph between the documents of one collection version."""
    index = resources.get_engine(root).index(doc_id)
    return document_citations(index, context_graph(index))


def pick_sentence(index) -> tuple[int | None, int]:
    """A sentence found by id or words (the one opened last on the Sentence page first, when listed), and the most
    neighbours to draw."""
    c_find, c_max = st.columns([4, 1])
    query = c_find.text_input("Find a sentence (id or words)", key="explorer.context.query",
                              placeholder="e.g. text_0-12, pie, McGregor")
    limit = c_max.number_input("Max neighbours", 5, 100, MAX_NEIGHBOURS, 5, key="explorer.context.max")
    rows = find_sentences(index.sentences, query)
    if not rows:
        st.warning(f"No sentence id or text contains “{md_escape(query)}”.", icon=":material/search_off:")
        return None, int(limit)
    last = get_state().sentence_id
    default = next((i for i, r in enumerate(rows) if index.sentences[r].id == last), 0)
    row = st.selectbox("Sentence", rows, index=default, key=f"explorer.context.sentence.{query}",
                       format_func=lambda r: sentence_choice(index.sentences[r]),
                       help=f"{len(rows)} sentence(s) listed (at most 200)")
    return int(row), int(limit)


def context_tab(doc_id: str, index) -> None:
    """A sentence and its heaviest neighbours in the contextual graph, edges coloured by kind."""
    st.caption("The contextual graph links sentences to the next sentence, to their paragraph chunk, to sentences "
               "sharing a rare node or joined by a graph edge, to the parts they cross-reference and the documents "
               "they cite; chunks link to related chunks of other documents. LeSeGR and GroundedKG's fused ranking "
               "propagate relevance along these edges.")
    row, limit = pick_sentence(index)
    if row is None:
        return
    hood = context_neighbourhood(index, contextual(index), row, limit)
    if not hood.total:
        st.info("This sentence has no neighbour in the contextual graph.", icon=":material/info:")
    nodes, edges = context_vis(hood)
    page = GraphPage(height=560, notice=hood.notice(), sentence_texts=shown_texts(index, nodes, edges),
                     selected=hood.nodes[0].name, legend_colors=context_legend(hood))
    st.markdown(f"**Contextual neighbourhood of {md_escape(hood.nodes[0].name)}** ({hood.total} neighbour(s); "
                "boxes are paragraph chunks, named by their first sentence)")
    graph_frame(nodes, edges, page, 600, "Contextual neighbourhood")
    rows = neighbour_rows(hood)
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="explorer.context.table")
    st.caption("Edge kinds: " + " · ".join(f"{k}: {v}" for k, v in EDGE_KIND_LABELS.items()))
    st.page_link("pages/sentence.py", label=f"Open {md_escape(hood.nodes[0].name)} on the Sentence page",
                 icon=":material/notes:", query_params={"doc": doc_id, "sid": hood.nodes[0].name})


def citations_tab(root: str, doc_id: str, index) -> None:
    """The documents as nodes and who cites whom as arrows; a picked pair's citing sentences."""
    if len(index.manifest.documents) < 2:
        st.info("This collection has one document: there is no citation graph between documents. Add papers to it "
                "on the Library page.", icon=":material/info:")
        return
    with st.spinner("Building the contextual graph…"):
        citations = cached_citations(root, doc_id, index.manifest.stamp)
    documents = [(e.doc_id, e.manifest.source_file) for e in index.manifest.documents]
    if not citations:
        st.info("No document of this collection cites another document of it (citations are found in the parsed "
                "reference lists of PDF papers, by title or arXiv id).", icon=":material/info:")
    nodes, edges = citation_vis(documents, citations)
    page = GraphPage(height=420, legend_colors=(("document", KIND_COLORS["document"]),), panel=False)
    st.markdown(f"**Citation graph**: {len(documents)} documents, {len(citations)} citing pair(s); an arrow goes "
                "from the citing document to the cited one, labelled with its number of citing sentences")
    graph_frame(nodes, edges, page, 460, "Citation graph")
    if not citations:
        return
    st.dataframe(pd.DataFrame(citation_rows(citations)), hide_index=True, key="explorer.citations.table")
    chosen = st.selectbox("Citing sentences of", range(len(citations)), key="explorer.citations.pair",
                          format_func=lambda i: citation_choice(citations[i]))
    pair = citations[int(chosen)]
    sentences = [(index.sentences[r].id, index.sentences[r].original) for r in pair.rows]
    st.markdown(f'<div class="kg-scroll">{citing_sentences_html(doc_id, sentences)}</div>', unsafe_allow_html=True)
