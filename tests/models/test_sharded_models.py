"""A collection served from shards (each a Ray actor holding some documents) answers as one process does: the
same sentences, scores, ranks and answer for ``dense``, ``bm25`` and ``hybrid`` at every budget, with 2 local actors
and without Ray; the default method (``groundedkg``, fused ranking and multi-hop walk) and ``lesegr`` the same
sentences, scores, ranks, explanations and matched nodes, where no node or edge joins documents of two shards and
where entities and contextual-graph links cross them (the shards trade those links' messages); the graph-score
ranking within its measured agreement; a shard that fails is named."""

from __future__ import annotations

import json

import numpy as np
import pytest
from wordnetkit import requires_wordnet

from kgcore.cli import main
from kgcore.core.errors import InputError
from kgcore.core.settings import IndexOptions, RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine
from kgcore.query.sharded import EXACT, ShardedEngine, ShardError, split
from kgcore.query.sharded_links import CUT

# Written for these tests: people and places that recur across documents, sentences of different lengths.
TEXTS = {
    "lighthouse.txt": "Mara kept the lighthouse on the northern cape. Every night she climbed the stairs and lit the "
                      "lamp. Her brother Tomas brought bread from the village when the sea was calm.",
    "orchard.txt": "Mara planted apple trees behind the old mill. Old Tomas pruned them in winter. The miller sold the "
                   "apples at the market in autumn, and the money paid for a new roof on the lighthouse.",
    "harbour.txt": "The ferry left the harbour before dawn. A gull followed it past the breakwater. The captain "
                   "counted the passengers twice because the fog was thick.",
    "storm.txt": "A storm broke the lamp of the lighthouse in March. Mara rowed to the village for glass. The "
                 "glazier, an old friend of the miller, cut a new pane that evening.",
    "market.txt": "On market day the village square filled with carts. Tomas sold bread and honey. The captain of "
                  "the ferry bought apples for the crossing.",
}
QUESTIONS = ["Who lit the lamp of the lighthouse?", "What did the miller sell at the market?",
             "Why did the captain count the passengers twice?", "What broke the lamp?"]
#: Questions that name someone (the fused ranking weighs the question's names over 250 words and under a
#: sentence budget); the last misspells a name two documents write inside a sentence (asked as "Tomas").
NAMED = ["Why did Mara row to the village?", "What did Tomas sell?", "What did Tomass sell?"]
OPTIONS = [RetrievalOptions(method=m, **cut) for m in EXACT
           for cut in ({}, {"budget_words": 40}, {"budget_words": 95}, {"budget_sentences": 3},
                       {"budget_words": 60, "documents": ("orchard", "market")})]
#: The default method as the app asks it (fused ranking, a word budget), and the graph-score ranking.
GRAPH_OPTIONS = [RetrievalOptions(method="groundedkg", budget_words=60),
                 RetrievalOptions(method="groundedkg", budget_words=120),
                 RetrievalOptions(method="groundedkg", budget_words=60, ranking="graph-score"),
                 RetrievalOptions(method="lesegr", budget_words=60)]
NAMES_OPTIONS = [RetrievalOptions(method="groundedkg", budget_words=300),
                 RetrievalOptions(method="groundedkg", budget_sentences=3)]
#: Questions over some documents (a shard may hold none of them), after one over 1,000 words (two stages) and
#: between them, so a shard out of scope must not send what it kept of the question before.
SCOPED_OPTIONS = [RetrievalOptions(method="groundedkg", budget_words=2000),
                  RetrievalOptions(method="groundedkg", budget_words=60, documents=("orchard", "storm")),
                  RetrievalOptions(method="lesegr", budget_words=2000),
                  RetrievalOptions(method="groundedkg", budget_words=60, documents=("storm", "lighthouse")),
                  RetrievalOptions(method="groundedkg", budget_words=2000, documents=("market", "harbour")),
                  RetrievalOptions(method="lesegr", budget_words=60, documents=("orchard",))]

