"""Streamlit panels of the Ask page: metrics, sentences, answer, matches, graphs."""

from __future__ import annotations

import json
import threading

import pandas as pd
import streamlit as st

from kgcore.api import GRAPH_HEAD_WORDS

from .answer_graph_view import CAP, about_light_verbs, answer_seeds, collapse_light, shown_matches
from .ask_view import (
    SentenceView,
    answer_html,
    cited_ids,
    context_stats,
    matches_rows,
    node_terms,
    numbering,
    overlap,
    query_node_rows,
    sentence_marks,
    sentences_html,
    share_scope,
    whole_text_note,
)
from .cites_view import context_roles
from .graph_html import GraphPage, VisEdge, shown_texts
from .graph_panel import graph_frame
from .labels import METHOD_LABELS, ORDER_LABELS, RANKING_LABELS
from .markup_html import md_escape
from .qa_view import (
    distinct_answers,
    is_no_answer,
    no_answer_text,
    ranked_pairs_html,
    retrieval_answers_caption,
    short_answers_caption,
    short_answers_html,
)
from .signals_view import ASKED_HELP, PATH_HELP, SIGNALS, STAGES, has_signals, signal_rows, signals_html
from .state_panel import AskOutcome, AskRun
from .subgraph_view import (
    JOIN_HOPS,
    joining_paths,
    neighbourhood,
    query_graph_dot,
    vis_from_graph,
    vis_from_sentence_graph,
)
from .verdict_view import alternatives_html, verdict_html

TIMING_KEYS = ("parse", "embed", "match", "select", "answer")
#: The fewest matched nodes the answer subgraph starts from (the cited ones first).
MIN_SEEDS = 5


@st.fragment(run_every=1.0)
def preparing_status(preparing: threading.Thread) -> None:
    """What the collection waits for, redrawn each second while it is prepared; when it is ready the page runs
    again once, without this line (it never stays under an answer)."""
    if preparing.is_alive():
        st.caption(":material/hourglass_top: <span class=\"kg-preparing\">Preparing this collection for questions "
                   "in the background</span> (loading it and building its retrieval structures); a question asked "
                   "now waits for it.", unsafe_allow_html=True)
    else:
        st.rerun(scope="app")


@st.fragment(run_every=2.0)
def views_status(views) -> None:
    """The sidebar line saying which of the collection's views is being prepared for the other pages; when all are
    ready the page runs again once, without it."""
    if views.is_alive():
        st.caption(f":material/hourglass_top: <span class=\"kg-preparing\">Preparing **{md_escape(views.name)}** "
                   f"for the other pages</span>: {md_escape(views.step)}…", unsafe_allow_html=True)
    else:
        st.rerun(scope="app")


def metrics(run: AskRun, index, compact: bool = False) -> None:
    """Context size and timings, always shown (two rows of three when ``compact``)."""
    documents = {d.doc_id: d.manifest.counts.words for d in index.manifest.documents}
    scope, total_words = share_scope(documents, run.result.settings.get("documents") or [], index.total_words)
    stats = context_stats(run.result, total_words)
    timings = run.result.timings_ms
    cols = st.columns(3) + st.columns(3) if compact else st.columns(6)
    cols[0].metric("Context sentences", stats["sentences"])
    cols[1].metric("Context words", f"{stats['words']:,}")
    cols[2].metric(f"Share of {scope}", f"{stats['share']:.1f} %", help=f"Context words out of the {total_words:,} "
                   f"words of the {scope}")
    cols[3].metric("Candidates", stats["candidates"], help="Sentences the method considered before filters and budget")
    cols[4].metric("Retrieval", f"{timings.get('retrieval', 0):.0f} ms")
    cols[5].metric("Answer", f"{timings.get('answer', 0):.0f} ms")
    steps = " · ".join(f"{k} {timings[k]:.0f} ms" for k in TIMING_KEYS if k in timings)
    st.caption(f"{method_name(run)} — {steps}")
    if note := whole_text_note(run.result.settings.get("budget_words"), total_words, scope):
        st.caption(f":material/info: {note}")


