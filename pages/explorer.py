"""Graph explorer: search nodes, draw a neighbourhood coloured by document, list the entities documents share,
read their sentences, draw a sentence's neighbourhood in the contextual graph, draw the citation graph between
the documents, find which documents cite a work, see statistics, download."""

from __future__ import annotations

import streamlit as st

from kgcore.api import (
    Citation,
    Index,
    collection_citing,
    communities,
    entity_groups,
    entity_of,
    listed_communities,
    type_set_of,
)
from kgcore.api import communities_hidden_note as hidden_note
from kgcore.api import communities_overview_markdown as overview_markdown
from ui import communities_view
from ui import context_panel as context_panels
from ui import resources_panel as resources
from ui.ask_view import grounded_html, node_terms
from ui.boot_panel import ensure_app_navigation
from ui.cites_view import citing_html
from ui.entities_review_view import entity_type_column, keep_entity_type
from ui.errors_panel import reported
from ui.explorer_view import (
    SEARCH_LIMIT,
    colour_by_document,
    document_palette,
    graph_stats,
    search_nodes,
    shared_entities,
    stats_figures,
)
from ui.export_view import graphml_bytes, json_bytes
from ui.graph_html import GraphPage, shown_texts
from ui.graph_panel import graph_frame
from ui.identity_panel import reviewer_sidebar
from ui.markup_html import md_escape
from ui.state_panel import get_state
from ui.subgraph_view import MAX_NODES, neighbourhood, vis_from_graph
from ui.widgets_panel import open_tab_only, pick_collection

COLOUR_CHOICES = {"document": "Document", "type": "Node type"}


@st.cache_data(show_spinner=False, max_entries=8)
def cached_stats(root: str, doc_id: str, stamp: str) -> dict:
    """Statistics of one collection version (``stamp`` changes whenever the collection does)."""
    return graph_stats(resources.get_engine(root).index(doc_id).graph)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_shared(root: str, doc_id: str, stamp: str):
    """The entities shared by several documents of one collection version."""
    index = resources.get_engine(root).index(doc_id)
    return shared_entities(index.graph, index.node_documents)


def pick_node(index: Index) -> tuple[str | None, int, int]:
    state = get_state()
    c_search, c_type, c_depth, c_max = st.columns([3, 1, 1, 1])
    query = c_search.text_input("Search nodes by text", key="explorer.query", placeholder="e.g. McGregor, pie, lost")
    wanted = c_type.selectbox("Entity type", ["", *type_set_of(index).types], key="explorer.entity_type",
                              format_func=lambda t: t or "any node")
    depth = c_depth.slider("Depth", 1, 3, 1, key="explorer.depth")
    max_nodes = c_max.number_input("Max nodes", 10, MAX_NODES, 120, 10, key="explorer.max_nodes")
    table = search_nodes(index.graph, query, limit=len(index.graph.nodes) if wanted else SEARCH_LIMIT)
    if wanted:
        with st.spinner("Typing the collection's entities (once per collection version)…"):
            type_of = {n: g.entity_type for g in entity_groups(index) for n in g.node_ids}
        table = entity_type_column(keep_entity_type(table, type_of, wanted, SEARCH_LIMIT), type_of)
    if table.empty:
        st.warning(f"No node label or text contains “{md_escape(query)}”.", icon=":material/search_off:")
        return None, int(depth), int(max_nodes)
    order = "exact label matches first, then most connected" if query.strip() else "most connected first"
    order += ", pronouns last"
    st.caption(f"{len(table)} node(s){' shown' if len(table) >= 200 else ''} — {order}. "
               "Select a row to draw its neighbourhood.")
    event = st.dataframe(table, hide_index=True, height=220, on_select="rerun", selection_mode="single-row",
                         key=f"explorer.nodes.{query}")
    rows = event.selection.rows if event is not None else []
    listed = list(table["node id"])
    # Without a pick, keep the node chosen on an earlier visit if it is still listed.
    node_id = listed[rows[0]] if rows else state.explorer_node if state.explorer_node in listed else listed[0]
    state.explorer_node = str(node_id)
    return str(node_id), int(depth), int(max_nodes)


def colour_choice(index: Index) -> str:
    """Colour nodes by document (collections of several documents) or by type."""
    if len(index.manifest.documents) < 2:
        return "type"
    return st.radio("Colour nodes by", list(COLOUR_CHOICES), format_func=COLOUR_CHOICES.get, horizontal=True,
                    key="explorer.colour", help="Shape always shows the type: dot = entity, box = action")