#: Written for these tests: five documents that share no person, place or thing (each node of the collection's graph
#: is grounded in one document), so no graph path crosses documents.
APART = {
    "lighthouse.txt": TEXTS["lighthouse.txt"],
    "orchard.txt": "Old Henrik planted apple trees behind his mill. He pruned them in winter with a hooked knife. "
                   "His daughter sold cider at the fair each autumn.",
    "harbour.txt": TEXTS["harbour.txt"],
    "comet.txt": "An astronomer in Prague spotted a comet through her telescope. Its tail glowed green for nine "
                 "nights. Newspapers printed her sketches beside the weather report.",
    "bakery.txt": "Dough rose slowly in the cold cellar. The baker Ilse shaped loaves at four o'clock. Customers "
                  "queued on the pavement for rye rolls.",
}
APART_QUESTIONS = ["Who lit the lamp of the lighthouse?", "What did the daughter sell at the fair?",
                   "Why did the captain count the passengers twice?", "What colour was the comet's tail?",
                   "When did the baker shape loaves?", "When did the baker Ilse shape loaves?",
                   "What did Henrik plant behind his mill?"]  # the last two name someone: the names weight
APART_OPTIONS = [RetrievalOptions(method="groundedkg", budget_words=words) for words in (30, 60, 120)] + [
    RetrievalOptions(method="groundedkg", budget_sentences=2),
    RetrievalOptions(method="groundedkg", budget_words=50, documents=("comet", "bakery", "harbour")),
    RetrievalOptions(method="lesegr", budget_words=60), RetrievalOptions(method="lesegr"),
    RetrievalOptions(method="groundedkg", budget_words=300)]  # over 250 words the question's names weigh

#: The least mean overlap of the graph-score ranking's sentences on 3 shards (each ranking its own documents, merged
#: by score) with one process's, at 60 words, on the village texts (measured 0.91).
MIN_OVERLAP = 0.8


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("sharded"))
    jobs = [Job(name, data=text.encode()) for name, text in TEXTS.items()]
    (outcome,) = index_files(jobs, store, "village", workers=1)
    assert not outcome.failed
    return store


def _seen(result):
    return [(s.id, s.position, s.rank, s.score, s.similarity, s.document, s.source_file) for s in result.sentences]


def _same_as_one_process(store, sharded):
    engine = QueryEngine(store)
    compared = 0
    for options in OPTIONS:
        for question in QUESTIONS:
            one = engine.retrieve("village", question, options)
            many = sharded.retrieve(question, options)
            assert _seen(many) == _seen(one), (question, options)
            assert many.candidates == one.candidates and many.collection == "village"
            assert sharded.answer(many).text == engine.answer(one).text
            compared += 1
    return compared


def test_shards_in_this_process_give_what_one_process_gives(store):
    with ShardedEngine(store, "village", shards=3, address=None, graph=False) as sharded:
        assert sorted(d for part in sharded.parts for d in part) == sorted(store.manifest("village").doc_ids)
        assert len(sharded.parts) == 3
        assert _same_as_one_process(store, sharded) == len(OPTIONS) * len(QUESTIONS)
        with pytest.raises(InputError, match="not 'qa-kg'"):
            sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="qa-kg"))
        with pytest.raises(InputError, match="needs shards loaded with their graphs"):
            sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="groundedkg", budget_words=60))
        with pytest.raises(InputError, match="'nosuch' is not a document of 'village'"):
            sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="dense", documents=("orchard", "nosuch")))
        with pytest.raises(InputError, match="question-answer graph"):
            sharded.answer(sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="dense")), "qa-kg")


def test_two_ray_actors_give_what_one_process_gives(store):
    with ShardedEngine(store, "village", shards=2, address="local") as sharded:
        assert [len(p) for p in sharded.parts] == [3, 2]
        assert _same_as_one_process(store, sharded) == len(OPTIONS) * len(QUESTIONS)
        memory = sharded.memory()  # each actor's own process: its memory and its share of the collection
        assert [m["documents"] for m in memory] == [3, 2]
        assert sum(m["sentences"] for m in memory) == store.manifest("village").counts.sentences
        assert all(m["resident_mb"] > 100 and 0 <= m["mapped_mb"] < m["resident_mb"] for m in memory)
        assert sum(len(g) for g in sharded.ghosts) > 0  # the actors trade messages across shards
        for question in QUESTIONS:  # the default method, on the actors, as one process
            one = QueryEngine(store).retrieve("village", question, GRAPH_OPTIONS[0])
            many = sharded.retrieve(question, GRAPH_OPTIONS[0])
            assert many.method == "groundedkg" and _explained(many) == _explained(one)


