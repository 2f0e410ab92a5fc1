"""Question–answer pairs through the app (``streamlit.testing.v1.AppTest``, real models) on a store
of two self-written documents indexed without stored pairs (so ``qa-kg`` generates them from the frames on first
use): the Ask page's short answers with their evidence and why each ranked, "No answer found", the short answers
read off the ``qa-kg`` retrieval for another answerer, the Sentence page's pairs under their frame and the Entity
page's pairs about an entity."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from apptest import app, html_of, ok, open_tab
from streamlit.testing.v1 import AppTest

from kgcore.index.qa import FrameQAGenerator
from kgcore.index.qa.base import normalized
from kgcore.index.views.entities import entity_groups
from samples import harbour_collection
from ui.ask_view import numbering
from ui.markup_html import esc
from ui.qa_view import is_no_answer

RESCUE = "light/text_0-3"  # "During the winter storm Marta Vell rescued two fishermen from a sinking boat."


@pytest.fixture(scope="module")
def harbour(tmp_path_factory):
    yield from harbour_collection(tmp_path_factory, "qa_store")


@pytest.fixture(scope="module")
def pairs(harbour):
    """Every pair the frames backend makes of the collection, made here from the stored frames (as qa-kg does)."""
    analyses = harbour.analyses()
    docs = dict.fromkeys(s.doc_id for s in harbour.sentences)
    return [p for d in docs for p in
            FrameQAGenerator().generate([s for s in harbour.sentences if s.doc_id == d], analyses)]


def ask(question: str, method: str, answerer: str) -> AppTest:
    at = app("pages/ask.py", doc="harbour")
    at.selectbox(key="ask.method").set_value(method).run()
    at.selectbox(key="ask.answerer").set_value(answerer).run()
    at.text_input(key="ask.question").input(question)
    return ok(at.button(key="ask.go").click().run())


def link(sid: str) -> str:
    return f'href="{esc("sentence?" + urlencode({"doc": "harbour", "sid": sid}))}"'


def short_answers(html: str) -> str:
    """The HTML of the Short answers list."""
    return html.split('<ol class="kg-qa">', 1)[1].split("</ol>", 1)[0]


def test_ask_shows_the_qa_kg_short_answers_with_evidence_and_why(harbour):
    at = ask("Who rescued the fishermen?", "qa-kg", "qa-kg")
    run = at.session_state["kg_app_state"].ask.main
    answer, result = run.answer, run.result
    assert answer.generator == "qa-kg" and not is_no_answer(answer) and 1 <= len(answer.short_answers) <= 5
    assert answer.short_answers[0]["answer"] == "Marta Vell"
    assert "**Short answers**" in [m.value for m in at.markdown]
    assert any("offline qa-kg answerer" in i.value for i in at.info)
    assert any(c.value.startswith(f"Confidence {answer.confidence:.2f} ") for c in at.caption)
    listed = short_answers(html_of(at))
    items = listed.split("<li>")[1:]
    assert len(items) == len(answer.short_answers)
    numbers = numbering(result.sentences)
    for item, html in zip(answer.short_answers, items):
        assert html.startswith(f'<span class="kg-qa-answer">{esc(item["answer"])}</span>')
        assert f"answers “{esc(item['question'])}”" in html and esc(item["answer_type"]) in html
        features = item["features"]
        for shown in (f"similarity {features['similarity']:.2f}", f"type agreement {features['type']:.2f}",
                      f"fuzzy match {features['fuzzy']:.2f}", f"score {item['score']:.2f}"):
            assert shown in html, shown
        for sid in item["sentence_ids"]:
            assert link(sid) in html
            if sid in numbers:
                assert f'title="{esc(sid)}">[{numbers[sid]}]</a>' in html
    # The first answer's confidence is the answer's own.
    assert f"score {answer.short_answers[0]['score']:.2f} · confidence {answer.confidence:.2f}" in items[0]
    assert RESCUE in answer.short_answers[0]["sentence_ids"]
    # The retrieval's ranked pairs behind the context, each with why it ranked.
    (expander,) = [e for e in at.expander if e.label.startswith("Why these sentences ranked (the ")]
    assert expander.label == f"Why these sentences ranked (the {len(result.qa_pairs)} best QA pairs)"
    ranked = "\n".join(m.value for m in expander.markdown)
    assert ranked.count("<li>") == len(result.qa_pairs)
    assert f"answers “{esc(result.qa_pairs[0]['question'])}”" in ranked


def test_ask_says_plainly_when_no_answer_is_found(harbour):
    at = ask("What colour was the dragon's hat on Venus?", "dense", "qa-kg")
    answer = at.session_state["kg_app_state"].ask.main.answer
    assert is_no_answer(answer) and answer.short_answers
    (warning,) = [w.value for w in at.warning if "No answer found" in w.value]
    assert f"has confidence {answer.confidence:.2f}, below the threshold 0" in warning.replace("\\", "")
    assert len(short_answers(html_of(at)).split("<li>")[1:]) == len(answer.short_answers)


def test_ask_reads_short_answers_off_the_qa_kg_retrieval_for_another_answerer(harbour):
    at = ask("Who rescued the fishermen?", "qa-kg", "extractive")
    run = at.session_state["kg_app_state"].ask.main
    assert run.answer.generator == "extractive" and run.result.qa_pairs
    assert "**Short answers**" in [m.value for m in at.markdown]
    assert any("qa-kg retrieval’s ranked pairs" in c.value for c in at.caption)
    listed = short_answers(html_of(at))
    best = run.result.qa_pairs[0]
    assert listed.startswith(f'<li><span class="kg-qa-answer">{esc(best["answer"])}</span>')
    assert "confidence" not in listed  # the retrieval gives scores, not a confidence


def test_sentence_page_lists_the_pairs_of_the_sentence_under_their_frame(harbour, pairs):
    at = ok(app("pages/sentence.py", doc="harbour", sid=RESCUE))
    assert "QA pairs from this sentence" in [s.value for s in at.subheader]
    html = html_of(at)
    section = html.split('<div class="kg-qa-frame">', 1)[1]
    mine = [p for p in pairs if p.sentence_id == RESCUE]
    resolved = normalized(harbour.sentence(RESCUE).resolved)
    assert len(mine) >= 3
    for p in mine:
        assert f"<td>{esc(p.question)}</td><td>{esc(p.answer)}</td><td>{esc(p.role)}</td>" in section
        assert normalized(p.answer) in resolved  # every answer is a span of this sentence
    assert section.startswith('Frame <b>rescue</b> <span class="kg-stat">“rescued”</span>')
    assert section.count("<tr>") == len(mine) + 1
    assert all(esc(p.question) not in section for p in pairs if p.sentence_id != RESCUE)
    assert any(c.value.replace("\\", "").startswith(f"{len(mine)} pair(s) from ") for c in at.caption)


def test_entity_page_lists_the_pairs_about_the_entity(harbour, pairs):
    marta = next(g for g in entity_groups(harbour) if g.name == "Marta Vell")
    at = ok(app("pages/entity.py", doc="harbour", entity=marta.entity_id))
    assert not any(m.value.startswith("**QA pairs about this entity**") for m in at.markdown)  # not its open tab
    at = ok(open_tab(at, "QA pairs"))
    assert any(m.value.startswith("**QA pairs about this entity**") for m in at.markdown)
    section = html_of(at).split('<table class="kg-table kg-qa-table">', 1)[1].split("</table>", 1)[0]
    about = [p for p in pairs if "marta vell" in {k for k, _ in p.entities + p.answer_entities}]
    assert len(about) >= 5 and section.count("<tr>") == len(about) + 1
    for p in about:
        assert link(p.sentence_id) in section
    assert '<td><mark class="kg-m">Marta Vell</mark></td><td>answer</td>' in section  # "Who kept ...?" -> Marta Vell
    assert any(c.value.replace("\\", "").startswith(f"{len(about)} pair(s) mention it") for c in at.caption)


def test_entity_pairs_stay_in_their_document(harbour, pairs):
    """The lighthouse story's fishermen are not the council's: each document's common nouns are its own entities.
    Opening the QA pairs tab reruns the page, which kept the fisherman picked only once the two entities' labels
    differed (Streamlit maps a choice back by its label)."""
    fishermen = next(g for g in entity_groups(harbour) if "light/fisherman" in g.node_ids)
    at = ok(open_tab(app("pages/entity.py", doc="harbour", entity=fishermen.entity_id), "QA pairs"))
    section = html_of(at).split('<table class="kg-table kg-qa-table">', 1)[1].split("</table>", 1)[0]
    mine = [p for p in pairs if p.sentence_id.startswith("light/")
            and "fisherman" in {k for k, _ in p.entities + p.answer_entities}]
    assert mine and section.count("<tr>") == len(mine) + 1
    assert "council/" not in section


def test_matches_shown_alike_are_numbered_so_a_label_goes_to_the_one_picked(harbour):
    """Both documents have a "fisherman" node, matched with the same cosine.  Streamlit maps a choice back to its
    option by the label shown (the frontend sends the label), so of two options shown alike the later one was
    always chosen: the reviewer's label went to the other document's match."""
    import os

    from kgcore.audit import AuditDB

    AuditDB.for_store(os.environ["KGCORE_STORE"]).add_reviewer("Ada")
    at = app("pages/ask.py", doc="harbour")
    at.sidebar.selectbox(key="identity.choice").set_value("Ada").run()
    at.text_input(key="ask.question").input("Who brought the fishermen mackerel?")
    ok(at.button(key="ask.go").click().run())
    next(s for s in at.selectbox if s.key and s.key.endswith(".kind")).set_value("match").run()
    shown = next(s for s in at.selectbox if s.key and s.key.endswith(".artifact")).options
    assert len(set(shown)) == len(shown)
    assert "mackerel → fisherman (0.32) · 1" in shown and "mackerel → fisherman (0.32) · 2" in shown, shown