def method_name(run: AskRun) -> str:
    """The method's name, with GroundedKG's ranking when it ranked (the ranking applies under a budget)."""
    method = run.result.method
    ranking = run.result.settings.get("ranking")
    name = METHOD_LABELS.get(method, method)
    return f"{name} · ranking: {RANKING_LABELS.get(ranking, ranking)}" if method == "groundedkg" and ranking else name


def notes(run: AskRun) -> None:
    for note in list(run.result.notes) + list(getattr(run.answer, "notes", []) or []):
        st.caption(f":material/info: {md_escape(note)}")


def answer_panel(run: AskRun, anchor_prefix: str = "s") -> None:
    st.markdown(answer_html(run.answer, numbering(run.result.sentences), anchor_prefix), unsafe_allow_html=True)
    model = f" · {run.answer.model}" if run.answer.model else ""
    st.caption(f"Answerer: {md_escape(run.answer.generator)}{md_escape(model)} · "
               f"{len(run.answer.citations)} cited claim(s)")
    support_note(run, anchor_prefix)
    short_answers_panel(run, anchor_prefix)
    notes(run)


def short_answers_panel(run: AskRun, anchor_prefix: str = "s") -> None:
    """The ``qa-kg`` answerer's ranked short answers (for another answerer, the best distinct answers of the ``qa-kg``
    retrieval's pairs), each with its supporting sentences and why it ranked; "No answer found" said plainly."""
    answer, result = run.answer, run.result
    if answer.generator != "qa-kg" and not result.qa_pairs:
        return
    st.markdown("**Short answers**")
    if answer.generator == "qa-kg":
        if is_no_answer(answer):
            st.warning(md_escape(no_answer_text(answer)), icon=":material/search_off:")
        st.caption(md_escape(short_answers_caption(answer)))
        items, confidence = answer.short_answers, True
    else:
        st.caption(md_escape(retrieval_answers_caption(answer)))
        items, confidence = distinct_answers(result.qa_pairs), False
    html = short_answers_html(items, result.collection, numbering(result.sentences), anchor_prefix, confidence)
    st.markdown(html, unsafe_allow_html=True)


def qa_pairs_panel(run: AskRun, prefix: str = "s") -> None:
    """``qa-kg`` retrieval: the ranked question–answer pairs behind the context, each with why it ranked."""
    pairs = run.result.qa_pairs
    if not pairs:
        return
    with st.expander(f"Why these sentences ranked (the {len(pairs)} best QA pairs)", icon=":material/quiz:"):
        st.caption("qa-kg matched the question against generated question–answer pairs and reranked them; the context "
                   "is the pairs' grounding sentences in this order (then the rest by similarity, up to the budget).")
        st.markdown(ranked_pairs_html(pairs, run.result.collection, numbering(run.result.sentences), prefix),
                    unsafe_allow_html=True)


def support_note(run: AskRun, anchor_prefix: str = "s") -> None:
    """The verdict: its state and reason in a box of its colour, then the evidence it checked (which cited
    sentence, the question's words found there, the answer-type span), claim by claim."""
    verdict = run.answer.verdict
    if verdict is None:
        if run.answer.supported is False:  # a stored answer from before verdicts
            st.warning(md_escape(run.answer.support_reason or "Not supported by the document."),
                       icon=":material/report:")
        elif run.answer.supported:
            st.caption(md_escape(run.answer.support_reason))
        return
    box = {"supported": st.success, "not supported": st.warning, "unsure": st.info}[verdict.state]
    icon = {"supported": ":material/verified:", "not supported": ":material/report:",
            "unsure": ":material/help:"}[verdict.state]
    box(md_escape(verdict.reason), icon=icon)
    if verdict.state == "supported":  # green is the app's own reading, and it can be wrong
        st.caption("The app's own check of the cited sentence (its words, the answer's kind, who did what), not a "
                   "proof: read the sentence before you rely on it.")
    html = verdict_html(verdict, numbering(run.result.sentences), anchor_prefix)
    if html:
        with st.expander("Evidence behind the verdict", expanded=verdict.state != "supported",
                         icon=":material/fact_check:"):
            st.markdown(html, unsafe_allow_html=True)
    others = alternatives_html(verdict.alternatives, numbering(run.result.sentences), anchor_prefix)
    if others:
        with st.expander(f"Next best sentences ({len(verdict.alternatives)})",
                         expanded=verdict.state == "not supported", icon=":material/format_list_numbered:"):
            st.caption("The sentences the answer pick ranked next, with what it would have quoted. When the answer "
                       "is wrong and one of these answers the question, the retrieval found it: the error is answer "
                       "generation (III).")
            st.markdown(others, unsafe_allow_html=True)