def test_the_default_method_on_one_shard_is_one_process(store):
    """One shard holds every document: its graph, linked again, is the collection's, so the graph methods give
    exactly what one process gives (the merge adds nothing of its own)."""
    engine = QueryEngine(store)
    with ShardedEngine(store, "village", shards=1, address=None) as sharded:
        for options in GRAPH_OPTIONS + NAMES_OPTIONS:
            for question in QUESTIONS + NAMED:
                one, many = engine.retrieve("village", question, options), sharded.retrieve(question, options)
                assert [(s.id, s.rank, s.score) for s in many.sentences] == [(s.id, s.rank, s.score)
                                                                              for s in one.sentences]
                assert many.candidates == one.candidates
                assert many.respelled == one.respelled and many.notes[:1] == one.notes[:1]


@requires_wordnet
def test_a_misspelt_name_is_respelt_by_the_shards_words_as_one_process_does(store):
    """Each of two shards writes "Tomas" once inside a sentence, one process twice: the merged counts respell."""
    engine = QueryEngine(store)
    with ShardedEngine(store, "village", shards=2, address=None) as sharded:
        assert [v.named.get("tomas", 0) for v in sharded.ask_all("vocabulary")] == [1, 1]
        for options in NAMES_OPTIONS:
            one, many = engine.retrieve("village", NAMED[-1], options), sharded.retrieve(NAMED[-1], options)
            assert one.respelled == many.respelled == {"Tomass": "Tomas"} and many.asked == "What did Tomass sell?"
            assert many.question == one.question == "What did Tomas sell?" and many.notes[0] == one.notes[0]


@pytest.fixture(scope="module")
def apart(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("apart"))
    (outcome,) = index_files([Job(name, data=text.encode()) for name, text in APART.items()], store, "apart",
                             workers=1)
    assert not outcome.failed
    return store


def _explained(result):
    return [(s.id, s.position, s.rank, s.score, s.similarity, s.signals, s.aligned, s.selected_by, s.query_nodes)
            for s in result.sentences]


def test_the_graph_methods_on_three_shards_are_one_process_when_no_graph_path_crosses_them(apart):
    """Each shard scores with the collection's statistics (BM25 counts, the signals' ranks and best values, node
    specificity, the query nodes' best matches and top-K), so where no node or edge joins two documents the default
    method and ``lesegr`` on 3 shards select, score, rank and explain every sentence (its signals, aligned and
    matched nodes) as one process does."""
    from kgcore.index.views.contextual import context_graph

    store = apart
    engine = QueryEngine(store)
    index = engine.index("apart")
    assert all(len({index.sentence(s).doc_id for s in node.grounded_texts}) == 1 for node in index.graph.nodes.values())
    edges = context_graph(index).weights.tocoo()
    docs = index.sentence_documents
    chunk_docs = np.r_[docs, [docs[lo] for lo, _ in context_graph(index).chunk_spans]]
    assert (chunk_docs[edges.row] == chunk_docs[edges.col]).all()

    with ShardedEngine(store, "apart", shards=3, address=None) as sharded:
        assert sharded.crossing_nodes == 0
        for options in APART_OPTIONS:
            for question in APART_QUESTIONS:
                one, many = engine.retrieve("apart", question, options), sharded.retrieve(question, options)
                assert _explained(many) == _explained(one), (question, options)
                assert many.candidates == one.candidates
                assert [m.to_dict() for m in many.matches] == [m.to_dict() for m in one.matches]


def test_over_the_graph_head_the_second_stage_is_one_process_too(apart, monkeypatch):
    """Over :data:`~kgcore.query.fused.GRAPH_HEAD_WORDS` words one process fills the graph head from the fused
    order and the rest from the order without the graph signal; the driver does the same over the shards' two
    rankings (the head made small here, so these short texts need both stages)."""
    from kgcore.query import fused

    monkeypatch.setattr(fused, "GRAPH_HEAD_WORDS", 40)
    engine = QueryEngine(apart)
    with ShardedEngine(apart, "apart", shards=3, address=None) as sharded:
        for options in APART_OPTIONS[1:3] + APART_OPTIONS[4:5]:
            for question in APART_QUESTIONS:
                one, many = engine.retrieve("apart", question, options), sharded.retrieve(question, options)
                assert _explained(many) == _explained(one), (question, options)
                assert {s.signals["stage"] for s in one.sentences} == {"graph", "text"}


