"""The narrator of first-person books with the real models: detection in the bundled books, and a real index
built with narrator resolution (graph, manifest, retrieval, CLI)."""

from __future__ import annotations

import json

import pytest

from kgcore.cli import main
from kgcore.core.settings import IndexOptions, RetrievalOptions
from kgcore.index.narrator import narrator_for
from paths import ASSETS, PETER

# A short first-person story written for these tests: the narrator names himself once.
STORY = """My name is Tom Harlow, and I was born in a small town by the sea.

My father was a rope-maker from Bristol, and he taught me to splice a line.

I went to sea when I was sixteen, against the wishes of my mother.

A storm drove our ship onto the rocks of a small island, and I alone came ashore.

"I will build a hut before the rains," I said to the parrot.

The parrot's father, the old captain told me later, had come from Brazil.

I built the hut from driftwood and thatched it with palm leaves.

When the rains came, I stayed dry under my own roof.

Years later a sloop took us off, and we stayed twenty days at Lisbon.
"""


# -- real books and a real index -------------------------------------------------------------


def test_detection_on_the_bundled_books():
    from kgcore.core.nlp import load_spacy
    from kgcore.index.load import load_document
    from kgcore.index.sentences import split_sentences

    nlp = load_spacy()
    crusoe = split_sentences(load_document(ASSETS / "robinson_crusoe.txt"), nlp, 5000)
    narrator = narrator_for(crusoe, "auto")
    assert narrator.name == "Robinson Crusoe" and narrator.source == "text" and narrator.first_person_share > 0.6
    assert "Robinson Crusoe" in narrator.evidence
    peter = split_sentences(load_document(PETER), nlp, 5000)
    assert narrator_for(peter, "auto") is None


@pytest.fixture(scope="module")
def story_engine(tmp_path_factory):
    from kgcore.index.load import load_text
    from kgcore.index.pipeline import index_document
    from kgcore.index.store.disk import Store
    from kgcore.query.engine import QueryEngine

    store = Store(tmp_path_factory.mktemp("narrator_store"))
    for name, narrator in (("story", "auto"), ("story-plain", "none")):
        index_document(load_text(STORY, name), store, IndexOptions(narrator=narrator))
    return QueryEngine(store)


def test_index_resolves_the_narrator_into_graph_and_manifest(story_engine):
    index = story_engine.index("story")
    narrator = index.manifest.document("story").manifest.narrator
    assert narrator.name == "Tom Harlow" and narrator.source == "text" and narrator.resolved >= 10
    tom = index.graph.nodes["tom harlow"]
    assert len(tom.grounded_texts) >= 6  # every narrated sentence, not just the one naming him
    father = index.sentence(next(s.id for s in index.sentences if "rope-maker" in s.original))
    assert father.resolved.startswith("Tom Harlow's father")
    assert any(e.source == "story/father" and e.target == "tom harlow" and e.edge_role == "poss"
               for e in index.graph.edges)
    speech = next(s for s in index.sentences if s.original.startswith('"I will build'))  # "I said": his own words
    assert speech.resolved == '"Tom Harlow will build a hut before the rains," Tom Harlow said to the parrot.'
    lisbon = next(s for s in index.sentences if "Lisbon" in s.original)  # the narration's "we" includes him
    assert lisbon.resolved == ("Years later a sloop took Tom Harlow and companions off, and Tom Harlow and companions "
                               "stayed twenty days at Lisbon.")
    stay = {e.target for e in index.graph.edges if e.source.startswith("story/stay") and e.edge_role.startswith("ARG")}
    assert {"tom harlow", "story/companion", "lisbon"} <= stay
    assert not any(n.endswith("/we") or n == "we" for n in index.graph.nodes)
    plain = story_engine.index("story-plain")
    assert plain.manifest.document("story-plain").manifest.narrator is None and "tom harlow" in plain.graph.nodes
    assert len(plain.graph.nodes["tom harlow"].grounded_texts) == 1


def test_a_question_naming_the_narrator_reaches_i(story_engine):
    question = "Who taught Harlow to splice a line?"
    result = story_engine.retrieve("story", question, RetrievalOptions(budget_sentences=1))
    (top,) = result.sentences
    assert "taught me to splice" in top.text
    labels = {n.key: n.label for n in result.query_graph.nodes}
    harlow = [a for a in top.aligned if labels[a["query_node"]] == "Harlow"]
    assert harlow and harlow[0]["node_id"] == "tom harlow"
    # the question's structure recurs through the narrator: teach -- Harlow
    assert "teach" in [labels[q] for q in harlow[0]["linked"]]
    # without the narrator the same sentence holds no node for Harlow at all
    plain = story_engine.retrieve("story-plain", question, RetrievalOptions(budget_words=0))
    row = next(s for s in plain.sentences if "taught me" in s.text)
    assert not any(labels.get(a["query_node"]) == "Harlow" for a in row.aligned)


# A third-person story with dialogue and a chapter heading, written for these tests.
DIALOGUE = """Raoul waited by the lake for an hour.

"I have seen a light twice," said Raoul.

CHAPTER II -- THE LAKE

He rowed across the water in silence.

"I know my way," Christine replied, "and I am not afraid."
"""


def test_quoted_first_person_is_its_speaker_and_a_heading_is_no_antecedent(tmp_path):
    from kgcore.index.load import load_text
    from kgcore.index.pipeline import index_document
    from kgcore.index.store.disk import Store

    store = Store(tmp_path / "store")
    index_document(load_text(DIALOGUE, "lake"), store, IndexOptions())
    index = store.load("lake")
    by_start = {s.original[:12]: s.resolved for s in index.sentences}
    assert by_start['"I have seen'] == '"Raoul have seen a light twice," said Raoul.'
    assert by_start['"I know my w'] == ('"Christine know Christine\'s way," Christine replied, '
                                        '"and Christine am not afraid."')
    assert by_start["He rowed acr"] == "Raoul rowed across the water in silence."  # the heading breaks no chain
    heading = next(s for s in index.sentences if s.original.startswith("CHAPTER II"))
    assert heading.role == "heading" and index.graph.nodes_in_sentence(heading.id)  # still in the graph
    assert "lake/i" not in index.graph.nodes and "i" not in index.graph.nodes
    christine = index.graph.nodes["christine"]
    assert len(christine.grounded_texts) == 1 and any(e.source == "christine" or e.target == "christine"
                                                      for e in index.graph.edges)


def test_cli_narrator_option(tmp_path, capsys):
    book = tmp_path / "story.txt"
    book.write_text(STORY, encoding="utf-8")
    assert main(["index", str(book), "--store", str(tmp_path / "s"), "--narrator", "Tom Harlow", "--quiet"]) == 0
    document_line, collection_line = capsys.readouterr().out.splitlines()
    assert json.loads(document_line)["narrator"] == "Tom Harlow" and json.loads(collection_line)["documents"] == 1
    assert main(["index", str(book), "--store", str(tmp_path / "s"), "--narrator", "Tom<script>", "--quiet"]) == 2
    assert "narrator" in capsys.readouterr().err
