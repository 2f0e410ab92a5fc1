"""``qa-kg`` with the real spaCy and MiniLM: pairs stored at indexing, fuzzy rescue, answer-type
agreement, short answers on any method's context, and "no answer found"."""

from __future__ import annotations

import pytest

from kgcore.core.settings import RetrievalOptions
from kgcore.index.store.qa_table import read_qa

GARDEN = """Mr. McGregor was a gardener. He grew lettuces and radishes in his garden behind the wood.

One morning Peter squeezed under the gate of the garden because he was hungry. Peter ate some lettuces and some
French beans. Mr. McGregor saw Peter near the cucumber frame and ran after him with a rake. Peter lost his shoes
among the cabbages.

Flopsy, Mopsy and Cotton-tail were good little bunnies. They went down the lane to gather blackberries.
Mrs. Rabbit gave Peter a dose of camomile tea in the evening.
"""


@pytest.fixture(scope="module")
def garden(tmp_path_factory):
    from kgcore.index.pipeline import index_file
    from kgcore.index.store.disk import Store
    from kgcore.query.engine import QueryEngine

    path = tmp_path_factory.mktemp("src") / "garden.txt"
    path.write_text(GARDEN, encoding="utf-8")
    store = Store(tmp_path_factory.mktemp("store"))
    import dataclasses

    from kgcore.core.settings import Settings

    index_file(path, store, name="garden", settings=dataclasses.replace(Settings.from_env(), qa_pairs=True))
    return QueryEngine(store)


def ask(engine, question, method="qa-kg"):
    return engine.ask("garden", question, RetrievalOptions(method=method, budget_words=60), answerer="qa-kg")


def test_pairs_are_generated_and_stored_at_indexing(garden):
    index = garden.index("garden")
    entry = index.manifest.documents[0]
    table = read_qa(index.shard_path("garden"))
    found = {(p.question, p.answer) for p in table.pairs}
    assert ("Where did Peter lose Peter's shoes?", "among the cabbages") in found
    assert ("What did Mr. McGregor grow in Mr. McGregor's garden behind the wood?", "lettuces and radishes") in found
    assert ("Who ran after Peter with a rake?", "Mr. McGregor") in found
    assert table.vectors.shape[1] == 384 and len(table.q_rows) == len(table.pairs)
    assert "qa" in entry.manifest.timings_s


def test_fuzzy_rescue_of_a_misspelt_name(garden):
    result, answer = ask(garden, "What did Mc Greggor grow?")
    assert any("Fuzzy entity match" in n and "Mr. McGregor" in n for n in result.notes)
    best = result.qa_pairs[0]
    assert best["answer"] == "lettuces and radishes" and best["why"]["fuzzy"]["label"] == "Mr. McGregor"
    assert answer.short_answers[0]["answer"] == "lettuces and radishes"


def test_answer_type_agreement_picks_the_person(garden):
    result, answer = ask(garden, "Who ran after Peter?")
    assert answer.short_answers[0]["answer"] == "Mr. McGregor"
    assert answer.short_answers[0]["features"]["type"] == 1.0
    assert answer.text == "Mr. McGregor"  # the default style: the phrase; its realised statement goes with it
    assert answer.short_answers[0]["statement"].startswith("Mr. McGregor ran after Peter")
    assert answer.short_answers[0]["features"]["sentence"] == 0.0  # from the sentence that answers best
    assert answer.citations[0].sentence_ids == [answer.short_answers[0]["sentence_id"]]
    assert 0 < answer.confidence <= 1


@pytest.mark.parametrize(("question", "expected"), [
    ("Which bunnies went down the lane?", "Flopsy, Mopsy and Cotton-tail"),
    ("Which gardener saw Peter?", "Mr. McGregor"),
])
def test_the_type_a_wh_determiner_asks_for_is_not_a_repeat(garden, question, expected):
    """"Which bunnies": an answer that is a bunny is what the question asks for.  Without the rule the type-level
    match marked it a repeat and "to gather blackberries" / "a rake" won."""
    for method in ("qa-kg", "groundedkg"):
        _, answer = ask(garden, question, method=method)
        assert answer.text == expected
        assert answer.short_answers[0]["features"]["repeat"] == 0.0
        assert answer.short_answers[0]["features"]["type_level"] > 0


