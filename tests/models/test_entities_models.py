"""Entity resolution, types and relations with the real spaCy and MiniLM, on short texts written for these tests:
two "papers" that name Retrieval-Augmented Generation (RAG) and LLM/LLMs, and three short novels, two of them
with a "father" who is somebody else in each."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from kgcore.core.nlp import load_spacy
from kgcore.index.pipeline import Job, index_files, remove_documents
from kgcore.index.store.disk import Store
from kgcore.index.views.entities import entity_groups, entity_of, review, stored
from kgcore.index.views.entities.decisions import CONFIRMED, HUMAN_FILE, SPLIT
from kgcore.index.views.entities.names import normalise
from kgcore.index.views.entities.relations import RESULT, entity_relations
from kgcore.index.views.entities.types import DECLARED_FILE, NARRATIVE, PATTERN_CONFIDENCE, RESEARCH, ner_types

RAG_PAPER = ("Retrieval-Augmented Generation (RAG) combines a dense retriever with a sequence-to-sequence generator. "
             "Large language models (LLMs) often hallucinate facts when they answer open-domain questions. "
             "RAG reduces hallucination by grounding each answer in retrieved Wikipedia passages. "
             "We evaluate RAG on Natural Questions. RAG outperforms BART on Natural Questions.")
LLM_PAPER = ("RAG helps an LLM answer questions about recent events. Every LLM has a limited context window. "
             "Retrieval-augmented generation feeds the retrieved passages to the LLM before it writes the answer.")
TOM = ("Tom lived with his father in a small cottage by the river Severn. His father was a fisherman who sailed "
       "out every morning before dawn. Tom mended the nets while his father slept.")
ANNA = ("Anna grew up in London above a bakery. Anna's father was a baker on Fleet Street. Her father baked bread "
        "for the whole street before the sun rose.")
SHIP = "The ship left the harbour at dawn. A storm broke the mast on the third day."


def _job(name: str, text: str) -> Job:
    return Job(name, data=text.encode("utf-8"))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("entities"))
    index_files([_job("rag.txt", RAG_PAPER), _job("llm.txt", LLM_PAPER)], store, "papers", workers=1)
    declared = {"name": "research", "types": dict(RESEARCH.descriptions)}
    (store.root / "papers" / DECLARED_FILE).write_text(json.dumps(declared), encoding="utf-8")
    index_files([_job("tom.txt", TOM), _job("anna.txt", ANNA), _job("ship.txt", SHIP)], store, "novels", workers=1)
    return store


def _node(index, name: str, doc: str | None = None) -> str:
    found = [n.node_id for n in index.graph.nodes.values() if n.node_type == "entity"
             and normalise(n.label) == normalise(name) and (doc is None or n.node_id.startswith(f"{doc}/"))]
    assert found, f"no entity node {name!r} ({doc}) in {sorted(n.label for n in index.graph.nodes.values())}"
    return found[0]


def _written(index, text: str) -> list[str]:
    """The entity nodes written as ``text`` somewhere (the parser labels "Large language models" "language model")."""
    return [n.node_id for n in index.graph.nodes.values() if n.node_type == "entity"
            and any(normalise(t) == normalise(text) for t in n.texts)]


def _group(index, node_id: str):
    return next(g for g in entity_groups(index) if node_id in g.node_ids)


def test_an_acronym_and_its_long_form_and_singular_and_plural_become_one_entity(store):
    index = store.load("papers")
    of = entity_of(index)
    rag, long_forms = _node(index, "RAG"), _written(index, "retrieval-augmented generation")
    assert len(long_forms) == 2  # one written in each paper
    assert {of[n] for n in long_forms} == {of[rag]}
    llm = of[_node(index, "LLM")]
    assert of[_node(index, "LLMs")] == llm and {of[n] for n in _written(index, "large language models")} == {llm}
    group = _group(index, rag)
    assert {group.alias_of(n).rule for n in long_forms} <= {"acronym", "exact-name"}
    assert set(group.documents) == {"rag", "llm"}
    rows = [index.sentence_row(s) for s in group.grounded_texts]
    assert rows == sorted(rows)  # reading order
    assert set(group.grounded_texts) == {s for n in group.node_ids for s in index.graph.nodes[n].grounded_texts}


def test_common_nouns_of_two_novels_stay_two_entities(store):
    index = store.load("novels")
    of = entity_of(index)
    assert of[_node(index, "father", "tom")] != of[_node(index, "father", "anna")]
    # every entity node is in exactly one entity
    members = [n for g in entity_groups(index) for n in g.node_ids]
    assert len(members) == len(set(members)) == sum(1 for n in index.graph.nodes.values() if n.node_type == "entity")


def test_types_come_from_patterns_ner_and_zero_shot(store):
    papers, novels = store.load("papers"), store.load("novels")
    assert _group(papers, _node(papers, "Natural Questions")).entity_type == "dataset"
    assert _group(novels, _node(novels, "Anna")).entity_type == "person"
    assert _group(novels, _node(novels, "London")).entity_type == "place"
    kinds = {g.entity_type for g in entity_groups(novels)}
    assert kinds <= {"person", "place", "organisation", "object", "concept"}
    assert all(0 < g.type_confidence <= 1 for g in entity_groups(papers))


def test_relations_are_typed_and_grounded(store):
    index = store.load("papers")
    of = entity_of(index)
    found = entity_relations(index)
    rag = of[_node(index, "RAG")]
    results = [r for r in found if r.relation_type == RESULT and r.source == rag]
    assert {r.target for r in results} >= {of[_node(index, "BART")]}
    for r in found:
        assert r.grounded_texts and all(index.has_sentence(s) for s in r.grounded_texts)


def test_the_resolution_is_stored_with_the_linked_graph(store):
    index = store.load("papers")
    entity_groups(index)
    file = stored.file_of(index)
    assert file is not None and file.exists()
    again = store.load("papers")
    assert entity_groups(again) == entity_groups(index)


def test_confirm_then_split_restores_every_entity_exactly(store):
    index = store.load("novels")
    before = entity_groups(index)
    a, b = _node(index, "father", "tom"), _node(index, "father", "anna")
    review.record(index, a, b, CONFIRMED, "ann")
    merged = entity_groups(index)
    assert entity_of(index)[a] == entity_of(index)[b]
    assert _group(index, a).alias_of(b).rule == "confirmed by ann"
    assert len(merged) == len(before) - 1
    review.record(index, a, b, SPLIT, "bob")
    assert entity_groups(index) == before
    assert entity_groups(store.load("novels")) == before  # from the stored file, after a reload


def test_people_decisions_survive_relinking_and_apply_while_their_nodes_exist(store):
    index = store.load("novels")
    a, b = _node(index, "father", "tom"), _node(index, "father", "anna")
    review.record(index, a, b, CONFIRMED, "ann")
    remove_documents(store, "novels", ["ship"])  # re-links the collection: a new generation, a new linked folder
    relinked = store.load("novels")
    assert relinked.manifest.generation > index.manifest.generation
    assert entity_of(relinked)[a] == entity_of(relinked)[b]
    remove_documents(store, "novels", ["anna"])
    without = store.load("novels")
    assert b not in without.graph.nodes and a in without.graph.nodes
    assert _group(without, a).node_ids == (a,)  # the decision no longer applies ...
    kept = json.loads((store.root / "novels" / HUMAN_FILE).read_text())["decisions"]
    assert [(d["status"], d["reviewer"]) for d in kept] == [("confirmed", "ann")]  # ... but is kept


def test_the_review_queue_shows_both_sides_with_a_grounded_sentence(store):
    index = store.load("papers")
    for item in review.review_queue(index):
        for side in (item.a, item.b):
            assert index.sentence(side.sentence_id).original == side.sentence
            assert side.node_id in index.graph.nodes
        assert item.merge.flag


def test_the_command_line_lists_entities_and_records_a_decision(store, capsys):
    from kgcore.cli import main

    root = ["--store", str(store.root)]
    assert main(["entities", "--collection", "papers", "--merged", *root]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rag = next(e for e in lines if e["name"] == "RAG")
    assert rag["aliases"][0]["rule"] == "canonical" and len(rag["aliases"]) >= 3 and set(rag["documents"]) == {
        "rag", "llm"}
    assert all(len(e["aliases"]) > 1 for e in lines)
    assert main(["entities", "--collection", "papers", "--decide", "llm", "llms", "split", "--reviewer", "cy",
                 *root]) == 0
    assert json.loads(capsys.readouterr().out)["reviewer"] == "cy"
    index = store.load("papers")
    assert entity_of(index)["llm"] != entity_of(index)["llms"]
    assert main(["entities", "--collection", "papers", "--decide", "llm", "llms", "split", *root]) == 2  # no reviewer


def test_typing_names_leaves_the_shared_pipeline_whole_for_other_threads():
    """Entity typing runs spaCy's NER only; a question parsed meanwhile by another thread (the app indexes and
    answers in one process, with one pipeline) still gets its dependency parse."""
    nlp = load_spacy()
    started, release = threading.Event(), threading.Event()
    names, texts = ["Peter Rabbit", "London"], ["Peter Rabbit lived with his mother.", "They moved to London in May."]
    expected = ner_types(names, texts, NARRATIVE, nlp)

    def sentences():
        yield texts[0]
        started.set()
        release.wait(5)  # typing is under way while the question is parsed
        yield texts[1]

    typing = ThreadPoolExecutor(1).submit(ner_types, names, sentences(), NARRATIVE, nlp)
    assert started.wait(5)
    try:
        question = nlp("Who put Peter's father in a pie?")
    finally:
        release.set()
    assert question.has_annotation("DEP") and question.has_annotation("LEMMA")
    assert typing.result(5) == expected and expected[0] == "person"


DIVA = ("Carlotta said that she would sing Margarita at the gala. Carlotta thought of the letter all afternoon. "
        "Carlotta feared the ghost, and Carlotta hated the new managers. The Opera was full that night.")


def test_a_name_that_speaks_and_feels_is_a_person_whatever_ner_says(tmp_path):
    """spaCy's small NER calls "Carlotta" an organisation (in every sampled Phantom sentence, and here); the graph
    shows her saying, thinking, fearing and hating, so she is typed a person by her actions
    (:mod:`kgcore.index.views.entities.animate`), while the Opera, which does none of that, is not."""
    nlp = load_spacy()
    sentences = [s.text for s in nlp(DIVA).sents]
    assert "organisation" in ner_types(["Carlotta"] * len(sentences), sentences, NARRATIVE, nlp)  # the premise
    store = Store(tmp_path)
    index_files([_job("diva.txt", DIVA)], store, "diva", workers=1)
    index = store.load("diva")
    carlotta = _group(index, _node(index, "Carlotta"))
    assert carlotta.entity_type == "person" and carlotta.type_confidence == pytest.approx(0.8)
    assert _group(index, _node(index, "Opera")).entity_type != "person"


HEADED = ("CHAPTER IV. THE HAND\n\nThe old housekeeper said that the lamp was out. The housekeeper thought of the "
          "cellar all night. The housekeeper feared the dark, and the housekeeper cried out. She raised her hand. "
          "Her hand was cold. He took the hand and held it. A hand knocked at the door. The hand was gone.")


def test_a_common_noun_that_speaks_is_a_person_and_a_heading_word_is_no_name(tmp_path):
    """The rule of the test above holds for a character the book never names ("the housekeeper said, thought,
    feared"); and "hand", written once in capitals by a chapter title among ordinary mentions, is no acronym
    and so no name: it was typed a person among the name types (The Phantom of the Opera's hand, head, voice)."""
    store = Store(tmp_path)
    index_files([_job("headed.txt", HEADED)], store, "headed", workers=1)
    index = store.load("headed")
    keeper = _group(index, _node(index, "housekeeper"))
    assert keeper.entity_type == "person" and keeper.type_confidence == pytest.approx(0.8)
    assert _group(index, _node(index, "hand")).entity_type in ("object", "concept")


def test_a_common_noun_that_names_someone_is_a_person_by_its_noun(tmp_path):
    """Peter Rabbit's mother puts him to bed and gives him tea, but never says, thinks or feels three times: she
    was typed an object by her vector.  "Mother" names someone, as "captain" or "sailor" do."""
    text = ("Peter's mother put him to bed. His mother made some camomile tea. The mother gave a dose of it to "
            "Peter. The captain sold the boat.")
    store = Store(tmp_path)
    index_files([_job("bed.txt", text)], store, "bed", workers=1)
    index = store.load("bed")
    for name in ("mother", "captain"):
        group = _group(index, _node(index, name))
        assert group.entity_type == "person" and group.type_confidence == pytest.approx(PATTERN_CONFIDENCE)
    assert _group(index, _node(index, "boat")).entity_type != "person"
