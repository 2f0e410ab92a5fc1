"""Sentence view: where one sentence comes from (document, section, role, citations, paragraph, PDF page), its
coreference-resolved form, its parse and the graph built from it."""

from __future__ import annotations

import streamlit as st

from kgcore.api import (
    TABLE,
    Frame,
    Index,
    Paragraph,
    Passage,
    Sentence,
    Settings,
    compare_parses,
    page_regions,
    passage,
    render_page,
    sentence_boxes,
    sentence_pairs,
)
from ui import resources_panel as resources
from ui.boot_panel import ensure_app_navigation
from ui.cites_view import citations_html
from ui.errors_panel import headline, reported
from ui.graph_html import GraphPage, VisEdge, shown_texts
from ui.graph_panel import graph_frame
from ui.identity_panel import reviewer_sidebar
from ui.markup_html import changed_words, esc, md_escape
from ui.qa_pairs_view import frame_groups, sentence_pairs_caption, sentence_pairs_html
from ui.roles_view import legend_html, role_rgba
from ui.sentence_view import edges_table, frames_table, nodes_table
from ui.source_view import (
    caption_table,
    context_html,
    paragraph_counts,
    passage_html,
    role_line,
    role_note,
    source_caption,
    table_html,
)
from ui.state_panel import get_state
from ui.subgraph_view import vis_from_graph, vis_from_sentence_graph
from ui.widgets_panel import pick_collection

SID_KEY = "sentence.sid"
#: The collection the sentence id field was filled for.
FOR_KEY = "sentence.for"


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_analyses(root: str, doc_id: str, stamp: str) -> dict:
    """Per-sentence parser output of one collection version (read once, never copied)."""
    return resources.get_engine(root).index(doc_id).analyses()


@st.cache_data(show_spinner=False, max_entries=32)
def page_image(root: str, collection: str, stamp: str, sentence_id: str,
               roles: bool = False) -> tuple[bytes, int, bool, tuple[str, ...]] | None:
    """The PDF page of a sentence as PNG with the sentence highlighted, its page number, whether it was found and
    the roles outlined; None when the sentence's document is not a kept PDF.  The sentence is highlighted from its
    stored line boxes (older indexes: found by searching the page's text); with ``roles`` every paragraph of the
    page is outlined in its role's colour.  Keyed by the collection's stamp and the sentence."""
    index = resources.get_engine(root).index(collection)
    sentence = index.sentence(sentence_id)
    pdf = index.source_path(sentence.doc_id)
    if pdf is None or pdf.suffix.lower() != ".pdf" or sentence.page < 1:
        return None
    regions = page_regions(index.paragraphs(sentence.doc_id), sentence.page) if roles else []
    image = render_page(pdf, sentence.page, sentence.original, boxes=sentence_boxes(sentence, sentence.page),
                        regions=[(box, role_rgba(role)) for role, box in regions])
    return image.png, sentence.page, image.found, tuple(role for role, _ in regions)


def step(index: Index, delta: int) -> None:
    current = st.session_state.get(SID_KEY, "")
    position = index.sentence_row(current) if index.has_sentence(current) else 0
    st.session_state[SID_KEY] = index.sentences[max(0, min(len(index.sentences) - 1, position + delta))].id


def pick_sentence(index: Index) -> str:
    state = get_state()
    first, last = index.sentences[0].id, index.sentences[-1].id  # read alone: a large collection's are not listed
    if SID_KEY not in st.session_state:
        requested = st.query_params.get("sid")
        st.session_state[SID_KEY] = requested or (state.sentence_id if index.has_sentence(state.sentence_id)
                                                  else first)
    elif (st.session_state.get(FOR_KEY) not in (None, index.collection)
          and not index.has_sentence(st.session_state[SID_KEY])):
        st.session_state[SID_KEY] = first  # another collection was chosen: start at its first sentence
    st.session_state[FOR_KEY] = index.collection
    c_id, c_prev, c_next = st.columns([4, 1, 1], vertical_alignment="bottom")
    sid = c_id.text_input("Sentence id", key=SID_KEY, help=f"From {first} to {last}")
    c_prev.button("Previous", icon=":material/arrow_back:", on_click=step, args=(index, -1), width="stretch")
    c_next.button("Next", icon=":material/arrow_forward:", on_click=step, args=(index, 1), width="stretch")
    state.sentence_id = sid.strip()
    return sid.strip()