def test_an_answer_naming_only_the_questions_entity_is_a_repeat(garden):
    """"Robinson Crusoe" answers nothing about Crusoe: the question names him (fuzzy match), so it is a repeat."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = ["Robinson Crusoe made an umbrella to keep off the rain.", "Crusoe was glad of it."]
    context = [SelectedSentence(f"s{i}", i, t, t, rank=i + 1, score=1.0, similarity=0.5) for i, t in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("What did Crusoe make to keep off the rain?", context)
    named = [a for a in answer.short_answers if a["answer"] == "Robinson Crusoe"]
    assert named and all(a["features"]["repeat"] == 1.0 for a in named)
    assert answer.text.startswith("an umbrella")


def test_the_questions_entity_and_words_together_are_a_repeat(garden):
    """"Robinson Crusoe's island" for "What did Crusoe call the island?": its name is the question's entity and its
    other word the question's own, so it brings nothing new; "the Island of Despair" does."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = [("I called it the Island of Despair.", "Robinson Crusoe called Robinson Crusoe's island the Island of "
              "Despair."),
             ("I came on shore on this dismal island, which I called the Island of Despair.",
              "Robinson Crusoe came on shore on this dismal island, which Robinson Crusoe called the Island of "
              "Despair.")]
    context = [SelectedSentence(f"s{i}", i, t, r, rank=i + 1, score=1.0, similarity=0.5)
               for i, (t, r) in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("What did Crusoe call the island?", context)
    by_answer = {a["answer"]: a["features"]["repeat"] for a in answer.short_answers}
    assert by_answer.get("Robinson Crusoe's island") == 1.0
    assert answer.text == "the Island of Despair"


def test_an_answer_that_counts_answers_how_many(garden):
    """"Mme. Giry's three teeth" is typed a thing (it does not open with the number) yet answers "how many"."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = ["Mme. Giry bristled with her three teeth.", "Her teeth were clashing in a noisy contest."]
    context = [SelectedSentence(f"s{i}", i, t, t, rank=i + 1, score=1.0, similarity=0.5) for i, t in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("How many teeth did Mme. Giry have?", context)
    best = answer.short_answers[0]
    assert "three" in best["answer"] and best["features"]["type"] == 1.0


def test_the_narrator_and_companions_name_no_one_new(garden):
    """The narrator pass writes the narration's "we" as "Robinson Crusoe and companions": as an answer to a question
    about Crusoe it names no one new, so it is a repeat, like "Robinson Crusoe" alone."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = ["Robinson Crusoe and companions gave the savage the name Friday.", "Crusoe was glad of it."]
    context = [SelectedSentence(f"s{i}", i, t, t, rank=i + 1, score=1.0, similarity=0.5) for i, t in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("Who gave the savage a name with Crusoe?", context)
    ours = [a for a in answer.short_answers if a["answer"] == "Robinson Crusoe and companions"]
    assert ours and all(a["features"]["repeat"] == 1.0 for a in ours)


def test_an_answer_of_the_wrong_kind_gives_way_to_the_best_sentences_clause(garden):
    """No pair of the context gives a reason: the best short answer is a thing, so the answer quotes the clause
    the extractive answerer would, and the short answers stay listed."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = ["The crew turned against their captain in the night, and three honest fellows stayed with him.",
             "The captain had a fine ship."]
    context = [SelectedSentence(f"s{i}", i, t, t, rank=i + 1, score=1.0, similarity=0.5) for i, t in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("Why did the crew turn against their captain?", context)
    assert answer.short_answers and answer.short_answers[0]["features"]["type"] == 0.0
    assert "turned against their captain" in answer.text and answer.text != answer.short_answers[0]["answer"]
    assert answer.citations[0].sentence_ids == ["s0"]
    assert any("quotes the clause of the best sentence (s0)" in n for n in answer.notes)
    # an answer of the kind asked for is still the short phrase
    assert ask(garden, "Who ran after Peter?")[1].text == "Mr. McGregor"


def test_short_answers_on_another_methods_context(garden):
    result, answer = ask(garden, "Where did Peter lose his shoes?", method="dense")
    assert result.method == "dense"
    assert answer.short_answers[0]["answer"] == "among the cabbages"
    assert len(answer.short_answers) <= 5


def test_short_answers_without_stored_pairs_come_from_the_contexts_frames(garden):
    from kgcore.query.answer import QAKGGenerator

    result = garden.retrieve("garden", "What did the bunnies gather?", RetrievalOptions(method="bm25", k=5))
    answer = QAKGGenerator(embedder=garden.embedder).generate(result.question, result.sentences)
    assert "generated from the context's frames" in answer.notes[0]
    assert "blackberries" in [a["answer"] for a in answer.short_answers]


def test_no_answer_found_below_the_threshold(garden):
    from kgcore.query.answer import QAKGGenerator

    answer = QAKGGenerator(embedder=garden.embedder).generate("What is the capital of Peru?", [])
    assert answer.text == "No answer found." and answer.confidence == 0.0


def test_the_views_pairs_equal_the_qa_graphs_and_need_no_embedding(garden, tmp_path, monkeypatch):
    """The QA views read :func:`qa_pairs_graph`: the same pairs, entity links and sentences as the retrieval's QA
    graph, from stored tables or generated from the stored frames, and no vector is ever computed."""
    import shutil

    from kgcore.index.store.disk import Store
    from kgcore.index.store.qa_table import QA_PAIRS
    from kgcore.query.qakg import qa_graph, qa_pairs_graph

    index = garden.index("garden")
    full, views = qa_graph(index, garden.embedder), qa_pairs_graph(index)
    assert [p.id for p in views.pairs] == [p.id for p in full.pairs] and views.pairs
    assert views.entity_pairs == full.entity_pairs and views.by_sentence == full.by_sentence
    copy = tmp_path / "store"  # the same collection with its stored QA table removed: generated from the frames
    shutil.copytree(index.path.parent, copy)
    entry = index.manifest.documents[0]
    (copy / "garden" / index.shard_path(entry.doc_id).relative_to(index.path) / QA_PAIRS).unlink()
    monkeypatch.setattr(type(garden.embedder), "encode", lambda *a, **k: pytest.fail("a view embedded something"))
    generated = qa_pairs_graph(Store(copy).load("garden"))
    assert {p.question for p in generated.pairs} >= {p.question for p in views.pairs if p.source == "frames"}


def test_the_answerers_graph_embeds_only_the_pairs_it_reads_and_answers_as_the_full_graph(garden):
    """The ``qa-kg`` answerer reads :func:`qa_answer_graph`: the types' vectors, no pair vectors; the pairs of the
    chosen sentences are embedded per question, and the answers equal those read from the full QA graph."""
    from kgcore.query.answer import AnswerSource, QAKGGenerator
    from kgcore.query.qakg import qa_answer_graph, qa_graph
    from kgcore.query.qakg.graph import table_for_sentences

    index = garden.index("garden")
    full, light = qa_graph(index, garden.embedder), qa_answer_graph(index, garden.embedder)
    assert len(light.q_vectors) == 0 and light.pairs and light.types == full.types
    assert light.type_vectors.shape == full.type_vectors.shape
    sid = full.pairs[0].sentence_id
    with pytest.raises(ValueError, match="no pair vectors"):
        table_for_sentences(light, [sid])
    mine, theirs = table_for_sentences(light, [sid], garden.embedder)[1], table_for_sentences(full, [sid])[1]
    assert [p.id for p in mine.pairs] == [p.id for p in theirs.pairs]
    assert abs(mine.vectors[mine.q_rows] - theirs.vectors[theirs.q_rows]).max() < 1e-4
    generator = QAKGGenerator(embedder=garden.embedder)
    for question in ("Who ran after Peter?", "Where did Peter lose his shoes?", "What did Mc Greggor grow?"):
        result = garden.retrieve("garden", question, RetrievalOptions(method="groundedkg", budget_words=60))
        a, b = (generator.generate(question, result.sentences, AnswerSource(qa=g)) for g in (light, full))
        assert (a.text, [s["answer"] for s in a.short_answers]) == (b.text, [s["answer"] for s in b.short_answers])
    assert garden.answer(result, "qa-kg").text == a.text  # the engine reads the answerer's graph


def test_a_name_answers_a_question_asking_for_a_name(garden):
    """"What name did Crusoe give the savage?": "Friday" agrees with the question; "the name" does not."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = ["Crusoe saved the savage's life in the woods.", "Crusoe gave the savage the name Friday."]
    context = [SelectedSentence(f"s{i}", i, t, t, rank=i + 1, score=1.0, similarity=0.5) for i, t in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("What name did Crusoe give the savage?", context)
    types = {a["answer"]: a["features"]["type"] for a in answer.short_answers}
    assert types.get("Friday") == 1.0 and types.get("the name", 0.0) == 0.0  # when ranked at all
    assert answer.text == "Friday"


def test_a_collection_without_stored_pairs_generates_them_once_for_every_qa_graph(garden, tmp_path, monkeypatch):
    """The views' pairs, the answerer's graph and the retrieval's QA graph share one generation from the frames."""
    import shutil

    from kgcore.index.qa import FrameQAGenerator
    from kgcore.index.store.disk import Store
    from kgcore.index.store.qa_table import QA_PAIRS
    from kgcore.query.qakg import qa_answer_graph, qa_graph, qa_pairs_graph

    index = garden.index("garden")
    copy = tmp_path / "store"
    shutil.copytree(index.path.parent, copy)
    (copy / "garden" / index.shard_path(index.manifest.documents[0].doc_id).relative_to(index.path) / QA_PAIRS).unlink()
    calls = []
    generate = FrameQAGenerator.generate
    monkeypatch.setattr(FrameQAGenerator, "generate", lambda self, *a: calls.append(1) or generate(self, *a))
    loaded = Store(copy).load("garden")
    views, light = qa_pairs_graph(loaded), qa_answer_graph(loaded, garden.embedder)
    full = qa_graph(loaded, garden.embedder)
    assert len(calls) == 1 and [p.id for p in views.pairs] == [p.id for p in full.pairs] == [p.id for p in light.pairs]
    assert full.notes and "generated from its frames" in full.notes[0]


def test_what_happened_to_x_is_answered_from_a_sentence_about_x(garden):
    """"What happened to the rabbits' father?": the best-ranked sentence says "nothing happened" (closest by its
    words) but is not about the father, so its pairs do not answer; the father's sentence does, as the extractive
    answerer's would."""
    from kgcore.core.types import SelectedSentence
    from kgcore.query.answer import QAKGGenerator

    texts = ["Peter hid under the bushes, but presently as nothing happened, he came out.",
             "The rabbits' father had an accident there; he was put in a pie by Mrs. McGregor."]
    context = [SelectedSentence(f"s{i}", i, t, t, rank=i + 1, score=1.0, similarity=0.5) for i, t in enumerate(texts)]
    answer = QAKGGenerator(embedder=garden.embedder).generate("What happened to the rabbits' father?", context)
    assert answer.citations[0].sentence_ids == ["s1"]
    assert all(a["sentence_ids"] == ["s1"] for a in answer.short_answers)


def test_one_sentences_pairs_are_generated_from_its_document_alone(tmp_path, monkeypatch):
    """The Sentence page's pairs: the sentence's document's pairs only, the same pairs (in the same order) the
    whole collection's view holds, and that document is not generated again when the view is built."""
    from kgcore.index.pipeline import Job, index_files
    from kgcore.index.qa import FrameQAGenerator
    from kgcore.index.store.disk import Store
    from kgcore.query.qakg import qa_pairs_graph
    from kgcore.query.qakg.graph import sentence_pairs

    harbour = ("Marta Vell kept the lighthouse on Gull Rock. She lit the great lamp every evening. "
               "The Harbour Council gave Marta Vell a silver medal for her courage.")
    store = Store(tmp_path)
    index_files([Job("garden.txt", data=GARDEN.encode()), Job("harbour.txt", data=harbour.encode())], store, "two",
                workers=1)
    calls: list[int] = []
    generate = FrameQAGenerator.generate
    monkeypatch.setattr(FrameQAGenerator, "generate", lambda self, s, *a: calls.append(len(s)) or generate(self, s, *a))
    index = store.load("two")
    medal = next(s for s in index.sentences if "silver medal" in s.original)
    alone = sentence_pairs(index, medal.id)
    assert alone and len(calls) == 1 and calls[0] == sum(s.doc_id == "harbour" for s in index.sentences)
    whole = qa_pairs_graph(index)
    assert len(calls) == 2  # the garden's, now; the harbour's was kept
    assert [p.id for p in alone] == [whole.pairs[i].id for i in whole.by_sentence[medal.id]]
    assert sentence_pairs(index, medal.id) == alone  # read from the built view now


def test_an_entitys_pairs_come_from_its_grounding_documents_alone(tmp_path):
    """The Entity page's pairs: generated for the documents the entity is grounded in, the same pairs the whole
    collection's view lists for it."""
    from kgcore.index.pipeline import Job, index_files
    from kgcore.index.store.disk import Store
    from kgcore.index.views.entities import entity_groups
    from kgcore.query.qakg import qa_pairs_graph
    from kgcore.query.qakg.graph import DOCUMENT_PAIRS, grounding_pairs_graph
    from ui.qa_pairs_view import entity_pairs

    texts = {"garden.txt": GARDEN,
             "harbour.txt": "Marta Vell kept the lighthouse on Gull Rock. She lit the great lamp every evening. "
                            "Peter visited Marta Vell at the lighthouse. The Harbour Council gave Marta Vell a medal.",
             "mill.txt": "The miller ground the corn at the old mill. His daughter sold the flour at the market."}
    store = Store(tmp_path)
    index_files([Job(name, data=text.encode()) for name, text in texts.items()], store, "three", workers=1)
    whole = qa_pairs_graph(store.load("three"))
    index = store.load("three")
    checked = 0
    for group in entity_groups(index):
        part = grounding_pairs_graph(index, group.grounded_texts)
        found = [part.pairs[i].id for i, _ in entity_pairs(part, group.node_ids)]
        assert found == [whole.pairs[i].id for i, _ in entity_pairs(whole, group.node_ids)], group.name
        checked += bool(found)
    assert checked >= 3 and index.cache.peek(DOCUMENT_PAIRS) is None  # never every document at once
    marta = next(g for g in entity_groups(index) if g.name == "Marta Vell")
    assert {p.sentence_id.split("/")[0] for p in grounding_pairs_graph(index, marta.grounded_texts).pairs} == {
        "harbour"}
