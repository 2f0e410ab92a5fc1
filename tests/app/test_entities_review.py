"""The merge review page through the app (``streamlit.testing.v1.AppTest``, real models) on a store of two
self-written "papers": the queue with both names and a grounded sentence each, one-click accept and split recorded
with the reviewer and the time, the entities following the decision, and a page without a reviewer."""

from __future__ import annotations

import json

import pytest
from apptest import app, html_of, ok, table

from kgcore.audit import AuditDB
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.index.views.entities import entity_groups, entity_of
from kgcore.index.views.entities.decisions import HUMAN_FILE
from ui.markup_html import esc

RAG_PAPER = ("Retrieval-Augmented Generation (RAG) combines a dense retriever with a sequence-to-sequence generator. "
             "Large language models (LLMs) often hallucinate facts when they answer open-domain questions. "
             "RAG reduces hallucination by grounding each answer in retrieved Wikipedia passages.")
LLM_PAPER = ("RAG helps an LLM answer questions about recent events. Every LLM has a limited context window. "
             "Retrieval-augmented generation feeds the retrieved passages to the LLM before it writes the answer.")


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    root = tmp_path_factory.mktemp("merge_review")
    store = Store(root)
    index_files([Job("rag.txt", data=RAG_PAPER.encode()), Job("llm.txt", data=LLM_PAPER.encode())], store,
                "shelf", workers=1)
    AuditDB.for_store(root).add_reviewer("Ada")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        yield store


def _every(at):
    at.toggle(key="entities_review.everything").set_value(True).run()
    at.radio(key="entities_review.which").set_value("All").run()
    return ok(at)


def test_the_queue_shows_both_names_rules_scores_and_a_grounded_sentence_of_each(shelf):
    at = _every(ok(app("pages/entities_review.py", doc="shelf", reviewer="Ada")))
    queue = table(at, "a", "b", "rule", "decision")
    pairs = {frozenset((a, b)) for a, b in zip(queue["a"], queue["b"])}
    assert frozenset(("LLMs", "LLM")) in pairs
    assert set(queue["decision"]) == {"not reviewed"}
    index = shelf.load("shelf")
    html = html_of(at)
    for sid in (index.graph.nodes["llms"].grounded_texts[0], index.graph.nodes["llm"].grounded_texts[0]):
        assert esc(index.sentence(sid).original) in html
    assert "plural-case" in html and "cosine" in html


def test_split_and_accept_are_one_click_each_and_recorded_with_the_reviewer(shelf):
    at = _every(ok(app("pages/entities_review.py", doc="shelf", reviewer="Ada")))
    split = next(b for b in at.button if b.key == "er.split.llm|llms")
    split.click().run()
    ok(at)
    assert any("Split LLMs and LLM" in s.value or "Split LLM and LLMs" in s.value for s in at.success)
    index = shelf.load("shelf")
    assert entity_of(index)["llm"] != entity_of(index)["llms"]
    stored = json.loads((shelf.root / "shelf" / HUMAN_FILE).read_text())["decisions"]
    assert [(d["status"], d["reviewer"]) for d in stored] == [("split", "Ada")] and stored[0]["at"]
    assert "split by Ada" in " ".join(table(at, "a", "b", "decision")["decision"])
    accept = next(b for b in at.button if b.key == "er.accept.llm|llms")
    accept.click().run()
    ok(at)
    index = shelf.load("shelf")
    assert entity_of(index)["llm"] == entity_of(index)["llms"]
    stored = json.loads((shelf.root / "shelf" / HUMAN_FILE).read_text())["decisions"]
    assert [(d["status"], d["reviewer"]) for d in stored] == [("confirmed", "Ada")]


def test_without_a_reviewer_the_buttons_are_disabled(shelf):
    at = _every(ok(app("pages/entities_review.py", doc="shelf")))
    assert any("Choose who is reviewing" in w.value for w in at.warning)
    buttons = [b for b in at.button if b.key and b.key.startswith(("er.accept.", "er.split."))]
    assert buttons and all(b.disabled for b in buttons)


def test_by_default_only_pairs_near_a_threshold_are_listed(shelf):
    at = ok(app("pages/entities_review.py", doc="shelf", reviewer="Ada"))
    queue = table(at, "a", "b", "flag")
    assert all(queue["flag"])  # every listed pair carries a flag
    if not len(queue):
        assert any("No candidates near a threshold" in i.value for i in at.info)


def test_the_explorer_filters_entity_nodes_by_type(shelf):
    index = shelf.load("shelf")
    rag = next(g for g in entity_groups(index) if "rag" in g.node_ids)
    at = ok(app("pages/explorer.py", doc="shelf"))
    at.selectbox(key="explorer.entity_type").set_value(rag.entity_type).run()
    ok(at)
    nodes = table(at, "node id", "entity type")
    assert "rag" in set(nodes["node id"]) and set(nodes["entity type"]) == {rag.entity_type}
    typed = {n for g in entity_groups(index) if g.entity_type == rag.entity_type for n in g.node_ids}
    assert set(nodes["node id"]) == typed  # every entity node of that type, nothing else (no action)
