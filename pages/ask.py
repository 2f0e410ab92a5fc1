"""Ask: question a collection (or some of its documents) and audit the answer against its grounded evidence."""

from __future__ import annotations

import threading
from dataclasses import replace

import streamlit as st

from kgcore.api import (
    ANSWERERS,
    METHODS,
    RANKINGS,
    CollectionManifest,
    Index,
    RetrievalOptions,
    Settings,
    default_answerer,
    result_to_json,
)
from ui import ask_panel as panels
from ui import communities_view
from ui import labelling_panel as labelling
from ui import resources_panel as resources
from ui.ask_script_html import ask_script_html
from ui.boot_panel import ensure_app_navigation
from ui.errors_panel import reported
from ui.identity_panel import reviewer_sidebar
from ui.labels import METHOD_LABELS, RANKING_LABELS
from ui.markup_html import md_escape
from ui.state_panel import AskOutcome, AskRun, get_state
from ui.widgets_panel import pick_collection, pick_documents

QUESTION_KEY = "ask.question"
EXAMPLE_KEY = "ask.example"


def use_example() -> None:
    if st.session_state.get(EXAMPLE_KEY):
        st.session_state[QUESTION_KEY] = st.session_state[EXAMPLE_KEY]


def retrieval_options(settings: Settings) -> RetrievalOptions:
    with st.expander("Retrieval settings", icon=":material/tune:"):
        c1, c2, c3 = st.columns(3)
        k = c1.slider("K (matches per query node / top sentences)", 1, 50, 10, key="ask.k")
        min_count = c1.number_input("Min retrieval count", 1, 20, 1, key="ask.min_count",
                                    help="Keep a sentence only if at least this many matched nodes are grounded in it")
        use_tau = c2.toggle("Similarity filter τ", key="ask.use_tau",
                            help="Drop sentences whose cosine to the question is below τ")
        tau = c2.slider("τ", -1.0, 1.0, 0.2, 0.05, key="ask.tau", disabled=not use_tau)
        words = c3.number_input("Budget (words, 0 = none)", 0, 200_000, min(settings.budget_words, 200_000), 100,
                                key="ask.budget_words")
        sentences = c3.number_input("Budget (sentences, 0 = none)", 0, 10_000, 0, 5, key="ask.budget_sentences")
    return RetrievalOptions(k=int(k), tau=float(tau) if use_tau else None, min_count=int(min_count),
                            budget_words=int(words), budget_sentences=int(sentences))


def controls(manifest: CollectionManifest, settings: Settings) -> tuple[RetrievalOptions, str, str | None]:
    documents = pick_documents(manifest, "ask.documents")
    c_method, c_ranking, c_answerer = st.columns(3)
    c_front, c_compare, c_other = st.columns([1, 1, 2], vertical_alignment="center")  # full labels, not "Inclu…"
    front_matter = c_front.toggle("Include front matter", key="ask.front_matter",
                                  help="Title pages, contents and headings are kept out of retrieval unless this is on")
    method = c_method.selectbox("Method", list(METHODS), format_func=METHOD_LABELS.get, key="ask.method")
    ranking = c_ranking.selectbox("GroundedKG ranking", RANKINGS, format_func=RANKING_LABELS.get, key="ask.ranking",
                                  disabled=method != "groundedkg",
                                  help="How GroundedKG ranks its sentences under a budget: fused (alignment, BM25 "
                                       "and dense relevance propagated over the contextual graph) or the earlier "
                                       "hand-weighted graph score. Without a budget it returns the plain union.")
    default = default_answerer(settings)
    answerers = list(ANSWERERS)
    answerer = c_answerer.selectbox("Answerer", answerers, index=answerers.index(default), key="ask.answerer")
    compare = c_compare.toggle("Compare methods", key="ask.compare")
    other = None
    if compare:
        others = [m for m in METHODS if m != method]
        other = c_other.selectbox("Compare with", others, index=others.index("dense") if "dense" in others else 0,
                                  format_func=METHOD_LABELS.get, key="ask.other")
    if not settings.openai_configured:
        offline_note(answerer)
    options = retrieval_options(settings)
    chosen = replace(options, method=method, documents=documents, front_matter=front_matter, ranking=ranking)
    return chosen, answerer, other


def offline_note(answerer: str) -> None:
    """Which offline answerer answers, when no OpenAI-compatible endpoint is configured."""
    how = ("**offline qa-kg answerer**: short answers ranked from the question–answer pairs generated from the "
           "retrieved sentences' frames" if answerer == "qa-kg" else
           "**offline extractive answerer**: it quotes the best supporting span of the retrieved sentences")
    st.info(f"Answers come from the {how}. No OpenAI-compatible endpoint is configured (set KGCORE_OPENAI_BASE_URL "
            "and KGCORE_OPENAI_MODEL to use one).", icon=":material/offline_bolt:")