def sentence_order(key: str = "ask.order") -> str:
    """The "Rank order" (the default) / "Reading order" choice for the sentence list; either opens scrolled to the
    first sentence the answer cites."""
    orders = ["rank", "reading"]
    return st.radio("List sentences in", orders, format_func=ORDER_LABELS.get, horizontal=True, key=key,
                    help="Rank order: best first, as the method ranked them. Reading order: as in the documents, "
                         "one document after another. The list opens at the first sentence the answer cites.")


def sentences_panel(run: AskRun, index, doc_id: str, view: SentenceView) -> None:
    view.marks = sentence_marks(index.graph, run.result)
    view.doc_id = doc_id
    view.query_labels = {n.key: n.label for n in run.result.query_graph.nodes} if run.result.query_graph else {}
    view.cited = cited_ids(run.answer)
    view.headings = len(index.manifest.documents) > 1
    view.roles = context_roles(index, run.result.sentence_ids)
    view.extras = {s.id: signals_html(s.signals, doc_id) for s in run.result.sentences if s.signals}
    html = sentences_html(run.result.sentences, view=view)
    st.markdown(f'<div class="kg-scroll">{html}</div>', unsafe_allow_html=True)
    st.caption("Click a sentence id to open its source passage (and, for a PDF, its page) with its parse.")
    signals_panel(run)
    qa_pairs_panel(run, view.anchor_prefix)


def signals_panel(run: AskRun) -> None:
    """The signal breakdown of every context sentence, best first (rankings over the contextual graph only)."""
    if not has_signals(run.result.sentences):
        return
    with st.expander("Why these sentences ranked (signals)", icon=":material/insights:"):
        st.caption("Each sentence's own relevance (lexical + dense + graph alignment), what its neighbours in the "
                   "contextual graph added (propagated), and the neighbours that sent it the most. Under a budget over "
                   f"{GRAPH_HEAD_WORDS:,} words, sentences past the first {GRAPH_HEAD_WORDS:,} are ranked by "
                   "lexical + dense relevance alone (stage \"text\").")
        number = {key: st.column_config.NumberColumn(key, help=meaning, format="%.3f")
                  for key, meaning in SIGNALS.items()}
        st.dataframe(pd.DataFrame(signal_rows(run.result.sentences)), hide_index=True,
                     column_config={**number, "score": st.column_config.NumberColumn("score", format="%.3f"),
                                    "stage": st.column_config.TextColumn("stage", help="; ".join(
                                        f"{k}: {v}" for k, v in STAGES.items())),
                                    "path": st.column_config.TextColumn("walk", help=PATH_HELP),
                                    "asked": st.column_config.TextColumn("asked kind", help=ASKED_HELP),
                                    "from": st.column_config.TextColumn("propagated from")})


def listed_matches(run: AskRun, index) -> list:
    """The matches the page lists and draws: light verbs left out unless the question is about one."""
    return shown_matches(run.result.matches, index.graph, about_light_verbs(run.result.query_graph))


def selected_node(outcome: AskOutcome, index) -> str | None:
    """The matched node picked in the matches table (read before the table is drawn)."""
    event = st.session_state.get(matches_key(outcome))
    rows = []
    if event is not None:
        selection = event.get("selection", {}) if isinstance(event, dict) else getattr(event, "selection", {})
        rows = selection.get("rows", []) if isinstance(selection, dict) else getattr(selection, "rows", [])
    matches = listed_matches(outcome.main, index)
    return matches[rows[0]].node_id if rows and rows[0] < len(matches) else None


