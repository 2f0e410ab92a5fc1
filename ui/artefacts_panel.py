"""One audit record's artefacts as stored, for reviewing it in a queue or adjudicating it.

Question, gold answers, answer with its citations, grounded sentences,
matched nodes, the query graph and the automatic diagnosis, all from the
stored record (no re-run, no index needed), every document text escaped.
"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import streamlit as st

from kgcore.api import AuditDB, AuditRecord, record_to_result

from .ask_view import SentenceView, answer_html, cited_ids, matches_rows, numbering, query_node_rows, sentences_html
from .labels import METHOD_LABELS, TYPE_LABELS
from .markup_html import md_escape

#: A graph with no nodes: matched-node rows from the stored record alone.
NO_GRAPH = SimpleNamespace(nodes={})


def diagnosis_rows(db: AuditDB, record_id: int) -> list[dict]:
    """The record's automatic suggestions: stage, reason and evidence sentences."""
    return [{"stage": TYPE_LABELS.get(lb.label_type, lb.label_type), "reason": lb.note,
             "evidence": ", ".join(lb.details.get("evidence_sentence_ids", [])), "at (UTC)": lb.created_at}
            for lb in db.labels_for(record_id) if lb.source == "automatic"]


def record_header(record: AuditRecord) -> None:
    st.markdown(f"#### {md_escape(record.question)}")
    st.caption(f"Record {record.id} · {md_escape(record.doc_id)} · "
               f"{md_escape(METHOD_LABELS.get(record.method, record.method))} · {record.created_at}")
    if record.gold:
        st.markdown("**Gold:** " + md_escape("; ".join(record.gold)))


def record_artefacts(db: AuditDB, record: AuditRecord, key: str) -> None:
    """The record's answer, then tabs for its sentences, matches, query graph and automatic diagnosis."""
    result, answer = record_to_result(record)
    record_header(record)
    if answer is not None:
        st.markdown(answer_html(answer, numbering(result.sentences), f"{key}a"), unsafe_allow_html=True)
    tabs = st.tabs([f"Grounded sentences ({len(result.sentences)})", f"Matched nodes ({len(result.matches)})",
                    "Query graph", "Automatic diagnosis"])
    with tabs[0]:
        view = SentenceView(anchor_prefix=f"{key}a", cited=cited_ids(answer))
        st.markdown(f'<div class="kg-scroll">{sentences_html(result.sentences, view=view)}</div>',
                    unsafe_allow_html=True)
    with tabs[1]:
        rows = [{k: v for k, v in row.items() if k != "sentences"} for row in matches_rows(result, NO_GRAPH)]
        table(rows, f"{key}.matches", "This method does not match graph nodes.")
    with tabs[2]:
        table(query_node_rows(result), f"{key}.qgraph",
              f"The {md_escape(result.method)} method does not build a query graph.")
    with tabs[3]:
        table(diagnosis_rows(db, record.id), f"{key}.diag",
              "No automatic diagnosis yet (Diagnose automatically on the Ask page, or eval --send-failures).")


def table(rows: list[dict], key: str, empty: str) -> None:
    """``rows`` as a table, or the ``empty`` caption."""
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=key)
    else:
        st.caption(empty)