@pytest.mark.parametrize("shards", [2, 3])
def test_the_graph_methods_hear_across_shards_as_one_process(store, shards, monkeypatch):
    """The village's people and places are entities of several documents, so the contextual graph links sentences
    of different shards (a rare name, a related chunk).  Every shard takes its part of the collection's graph and
    the driver trades the messages that cross shards once per layer, so the default method and ``lesegr`` select,
    score, rank, explain and match as one process does: two layers under 250 words, one above, both stages over
    the graph head (made small here), and over some documents only (a shard holding none of them still sends the
    context of the names it shares).  With the trade left out (links cut) a quarter or more of the cases differ."""
    from kgcore.query import fused

    engine = QueryEngine(store)
    cases = [(q, o) for o in GRAPH_OPTIONS if o.ranking == "fused" for q in QUESTIONS]
    cases += [(q, o) for o in NAMES_OPTIONS for q in NAMED]
    cases += [(q, o) for o in SCOPED_OPTIONS for q in QUESTIONS + NAMED]  # some shards out of the documents asked
    with ShardedEngine(store, "village", shards=shards, address=None) as sharded:
        assert sharded.crossing_nodes > 0 and sum(len(g) for g in sharded.ghosts) > 0
        for question, options in cases:  # in turn: a shard out of scope keeps nothing of the question before
            one, many = engine.retrieve("village", question, options), sharded.retrieve(question, options)
            assert _explained(many) == _explained(one) and many.candidates == one.candidates, (question, options)
            assert [m.to_dict() for m in many.matches] == [m.to_dict() for m in one.matches]
            assert many.respelled == one.respelled  # the shards' words counted as one collection's
            held = [(m.query_node, m.node_id) for m in many.matches]
            assert len(set(held)) == len(held)  # a node two shards hold is matched once
        monkeypatch.setattr(fused, "GRAPH_HEAD_WORDS", 40)
        for question in QUESTIONS:
            options = RetrievalOptions(method="groundedkg", budget_words=120)
            one, many = engine.retrieve("village", question, options), sharded.retrieve(question, options)
            assert {s.signals["stage"] for s in one.sentences} == {"graph", "text"}
            assert _explained(many) == _explained(one), question
        monkeypatch.undo()
        sharded.ghosts = None  # the links between shards cut: what each shard's own messages give
        cut = [(q, o) for q, o in cases if _explained(sharded.retrieve(q, o)) != _explained(
            engine.retrieve("village", q, o))]
        assert len(cut) >= len(cases) // 4
        assert CUT in sharded.retrieve(*cases[0]).notes  # and the ranking says its links are cut


def test_shards_without_the_collections_graph_say_their_links_are_cut(store, monkeypatch):
    """A shard that finds no stored contextual graph for the collection's generation (it changed as the shards
    started, or the store could not be written) ranks over its own documents' graph: the engine cuts the links
    for all and every graph ranking says so."""
    from kgcore.query.shard_links import ShardLinks

    monkeypatch.setattr(ShardLinks, "load", classmethod(lambda cls, path, manifest, rows: None))
    with ShardedEngine(store, "village", shards=2, address=None) as sharded:
        assert sharded.ghosts is None
        result = sharded.retrieve(QUESTIONS[0], GRAPH_OPTIONS[0])
        assert CUT in result.notes and result.sentences
        assert CUT not in sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="dense")).notes


def test_the_graph_score_ranking_on_three_shards_keeps_most_sentences(store):
    """``groundedkg``'s graph-score ranking runs on each shard's documents alone, merged by score: close to one
    process's context, not the same; every kept sentence fits the budget and is placed at its row."""
    engine = QueryEngine(store)
    overlaps = []
    options = GRAPH_OPTIONS[2]
    with ShardedEngine(store, "village", shards=3, address=None) as sharded:
        for question in QUESTIONS:
            one, many = engine.retrieve("village", question, options), sharded.retrieve(question, options)
            assert sum(len(s.text.split()) for s in many.sentences) <= options.budget_words
            index = engine.index("village")
            assert all(index.sentences[s.position].id == s.id for s in many.sentences)
            ids = {s.id for s in one.sentences}
            overlaps.append(len(ids & {s.id for s in many.sentences}) / len(ids))
    assert sum(overlaps) / len(overlaps) >= MIN_OVERLAP, overlaps


def test_the_collections_contextual_graph_is_stored_once_for_the_shards(store, tmp_path):
    """A collection whose contextual graph is not stored for its generation (never asked in one process) gets it
    when a sharded engine starts; the shards answer as one process."""
    import shutil

    from kgcore.index.store.recovery import linked_folder
    from kgcore.index.views import context_store

    copy = Store(tmp_path / "copy")
    shutil.copytree(store.doc_path("village"), copy.doc_path("village"))
    manifest = copy.manifest("village")
    stored = copy.doc_path("village") / linked_folder(manifest.generation) / context_store.STORED
    stored.unlink(missing_ok=True)
    with ShardedEngine(copy, "village", shards=2, address=None) as sharded:
        assert stored.is_file() and sharded.ghosts is not None
        question, options = QUESTIONS[3], GRAPH_OPTIONS[0]
        one = QueryEngine(copy).retrieve("village", question, options)
        assert _explained(sharded.retrieve(question, options)) == _explained(one)