def neighbourhood_view(index: Index, doc_id: str, node_id: str, depth: int, max_nodes: int) -> None:
    node = index.graph.nodes[node_id]
    hood = neighbourhood(index.graph, [node_id], depth=depth, max_nodes=max_nodes)
    if hood.truncated:
        st.warning(hood.notice(), icon=":material/speed:")
    nodes, edges = vis_from_graph(index.graph, hood.node_ids, {node_id: "matched"})
    legend: tuple[tuple[str, str], ...] = ()
    if colour_choice(index) == "document":
        nodes, legend = colour_by_document(nodes, index.node_documents, document_palette(index.manifest.doc_ids))
    page = GraphPage(height=560, notice=hood.notice(), sentence_texts=shown_texts(index, nodes, edges),
                     selected=node_id, legend_colors=legend)
    st.markdown(f"**Neighbourhood of {md_escape(node.label)}** ({node.node_type}, depth {depth})")
    entity_id = entity_of(index).get(node_id)
    if entity_id is not None:
        st.page_link("pages/entity.py", label=f"Entity page of {md_escape(node.label)}", icon=":material/badge:",
                     query_params={"doc": doc_id, "entity": entity_id})
    graph_frame(nodes, edges, page, 600, "Neighbourhood graph")
    grounded_sentences(index, doc_id, node_id)


def grounded_sentences(index: Index, doc_id: str, node_id: str) -> None:
    node = index.graph.nodes[node_id]
    documents = index.node_documents.get(node_id, [])
    where = f" of {len(documents)} documents ({md_escape(', '.join(documents))})" if len(documents) > 1 else ""
    st.markdown(f"**{md_escape(node.label)} is grounded in {len(node.grounded_texts)} sentence(s){where}**")
    sentences = [index.sentence(sid) for sid in node.grounded_texts if index.has_sentence(sid)]
    html = grounded_html(sentences, node_terms(index.graph, [node_id]), doc_id)
    st.markdown(f'<div class="kg-scroll">{html}</div>', unsafe_allow_html=True)


def shared_view(root: str, doc_id: str, index: Index) -> None:
    """The entities grounded in more than one document, and a picked one's sentences."""
    if len(index.manifest.documents) < 2:
        st.info("This collection has one document: no entity can be shared. Add documents to it on the Library page.",
                icon=":material/info:")
        return
    table = cached_shared(root, doc_id, index.manifest.stamp)
    if table.empty:
        st.info("No entity is grounded in more than one document of this collection.", icon=":material/info:")
        return
    st.caption(f"{len(table)} entit(y/ies) grounded in more than one document — names are shared across documents, "
               "common nouns and actions stay each document's own. Select a row to read its sentences.")
    event = st.dataframe(table, hide_index=True, height=300, on_select="rerun", selection_mode="single-row",
                         key="explorer.shared")
    rows = event.selection.rows if event is not None else []
    if rows:
        grounded_sentences(index, doc_id, str(table["node id"].iloc[rows[0]]))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_citing(root: str, doc_id: str, stamp: str, query: str) -> list[Citation]:
    """The documents of one collection version citing the work ``query`` names."""
    return collection_citing(resources.get_engine(root).index(doc_id), query)


def who_cites(root: str, doc_id: str, index: Index) -> None:
    """Which documents cite a work (title words, an author, an arXiv id or a DOI), with the sentences citing it."""
    query = st.text_input("Documents citing the work", key="explorer.cites",
                          placeholder="e.g. retrieval augmented generation, Lewis, 2005.11401, 10.18653/v1/…",
                          help="Searches the parsed reference lists of the collection's documents: a title (or "
                               "words of it), an author, an arXiv id or a DOI")
    parsed = sum(d.manifest.ingest.references for d in index.manifest.documents if d.manifest.ingest)
    if not parsed:
        st.info("No document of this collection has a parsed reference list (books, and documents indexed before "
                "layout-aware ingestion, have none).", icon=":material/info:")
    if not query.strip():
        st.caption("Each hit names the citing document, the reference entry that matched and the sentences whose "
                   "citation markers resolved to it.")
        return
    hits = cached_citing(root, doc_id, index.manifest.stamp, query.strip())
    st.markdown(f"**{len(hits)} document(s) cite a work matching “{md_escape(query.strip())}”**")
    text = lambda sid: index.sentence(sid).original if index.has_sentence(sid) else ""  # noqa: E731
    st.markdown(f'<div class="kg-scroll">{citing_html(hits, doc_id, text)}</div>', unsafe_allow_html=True)


def statistics(root: str, doc_id: str, index: Index) -> None:
    stats = cached_stats(root, doc_id, index.manifest.stamp)
    cols = st.columns(5)
    cols[0].metric("Documents", len(index.manifest.documents))
    cols[1].metric("Nodes", len(index.graph.nodes))
    cols[2].metric("Edges", len(index.graph.edges))
    cols[3].metric("Sentences", len(index.sentences))
    cols[4].metric("Words", f"{index.total_words:,}")
    for col, figure in zip(st.columns(2) * 2, stats_figures(stats)):
        col.altair_chart(figure)