def matches_key(outcome: AskOutcome) -> str:
    # A new question gets a new key, so an old row selection never points into new matches.
    return f"ask.matches.{outcome.run_id}"


def matches_panel(outcome: AskOutcome, index) -> None:
    listed = listed_matches(outcome.main, index)
    rows = matches_rows(outcome.main.result, index.graph, listed)
    if not rows:
        st.caption("This method does not match graph nodes." if not outcome.main.result.matches else
                   "Only light verbs (be, have, use, make ...) matched: they are not listed.")
        return
    st.dataframe(
        pd.DataFrame(rows), key=matches_key(outcome), on_select="rerun", selection_mode="single-row",
        hide_index=True, height=360,
        column_config={
            "score": st.column_config.ProgressColumn("score", min_value=0.0, max_value=1.0, format="%.3f"),
            "sentences": st.column_config.NumberColumn("sentences", help="Sentences the node is grounded in"),
        },
    )
    hidden = len(outcome.main.result.matches) - len(listed)
    light = f" {hidden} match(es) of light verbs (be, have, use, make ...) are not listed." if hidden else ""
    st.caption(f"Select a row to highlight that node in the sentences and in the graph below.{light}")


def query_graph_panel(run: AskRun) -> None:
    graph = run.result.query_graph
    if graph is None:
        st.caption(f"The {run.result.method} method does not build a query graph.")
        return
    nodes, edges = vis_from_sentence_graph(graph)
    st.graphviz_chart(query_graph_dot(nodes, edges), width="stretch", alt="Query graph")
    st.caption("Blue: entities · orange boxes: actions · grey diamond: the asked-for slot (never matched)")
    st.dataframe(pd.DataFrame(query_node_rows(run.result)), hide_index=True)


