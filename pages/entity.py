"""Entity page: one entity of a collection (``?doc=COLLECTION&entity=ID``, or picked from a search): its name,
type with confidence, aliases with the rule that merged each, grounded description with its cited sentences, the
documents it appears in and its neighbours; and the collection's structured overview as markdown."""

from __future__ import annotations

import streamlit as st

from kgcore.api import (
    DESCRIPTIONS,
    MAX_NEIGHBOURS,
    EntityGroup,
    Index,
    collection_overview,
    entity_description,
    entity_groups,
    entity_neighbours,
    grounding_pairs_graph,
)
from kgcore.api import entities_overview_markdown as overview_markdown
from ui import resources_panel as resources
from ui.boot_panel import ensure_app_navigation
from ui.entity_view import (
    aliases_table,
    description_html,
    descriptions_caption,
    documents_table,
    entity_label,
    header_html,
    neighbours_html,
    search_entities,
)
from ui.errors_panel import reported
from ui.identity_panel import reviewer_sidebar
from ui.labels import distinct_labels
from ui.markup_html import md_escape
from ui.qa_pairs_view import MAX_ENTITY_PAIRS, entity_pairs, entity_pairs_caption, entity_pairs_html
from ui.widgets_panel import open_tab_only, pick_collection


def pick_entity(index: Index, groups: tuple[EntityGroup, ...]) -> EntityGroup | None:
    """The entity of ``?entity=`` when it is one of the collection's, else the one picked from a search."""
    by_id = {g.entity_id: g for g in groups}
    requested = st.query_params.get("entity")
    if requested and requested not in by_id:
        st.warning(f"No entity {md_escape(requested)!s} in this collection; pick one below.",
                   icon=":material/search_off:")
    c_query, c_type = st.columns([3, 1])
    query = c_query.text_input("Search entities by name or alias", key="entity.query",
                               placeholder="e.g. McGregor, retrieval-augmented generation")
    types = sorted({g.entity_type for g in groups})
    entity_type = c_type.selectbox("Type", ["", *types], key="entity.type", format_func=lambda t: t or "any type")
    found = search_entities(groups, query, entity_type)
    if requested in by_id and by_id[requested] not in found:
        found = [by_id[requested], *found]
    if not found:
        st.info(f"No entity matches “{md_escape(query)}”.", icon=":material/search_off:")
        return None
    default = next((i for i, g in enumerate(found) if g.entity_id == requested), 0)
    labels = distinct_labels([entity_label(g) for g in found])  # one "fisherman" per document
    chosen = st.selectbox("Entity", range(len(found)), index=default, key=f"entity.pick.{query}.{entity_type}",
                          format_func=lambda i: labels[i])
    return found[int(chosen)]


def neighbour_rows(index: Index, g: EntityGroup) -> list[tuple[EntityGroup, int, str | None]]:
    """The entities sharing the most actions with ``g``, with a sentence joining each; none that says nothing
    (pronouns, numbers, quantities, section numbers, generic nouns: :func:`kgcore.api.entity_neighbours`)."""
    return [(n.group, n.shared, n.sentence) for n in entity_neighbours(index, g.entity_id, MAX_NEIGHBOURS)]


def entity_view(doc_id: str, index: Index, g: EntityGroup) -> None:
    engine = resources.engine()
    text_of = lambda sid: index.sentence(sid).original if index.has_sentence(sid) else ""  # noqa: E731
    st.markdown(header_html(g), unsafe_allow_html=True)
    st.markdown("**Description**")
    description = entity_description(index, g, engine.embedder, engine.settings)
    st.markdown(description_html(description, doc_id, text_of), unsafe_allow_html=True)
    found = index.cache.peek(DESCRIPTIONS)
    st.caption(descriptions_caption(found.built, found.reused, found.loaded, found.seconds) if found is not None
               else "Described on its own; the collection's descriptions are built in full when the entities "
                    "method or the overview first needs them.")
    # Only the open tab runs: the pairs of a hub entity's many documents are generated from their frames on first
    # use (ObliQA's Authorised Person, 23 of 40 rulebooks: about 14 s), which a visit for its aliases need not wait.
    open_tab_only({"Aliases, documents and neighbours": lambda: relations_section(doc_id, index, g, text_of),
                   "QA pairs": lambda: qa_pairs_section(doc_id, index, g)})


def relations_section(doc_id: str, index: Index, g: EntityGroup, text_of) -> None:
    """The entity's aliases (with the rule that merged each), its documents and its neighbours."""
    c_alias, c_docs = st.columns(2)
    c_alias.markdown("**Aliases** (the rule that merged each)")
    c_alias.dataframe(aliases_table(g), hide_index=True)
    c_docs.markdown("**Documents**")
    files = {d.doc_id: d.manifest.source_file for d in index.manifest.documents}
    c_docs.dataframe(documents_table(g, files, lambda sid: index.sentence(sid).doc_id if index.has_sentence(sid)
                                     else sid.split("/", 1)[0]), hide_index=True)
    st.markdown("**Neighbours** (entities filling roles of the same actions)")
    st.markdown(neighbours_html(neighbour_rows(index, g), doc_id, text_of), unsafe_allow_html=True)


def qa_pairs_section(doc_id: str, index: Index, g: EntityGroup) -> None:
    """The generated question–answer pairs whose question or answer mentions the entity (via the QA graph's links)."""
    st.markdown("**QA pairs about this entity** (generated questions whose question or answer mentions it)")
    with st.spinner("Reading the QA pairs of its documents (generated from the stored frames on first use)…"):
        graph = grounding_pairs_graph(index, g.grounded_texts)
    rows = [(graph.pairs[i], side) for i, side in entity_pairs(graph, g.node_ids)]
    terms = list(dict.fromkeys([g.name, *(a.name for a in g.aliases)]))
    st.caption(md_escape(entity_pairs_caption(len(rows), MAX_ENTITY_PAIRS)))
    st.markdown(entity_pairs_html(rows, doc_id, terms), unsafe_allow_html=True)


def overview_download(doc_id: str, index: Index) -> None:
    engine = resources.engine()

    def markdown() -> bytes:
        return overview_markdown(collection_overview(index, engine.embedder, engine.settings)).encode("utf-8")

    st.download_button("Download the collection overview (markdown)", markdown, file_name=f"{doc_id}.overview.md",
                       mime="text/markdown", icon=":material/download:", key="entity.overview",
                       help="Central entities by PageRank, their neighbourhoods and subtopics; every statement "
                            "cites its sentence ids")


def main() -> None:
    st.title("Entity")
    doc_id = pick_collection("entity.doc")
    if doc_id is None:
        return
    index = resources.engine().index(doc_id)
    groups = entity_groups(index)
    if not groups:
        st.info("This collection has no entities.", icon=":material/info:")
        return
    overview_download(doc_id, index)
    g = pick_entity(index, groups)
    if g is not None:
        entity_view(doc_id, index, g)


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Entity"):
    main()