def test_a_damaged_shard_is_named(store, tmp_path):
    """A shard whose document cannot be read fails with its number and documents, before any question."""
    import shutil

    copy = Store(tmp_path / "copy")
    shutil.copytree(store.doc_path("village"), copy.doc_path("village"))
    entry = copy.manifest("village").document("storm")
    (copy.doc_path("village") / "documents" / entry.folder / "sentences.jsonl").write_text("{not json\n")
    shard = next(n for n, part in enumerate(split(copy.manifest("village").doc_ids, 2)) if "storm" in part)
    with pytest.raises(ShardError, match=rf"shard {shard} \(documents .*storm.*\) failed: .*sentences\.jsonl"):
        ShardedEngine(copy, "village", shards=2, address=None, graph=False)


def test_a_ray_shard_that_dies_is_named(store):
    with ShardedEngine(store, "village", shards=2, address="local", graph=False) as sharded:
        sharded._runner.start().kill(sharded._actors[1])
        with pytest.raises(ShardError, match=r"shard 1 \(documents "):
            sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="bm25", budget_words=40))


def test_the_multi_hop_walk_crosses_shards(tmp_path):
    """The driver holds the collection's entity pages and walks them over every shard: from the page a question
    names to the page its sentence leads to on another shard, and between the pages a comparison names.  On 2
    shards (the film and its director on one, the other director on the other) and on 3 (the director's name
    joins documents of two shards: one node in one process, two on the shards, whose links the shards trade)
    every sentence, score, rank and path is one process's."""
    from tests.models.test_multihop_models import PAGES

    for name, text in PAGES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    store = Store(tmp_path / "store")
    index_files(sorted(tmp_path.glob("*.txt")), store, "pages", workers=1)
    engine = QueryEngine(store)
    questions = ["When was the director of Harbour Lights born?", "Who directed films about lighthouse keepers?",
                 "Were Mara Okonjo and Tomas Verhoek born in the same year?"]
    for shards in (2, 3):
        with ShardedEngine(store, "pages", shards=shards, address=None) as sharded:
            for words in (20, 45, 90):
                for question in questions:
                    options = RetrievalOptions(budget_words=words)
                    one, many = engine.retrieve("pages", question, options), sharded.retrieve(question, options)
                    exact = [(s.id, s.rank, s.score, s.signals.get("path")) for s in one.sentences]
                    assert [(s.id, s.rank, s.score, s.signals.get("path")) for s in many.sentences] == exact
            first = sharded.retrieve(questions[0], RetrievalOptions(budget_words=45))
            walked = [(s.document, s.signals["path"]) for s in first.sentences if "path" in s.signals]
            assert ("mara-okonjo", "Harbour Lights —directed-by→ Mara Okonjo [born-on]") in walked


def test_a_text_repeated_on_two_shards_is_kept_once(tmp_path):
    """One process leaves out a sentence whose text repeats a better-ranked one; the driver does the same across
    shards (each shard sends its sentences' text ids), so the repeated minute line is in the context once."""
    texts = {"council.txt": "The council met in the town hall on Monday. It voted to repair the bridge. The meeting "
                            "was adjourned at noon.",
             "school.txt": "The school board met in the library on Friday. It chose a new headmaster. The meeting "
                           "was adjourned at noon.",
             "club.txt": "The chess club gathered at the cafe. Members played until midnight."}
    store = Store(tmp_path)
    index_files([Job(name, data=text.encode()) for name, text in texts.items()], store, "minutes", workers=1)
    engine = QueryEngine(store)
    with ShardedEngine(store, "minutes", shards=2, address=None) as sharded:
        assert sharded.parts == [["council", "club"], ["school"]]
        for method in ("groundedkg", "lesegr"):
            options = RetrievalOptions(method=method, budget_words=40)
            one = engine.retrieve("minutes", "When was the meeting adjourned?", options)
            many = sharded.retrieve("When was the meeting adjourned?", options)
            assert [s.id for s in many.sentences] == [s.id for s in one.sentences]
            assert sum("adjourned" in s.text for s in many.sentences) == 1