def show_source(root: str, name: str, index: Index, sentence: Sentence) -> None:
    """Where the sentence comes from: document, file, section, role, citations, its paragraph (marked; a table as a
    table) and its PDF page."""
    st.subheader("Source")
    where = passage(index, sentence.id)
    st.markdown(source_caption(where, name))
    st.markdown(role_line(sentence.role))
    note = role_note(sentence.role)
    if note:
        st.info(note[1], icon=":material/visibility_off:")
    if sentence.citations:
        st.markdown(f"**Cites {len(sentence.citations)} work(s)** — the reference entries its markers resolved to")
        st.markdown(citations_html(sentence.citations, index.references(sentence.doc_id)), unsafe_allow_html=True)
    paragraphs = index.paragraphs(sentence.doc_id)
    if not paragraphs:
        st.info(f"**{md_escape(sentence.doc_id or name)}** was indexed by kgcore 0.1, which kept no paragraphs: only "
                "the sentence itself is known. Re-index it on the Library page to see its passage.",
                icon=":material/history:")
    else:
        show_passage(where, paragraphs, sentence)
    source = index.source_path(sentence.doc_id)
    if source is not None and source.suffix.lower() == ".pdf" and sentence.page >= 1:
        show_page(root, name, index, sentence, where)


def show_passage(where: Passage, paragraphs: list[Paragraph], sentence: Sentence) -> None:
    """The sentence's paragraph (a table paragraph as a table, a table's caption with its table under it) between
    its neighbours."""
    number = sentence.paragraph
    st.caption(paragraph_counts(paragraphs, sentence.doc_id, number))
    neighbour(paragraphs, number - 1, "Paragraph before", where.before)
    own = paragraphs[number] if 0 <= number < len(paragraphs) else None
    if own is not None and own.kind == TABLE and own.table:
        st.markdown(table_html(own.table, sentence.original), unsafe_allow_html=True)
    else:
        st.markdown(passage_html(where), unsafe_allow_html=True)
        table = caption_table(paragraphs, number)
        if table is not None:
            st.caption("The table this caption introduces:")
            st.markdown(table_html(paragraphs[table].table), unsafe_allow_html=True)
    neighbour(paragraphs, number + 1, "Paragraph after", where.after)


def neighbour(paragraphs: list[Paragraph], number: int, title: str, text: str) -> None:
    if not text:
        return
    paragraph = paragraphs[number] if 0 <= number < len(paragraphs) else None
    with st.expander(title):
        if paragraph is not None and paragraph.kind == TABLE and paragraph.table:
            st.markdown(table_html(paragraph.table), unsafe_allow_html=True)
        else:
            st.markdown(context_html(text), unsafe_allow_html=True)


def show_page(root: str, name: str, index: Index, sentence: Sentence, where: Passage) -> None:
    """The sentence's PDF page, the sentence highlighted; with *Colour by role*, every paragraph outlined."""
    roles = st.toggle("Colour by role", key="sentence.roles",
                      help="Outline every paragraph of the page in its role's colour (body, heading, caption, "
                           "table, footnote, reference …)")
    with reported("Drawing the PDF page"):
        image = page_image(root, name, index.manifest.stamp, sentence.id, roles)
        if image is None:
            return
        png, page, found, outlined = image
        st.image(png, caption=f"Page {page} of {where.source_file}" + ("" if found else
                 " — the sentence was not found in the page's text layer, so nothing is highlighted"))
        if roles and outlined:
            st.markdown(legend_html(outlined), unsafe_allow_html=True)
        elif roles:
            st.caption("No paragraph boxes were stored for this page (re-index the document to colour it by role).")


def show_analysis(analysis: dict) -> None:
    if analysis.get("frames") is not None:
        st.markdown("**SRL frames**")
        st.dataframe(frames_table(analysis["frames"]), hide_index=True)
    if analysis.get("penman"):
        st.markdown("**AMR (PENMAN)**")
        st.code(analysis["penman"], language=None)
    if analysis.get("error"):
        st.warning(f"Parser error: {md_escape(analysis['error'])}", icon=":material/warning:")
    if not analysis:
        st.caption("No parser output was stored for this sentence.")