def communities_tab(doc_id: str, index: Index) -> None:
    """The hierarchy of communities as a treemap (HTML); one community's title, summary, members and documents."""
    engine = resources.engine()
    with st.spinner("Finding communities and summarising them (once per collection version)…"):
        ci = communities(index, engine.embedder, engine.settings)
    if not ci.summaries:
        st.info("No communities: no entity of this collection is linked to another.", icon=":material/info:")
        return
    h = ci.hierarchy
    listed = listed_communities(ci)
    st.caption(f"{len(listed)} top-level communities ({hidden_note(len(h.at_level(0)) - len(listed))}"
               f"{len(h.communities)} in all over {h.levels} levels "
               f"({h.algorithm}, at most {h.max_cluster_size} entities before a split; modularity "
               f"{h.modularity[0]:.2f}); sized by grounded sentences. Click a box or a title to open that community; "
               "a box too small for its title shows it on hover; every community is in the pickers below the map.")
    params = st.query_params.to_dict()
    st.html(communities_view.treemap_html(ci, link=lambda cid: communities_view.community_address(params, cid)))
    open_linked_community(ci)
    c_top, c_sub = st.columns(2)
    top = c_top.selectbox("Community", communities_view.choices(ci), key=communities_view.COMMUNITY_KEY,
                          format_func=lambda cid: communities_view.community_choice(ci, cid))
    chosen = c_sub.selectbox("Sub-community", communities_view.sub_choices(ci, top),
                             key=f"{communities_view.SUB_KEY}{top}",
                             format_func=lambda cid: "the whole community" if cid == top
                             else communities_view.community_choice(ci, cid))
    summary = ci.summary(chosen)
    st.markdown(f"##### {md_escape(summary.title)}")
    st.html(communities_view.summary_html(summary, lambda sid: index.sentence(sid).original
                                          if index.has_sentence(sid) else ""))
    c_members, c_docs = st.columns([3, 1])
    c_members.dataframe(communities_view.members_rows(ci, chosen, lambda m: index.graph.nodes[m].label,
                                                      lambda m: index.node_documents.get(m, [])),
                        hide_index=True, height=240)
    c_docs.markdown("**Documents**\n\n" + "\n".join(f"- {md_escape(d)}" for d in summary.documents))
    with st.expander("Levels and modularity"):
        st.dataframe(communities_view.statistics_rows(ci), hide_index=True)
    st.download_button("Download the collection overview (markdown)", lambda: overview_markdown(doc_id, ci),
                       file_name=f"{doc_id}.overview.md", mime="text/markdown", icon=":material/download:",
                       key="explorer.overview")


def open_linked_community(ci) -> None:
    """The pickers set to the community a treemap box's link names (``?community=``), once: the parameter is
    removed, so the pickers stay the analyst's afterwards."""
    wanted = st.query_params.get(communities_view.COMMUNITY_PARAM)
    if wanted is None:
        return
    chosen = communities_view.picked(ci, wanted)
    if chosen is not None:
        st.session_state[communities_view.COMMUNITY_KEY] = chosen[0]
        st.session_state[f"{communities_view.SUB_KEY}{chosen[0]}"] = chosen[1]
    else:
        st.caption(f"No listed community {md_escape(wanted)} in this collection version.")
    del st.query_params[communities_view.COMMUNITY_PARAM]


def downloads(doc_id: str, index: Index) -> None:
    st.markdown("The collection's whole grounded graph, with every node's and edge's `grounded_texts` sentence ids.")
    c1, c2 = st.columns(2)
    c1.download_button("Download JSON (node-link)", lambda: json_bytes(index.graph), file_name=f"{doc_id}.graph.json",
                       mime="application/json", icon=":material/download:")
    c2.download_button("Download GraphML", lambda: graphml_bytes(index.graph), file_name=f"{doc_id}.graphml",
                       mime="application/graphml+xml", icon=":material/download:",
                       help="List attributes (texts, grounded_texts) are joined with ' | '")


def main() -> None:
    st.title("Graph explorer")
    doc_id = pick_collection("explorer.doc")
    if doc_id is None:
        return
    root = resources.store_root()
    index = resources.engine().index(doc_id)
    views = {
        "Neighbourhood": lambda: neighbourhood_tab(doc_id, index),
        "Shared entities": lambda: shared_view(root, doc_id, index),
        "Context graph": lambda: context_panels.context_tab(doc_id, index),
        "Citations": lambda: context_panels.citations_tab(root, doc_id, index),
        "Who cites…": lambda: who_cites(root, doc_id, index),
        "Communities": lambda: communities_tab(doc_id, index),
        "Statistics": lambda: statistics(root, doc_id, index),
        "Download": lambda: downloads(doc_id, index),
    }
    # Only the open tab runs: finding the communities of a new version of the 40-document ObliQA collection takes
    # about 100 s, which every visit to any tab waited for while all tabs ran.
    open_tab_only(views)


def neighbourhood_tab(doc_id: str, index: Index) -> None:
    node_id, depth, max_nodes = pick_node(index)
    if node_id:
        neighbourhood_view(index, doc_id, node_id, depth, max_nodes)


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Graph explorer"):
    main()