def test_ask_on_the_command_line_from_two_ray_actors(apart, tmp_path, capsys):
    """``kgcore ask --shards 2`` serves the collection from two local Ray actors and prints what one process prints:
    the same sentences, answer and verdict, one JSON line a question; what it cannot serve is named before any
    actor starts."""
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(APART_QUESTIONS[:3]), encoding="utf-8")
    common = ["ask", "--collection", "apart", "--questions", str(questions), "--budget-words", "60",
              "--store", str(apart.root), "--quiet"]

    def lines(*extra: str) -> list[dict]:
        assert main([*common, *extra]) == 0
        return [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    one, many = lines(), lines("--shards", "2", "--ray", "local")
    assert len(one) == len(many) == 3
    for a, b in zip(one, many):
        assert [s["id"] for s in b["sentences"]] == [s["id"] for s in a["sentences"]] != []
        assert b["answer"] == a["answer"] and b["verdict"]["state"] == a["verdict"]["state"]
    for extra, field in ((["--shards", "-1"], "--shards"), (["--shards", "2", "--method", "qa-kg"], "--method"),
                         (["--shards", "2", "--chroma"], "--chroma"), (["--ray", "local"], "--ray"),
                         (["--shards", "2", "--answerer", "qa-kg"], "answerer"),
                         (["--shards", "2", "--documents", "comet,nosuch"], "'nosuch' is not a document"),
                         (["--shards", "2", "--collection", "nowhere"], "nowhere")):
        assert main([*common, *extra]) == 2
        assert field in capsys.readouterr().err


def test_every_shard_holds_the_collections_node_vectors(tmp_path):
    """A name two shards share (Mara, Tomas, the lighthouse) is a node on each, grounded in that shard's sentences;
    its vector is still the collection's -- with ``neighbor`` embeddings, placed among its neighbours in every
    document, not only the shard's -- so a question matches it on each shard as one process matches it."""
    store = Store(tmp_path)
    jobs = [Job(name, data=text.encode()) for name, text in TEXTS.items()]
    index_files(jobs, store, "village", IndexOptions(embedding="neighbor"), workers=1)
    index = QueryEngine(store).index("village")
    row = {node_id: i for i, node_id in enumerate(index.node_ids)}
    with ShardedEngine(store, "village", shards=2, address=None) as sharded:
        parts = [shard.index for shard in sharded._actors]
        shared = set(parts[0].node_ids) & set(parts[1].node_ids)  # the village's people and places cross them
        assert shared and sharded.crossing_nodes == len(shared)  # what the engine reports as cut between shards
        for part in parts:
            ours = np.stack([index.node_vectors[row[node_id]] for node_id in part.node_ids])
            assert np.array_equal(part.node_vectors, ours)  # the collection's rows, copied as they are
        first = sharded.parts[0]
    # the first shard's documents linked alone place a shared node among fewer neighbours: another vector
    index_files([Job(f"{d}.txt", data=TEXTS[f"{d}.txt"].encode()) for d in first], store, "half",
                IndexOptions(embedding="neighbor"), workers=1)
    half = QueryEngine(store).index("half")
    alone = {node_id: half.node_vectors[i] for i, node_id in enumerate(half.node_ids) if node_id in shared}
    assert any(not np.allclose(v, index.node_vectors[row[node_id]], atol=1e-4) for node_id, v in alone.items())


def test_who_wrote_it_gets_the_author_lines_from_the_shards_as_one_process_does(tmp_path):
    """A book's "By ..." line is a title page line, kept out of retrieval but added for "Who wrote the book?": the
    shard holding the asked document gives it, as one process does."""
    store = Store(tmp_path / "store")
    books = {"light.txt": "THE LIGHTHOUSE\n\nBy Ann Lee\n\nThe keeper lit the lamp at dusk. He trimmed the wick "
                          "every four hours.",
             "mill.txt": "THE MILL\n\nBy Tom Reid\n\nThe miller ground the corn at dawn. His dog slept by the door."}
    (outcome,) = index_files([Job(name, data=text.encode()) for name, text in books.items()], store, "books",
                             workers=1)
    assert not outcome.failed
    options = RetrievalOptions(method="dense", budget_words=40, documents=("mill",))
    one = QueryEngine(store).retrieve("books", "Who wrote the book?", options)
    with ShardedEngine(store, "books", shards=2, address=None, graph=False) as sharded:
        many = sharded.retrieve("Who wrote the book?", options)
    assert one.sentences[0].text == many.sentences[0].text == "By Tom Reid"
    assert not any("Ann Lee" in s.text for s in one.sentences + many.sentences)