def show_text(sentence: Sentence) -> None:
    st.markdown(f'<div class="kg-answer"><p>{esc(sentence.original)}</p></div>', unsafe_allow_html=True)
    if sentence.normalized != sentence.original:
        st.caption(f"Normalised: {md_escape(sentence.normalized)}")
    if sentence.resolved != sentence.normalized:
        # Wrapped in a <div> so the sentence is an HTML block: Markdown inside it is never interpreted.
        st.markdown(f'<div><b>Coreference-resolved</b> (changes marked): '
                    f'{changed_words(sentence.normalized, sentence.resolved)}</div>', unsafe_allow_html=True)
    else:
        st.caption("Coreference changed nothing in this sentence.")


def show_graph(index: Index, sid: str) -> None:
    nodes = index.graph.nodes_in_sentence(sid)
    edges = index.graph.edges_in_sentence(sid)
    st.markdown(f"**Graph built from this sentence** — {len(nodes)} node(s), {len(edges)} edge(s)")
    ids = [n.node_id for n in nodes]
    vis_nodes, _ = vis_from_graph(index.graph, ids)
    vis_edges = [VisEdge(e.source, e.target, e.edge_role, tuple(e.grounded_texts)) for e in edges]
    texts = shown_texts(index, vis_nodes, vis_edges)
    graph_frame(vis_nodes, vis_edges, GraphPage(height=380, sentence_texts=texts), 420, "Sentence graph")
    st.dataframe(nodes_table(nodes), hide_index=True)
    if edges:
        st.dataframe(edges_table(edges), hide_index=True)
    else:
        st.caption("No edges are grounded in this sentence.")


def show_qa_pairs(index: Index, sentence: Sentence, analysis: dict) -> None:
    """The question–answer pairs qa-kg generated from this sentence, under the SRL frame each was asked from."""
    with st.spinner("Reading the document's QA pairs (generated from the stored frames on first use)…"):
        pairs = sentence_pairs(index, sentence.id)
    frames = [Frame.from_dict(f) for f in analysis.get("frames") or ()]
    st.caption(md_escape(sentence_pairs_caption(len(pairs), len(frames), sentence.role)))
    st.markdown(sentence_pairs_html(frame_groups(pairs, frames)), unsafe_allow_html=True)


def compare(sentence: Sentence, settings: Settings) -> None:
    ok, reason = resources.amr_status(settings.amr_model)
    if not ok:
        st.caption(f":material/block: SRL vs AMR comparison unavailable — {md_escape(headline(reason))}")
        with st.expander("How to enable AMR"):
            st.caption(md_escape(reason))
        return
    if not st.button("Parse with SRL and AMR side by side", icon=":material/compare:"):
        return
    engine = resources.query_engine()
    with st.spinner("Parsing with both parsers…"):
        parses = compare_parses(sentence.resolved, engine.parser("srl"), engine.parser("amr"))
    for col, name in zip(st.columns(2), ("srl", "amr")):
        with col:
            st.markdown(f"**{name.upper()}**")
            graph = parses.get(name)
            if name in parses.get("errors", {}):
                st.warning(md_escape(parses["errors"][name]), icon=":material/warning:")
            if graph is not None:
                nodes, edges = vis_from_sentence_graph(graph)
                graph_frame(nodes, edges, GraphPage(height=300, panel=False), 340, f"{name} parse")
                show_analysis(graph.analysis)


def main() -> None:
    st.title("Sentence")
    name = pick_collection("sentence.doc")
    if name is None:
        return
    root = resources.store_root()
    index = resources.engine().index(name)
    sid = pick_sentence(index)
    sentence = index.sentence(sid)  # an unknown id raises kgcore's InputError naming it
    show_source(root, name, index, sentence)
    st.subheader("Text and coreference")
    show_text(sentence)
    analysis = cached_analyses(root, name, index.manifest.stamp).get(sid, {})
    col_parse, col_graph = st.columns([2, 3])
    with col_parse:
        st.subheader("Parser output")
        show_analysis(analysis)
    with col_graph:
        st.subheader("Nodes and edges")
        show_graph(index, sid)
    st.subheader("QA pairs from this sentence")
    with reported("QA pairs"):
        show_qa_pairs(index, sentence, analysis)
    st.subheader("SRL vs AMR")
    compare(sentence, resources.settings())


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Sentence view"):
    main()