def ask(doc_id: str, question: str, options: RetrievalOptions, answerer: str, other: str | None) -> None:
    state = get_state()
    state.ask = None  # an error must not leave the previous answer on screen as if it answered this question
    engine = resources.query_engine()  # waits for the models the background warm-up is loading
    with st.spinner("Retrieving and answering…"), resources.answering():
        result, answer = engine.ask(doc_id, question, options, answerer)
        second = engine.ask(doc_id, question, replace(options, method=other), answerer) if other else None
    state.asked += 1
    state.ask = AskOutcome(doc_id, question, AskRun(result, answer), AskRun(*second) if second else None, state.asked)


def show(outcome: AskOutcome) -> None:
    index = resources.engine().index(outcome.doc_id)
    # citation markers pin their sentence; a new question's sentence list starts at the top
    st.html(ask_script_html(outcome.run_id), unsafe_allow_javascript=True)
    st.markdown(f"#### {md_escape(outcome.question)}")
    panels.scope_caption(outcome.main, index)
    if outcome.other is not None:
        panels.compare_panels(outcome, index, panels.sentence_order())
        for col, run in zip(st.columns(2), (outcome.main, outcome.other)):
            with col:
                summaries_panel(run, index)
    else:
        main = outcome.main
        panels.metrics(main, index)
        node_id = panels.selected_node(outcome, index)
        view = panels.focus(main, index, node_id)
        col_answer, col_sentences = st.columns([2, 3])
        with col_answer:
            st.subheader("Answer")
            panels.answer_panel(main)
            panels.download(main, result_to_json)
            audit_panel(main, index)
        with col_sentences:
            st.subheader(f"Grounded sentences ({len(main.result.sentences)})")
            view.order = panels.sentence_order()
            panels.sentences_panel(main, index, outcome.doc_id, view)
            summaries_panel(main, index)
    col_query, col_matches = st.columns([2, 3])
    with col_query:
        st.subheader("Query graph")
        panels.query_graph_panel(outcome.main)
    with col_matches:
        st.subheader("Matched nodes")
        panels.matches_panel(outcome, index)
    panels.subgraph_panel(outcome, index, panels.selected_node(outcome, index))


def summaries_panel(run: AskRun, index: Index) -> None:
    """``community`` / ``hybrid-summaries``: each community summary in the context, its sentences expandable."""
    if not run.result.summaries:
        return
    st.subheader(f"Community summaries in the context ({len(run.result.summaries)})")
    st.caption("Each summary enters the context as the source sentences below it; the answer cites those ids.")
    for summary in run.result.summaries:
        with st.expander(communities_view.unit_header(summary)):
            st.html(communities_view.unit_html(summary, lambda sid: index.sentence(sid).original))


def audit_panel(run: AskRun, index: Index) -> None:
    """Label this answer (type I / II / III / correct), diagnose it against gold answers, mark missing sentences."""
    st.subheader("Audit")
    with reported("Labelling"):
        db = labelling.audit_db()
        record_id = labelling.record_for(db, run.result, run.answer, index)
        st.caption(f"Audit record #{record_id}")
        labelling.render_label_controls(db, record_id, run.result, run.answer, index, labelling.current_author())


def main() -> None:
    st.title("Ask")
    settings = resources.settings()
    name = pick_collection("ask.doc")
    if name is None:
        return
    manifest = resources.store().manifest(name)
    options, answerer, other = controls(manifest, settings)
    preparing = resources.prepare_collection(manifest, options, answerer)
    if other:  # the compared method's structures too (its own thread; the index is loaded once)
        resources.prepare_collection(manifest, replace(options, method=other), answerer)
    views = resources.prepare_views_of(manifest, preparing)
    if views.is_alive():
        with st.sidebar:
            panels.views_status(views)
    question_panel(name, manifest.doc_ids, options, answerer, other, preparing)


@st.fragment
def question_panel(name: str, doc_ids: tuple[str, ...], options: RetrievalOptions, answerer: str, other: str | None,
                   preparing: threading.Thread) -> None:
    """The question and everything drawn from its answer: asking (or picking a row, a sentence order, a label)
    re-runs only this part, not the page's title, the collection's controls or the sidebar."""
    examples = resources.sample_questions() if resources.SAMPLE_DOC_ID in doc_ids else []
    cols = st.columns([4, 2, 1] if examples else [6, 1], vertical_alignment="bottom")
    question = cols[0].text_input("Question", key=QUESTION_KEY,
                                  placeholder="e.g. What happened to the young rabbits' father?")
    if examples:
        cols[1].selectbox("Example questions", examples, index=None, placeholder="Pick an example…",
                          key=EXAMPLE_KEY, on_change=use_example)
    if cols[-1].button("Ask", type="primary", icon=":material/send:", key="ask.go", width="stretch"):
        with reported("Answering the question"):
            ask(name, question, options, answerer, other)  # waits for the preparation: no status after it
    elif preparing.is_alive():
        panels.preparing_status(preparing)
    outcome = get_state().ask
    if outcome is not None and outcome.doc_id == name:
        with reported("Showing the answer"):
            show(outcome)

ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Ask"):
    main()