def subgraph_panel(outcome: AskOutcome, index, selected: str | None) -> None:
    """The part of the graph the answer used: the matches grounding the cited sentences joined by their shortest
    paths, at most :data:`CAP` nodes, :data:`CAP` more (and the other matches) per "show more"; widened on demand
    to their neighbourhood."""
    run, graph = outcome.main, index.graph
    keep_light = about_light_verbs(run.result.query_graph)
    cited, others = answer_seeds(listed_matches(run, index), graph, cited_ids(run.answer))
    what = "matched nodes grounding the cited sentences" if cited else "matched nodes"
    if not cited and not others:
        others = [n.node_id for sid in run.result.sentence_ids for n in graph.nodes_in_sentence(sid)]
        what = "nodes of the context sentences"
    if not cited and not others:
        st.caption("No graph nodes to show for this context.")
        return
    st.subheader("Answer subgraph")
    more_key = f"ask.subgraph.more.{outcome.run_id}"
    cap = CAP * (1 + int(st.session_state.get(more_key, 0)))
    # a cited sentence or two may ground a single match: the best other matches join it, so paths can be drawn
    seeds = list(dict.fromkeys(cited + others[: max(MIN_SEEDS - len(cited), 0) + (cap // 4 if cap > CAP else 0)]))
    c_widen, c_depth, c_more = st.columns([1, 1, 2], vertical_alignment="center")
    widen = c_widen.toggle("+ 1-hop neighbours", key="ask.subgraph.widen",
                           help="Also draw the neighbours of these nodes (the whole neighbourhood: can be large)")
    depth = c_depth.slider("Neighbour depth", 1, 3, 1, key="ask.subgraph.depth", disabled=not widen)
    joined = joining_paths(graph, seeds, max_nodes=cap)
    node_ids = joined.node_ids
    if widen:
        node_ids = neighbourhood(graph, joined.node_ids, depth=int(depth), max_nodes=cap).node_ids
    node_ids, verbs = collapse_light(graph, node_ids, keep=node_ids if keep_light else ())
    total = max(joined.total, len(node_ids))
    if total > len(node_ids) or len(seeds) < len(cited) + len(others):
        c_more.button(f"Show more (up to {cap + CAP} nodes)", key=f"ask.subgraph.more_button.{outcome.run_id}",
                      icon=":material/unfold_more:", on_click=_more, args=(more_key,))
    emphasis = dict.fromkeys(joined.node_ids[:joined.seeds], "matched")
    nodes, edges = vis_from_graph(graph, node_ids, emphasis)
    edges += [VisEdge(a, b, verb, sentences) for a, b, verb, sentences in verbs]
    page = GraphPage(height=560, sentence_texts=shown_texts(index, nodes), selected=selected or "",
                     legend=("entity", "action"))
    far = f"; {len(joined.unjoined)} more than {JOIN_HOPS} hops from every other" if joined.unjoined else ""
    extra = len(seeds) - len(cited) if cited else 0
    what = f"{len(cited) or len(seeds)} {what}" + (f", {extra} other matches" if extra else "")
    st.caption(f"{len(nodes)} nodes: {what} and the nodes on the shortest paths joining them{far}"
               f"{', with their neighbourhood' if widen else ''}. Light verbs are drawn as edges. Red border: matched; "
               "click a node or edge for its texts and sentences.")
    graph_frame(nodes, edges, page, 600, "Matched subgraph")


def _more(key: str) -> None:
    st.session_state[key] = int(st.session_state.get(key, 0)) + 1


def download(run: AskRun, result_to_json) -> None:
    """The result as JSON, written when the button is clicked (writing it on every run of the page took longer
    than drawing the answer)."""
    def payload() -> str:
        return json.dumps(result_to_json(run.result, run.answer), ensure_ascii=False, indent=1)

    st.download_button("Download result (JSON)", payload, file_name=f"{run.result.collection}-{run.result.method}.json",
                       mime="application/json", icon=":material/download:", on_click="ignore")


def focus(run: AskRun, index, node_id: str | None) -> SentenceView:
    """The sentence view with the picked node's words and sentences emphasised."""
    if not node_id or node_id not in index.graph.nodes:
        return SentenceView()
    grounded = set(index.graph.nodes[node_id].grounded_texts)
    in_context = grounded & set(run.result.sentence_ids)
    node = index.graph.nodes[node_id]
    st.info(f"Selected **{md_escape(node.label)}** ({node.node_type}): grounded in {len(grounded)} sentence(s), "
            f"{len(in_context)} of them in the context.", icon=":material/ads_click:")
    return SentenceView(selected_terms=node_terms(index.graph, [node_id]), focus_ids=in_context)


def scope_caption(run: AskRun, index) -> None:
    """Which documents the question was asked of, and whether front matter was let in."""
    settings = run.result.settings
    documents = settings.get("documents") or []
    where = ("documents " + ", ".join(f"**{md_escape(d)}**" for d in documents)) if documents else (
        f"all {len(index.manifest.documents)} documents" if len(index.manifest.documents) > 1 else "the document")
    front = "included" if settings.get("front_matter") else "left out (title pages, contents, headings)"
    st.caption(f"Asked of {where} of **{md_escape(run.result.collection)}** · front matter {front}")


def compare_panels(outcome: AskOutcome, index, order: str = "rank") -> None:
    main, other = outcome.main, outcome.other
    shared, jaccard = overlap(main.result, other.result)
    st.markdown(f"**Overlap:** {shared} sentence(s) in both contexts · Jaccard {jaccard:.2f}")
    ids = (set(main.result.sentence_ids), set(other.result.sentence_ids))
    for col, run, others, prefix in zip(st.columns(2), (main, other), (ids[1], ids[0]), ("a", "b")):
        with col:
            st.subheader(METHOD_LABELS.get(run.result.method, run.result.method))
            metrics(run, index, compact=True)
            answer_panel(run, prefix)
            view = SentenceView(other_ids=others, anchor_prefix=prefix, order=order)
            sentences_panel(run, index, outcome.doc_id, view)
