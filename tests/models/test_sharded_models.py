"""A collection served from shards (each a Ray actor holding some documents) answers as one process does: the
same sentences, scores, ranks and answer for ``dense`` at every budget, with 2 local actors and without Ray."""

from __future__ import annotations

import pytest

from kgcore.core.errors import InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine
from kgcore.query.sharded import ShardedEngine

# Written for these tests: people and places that recur across documents, sentences of different lengths.
TEXTS = {
    "lighthouse.txt": "Mara kept the lighthouse on the northern cape. Every night she climbed the stairs and lit the "
                      "lamp. Her brother Tomas brought bread from the village when the sea was calm.",
    "orchard.txt": "Mara planted apple trees behind the old mill. Tomas pruned them in winter. The miller sold the "
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
OPTIONS = [RetrievalOptions(method="dense"), RetrievalOptions(method="dense", budget_words=40),
           RetrievalOptions(method="dense", budget_words=95), RetrievalOptions(method="dense", budget_sentences=3),
           RetrievalOptions(method="dense", budget_words=60, documents=("orchard", "market"))]


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
    with ShardedEngine(store, "village", shards=3, address=None) as sharded:
        assert sorted(d for part in sharded.parts for d in part) == sorted(store.manifest("village").doc_ids)
        assert len(sharded.parts) == 3
        assert _same_as_one_process(store, sharded) == len(OPTIONS) * len(QUESTIONS)
        with pytest.raises(InputError, match="serves 'dense' only"):
            sharded.retrieve(QUESTIONS[0], RetrievalOptions(method="groundedkg"))


def test_two_ray_actors_give_what_one_process_gives(store):
    with ShardedEngine(store, "village", shards=2, address="local") as sharded:
        assert [len(p) for p in sharded.parts] == [3, 2]
        assert _same_as_one_process(store, sharded) == len(OPTIONS) * len(QUESTIONS)
