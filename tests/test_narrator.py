"""The narrator of first-person books: detection, resolution outside quotes, and a real index built with it."""

from __future__ import annotations

import json

import pytest

from conftest import ASSETS, PETER
from kgcore.cli import main
from kgcore.errors import InputError
from kgcore.narrator import (
    check_narrator_option,
    find_narrator_name,
    first_person_share,
    narrator_for,
    outside_quotes,
    resolve_first_person,
    resolve_narrator,
)
from kgcore.settings import IndexOptions, RetrievalOptions
from kgcore.types import Sentence

# A short first-person story written for these tests: the narrator names himself once.
STORY = """My name is Tom Harlow, and I was born in a small town by the sea.

My father was a rope-maker from Bristol, and he taught me to splice a line.

I went to sea when I was sixteen, against the wishes of my mother.

A storm drove our ship onto the rocks of a small island, and I alone came ashore.

"I will build a hut before the rains," I said to the parrot.

The parrot's father, the old captain told me later, had come from Brazil.

I built the hut from driftwood and thatched it with palm leaves.

When the rains came, I stayed dry under my own roof.
"""


def sentences(*texts: str, chunk: int = 0) -> list[Sentence]:
    return [Sentence(f"text_{chunk}-{i}", chunk, i, i, t, t, t) for i, t in enumerate(texts)]


# -- pure rules --------------------------------------------------------------------------------


def test_quotes_are_tracked_across_sentences_and_reopened_paragraphs():
    ranges, inside = outside_quotes('"I came here long ago.')
    assert ranges == [] and inside
    ranges, inside = outside_quotes('"And I stayed," he said.', inside=True)  # a continued quote re-opened
    assert inside is False and 'he said.' in "".join('"And I stayed," he said.'[a:b] for a, b in ranges)
    assert outside_quotes("No quotes at all.") == ([(0, 17)], False)


def test_first_person_share_ignores_dialogue():
    assert first_person_share(['"I am here," said Peter.', '"I know," said his mother.', "Peter ran."]) == 0
    assert first_person_share(["I ran.", "My father stayed.", "The sea rose.", "It rained."]) == 0.5


@pytest.mark.parametrize("text, name", [
    ("Call me Ishmael.", "Ishmael"),
    ("My name is Tom Harlow, and I was born by the sea.", "Tom Harlow"),
    ("September 30, 1659.--I, poor miserable Robinson Crusoe, being shipwrecked", "Robinson Crusoe"),
    ("I, Sir, will not go.", ""),
    ("They called me a fool.", ""),
])
def test_self_naming_patterns(text, name):
    assert find_narrator_name([text])[0] == name


def test_resolution_rewrites_narration_only():
    text, count = resolve_first_person('My father said, "I will go," and I stayed with mine.', "Tom")
    assert text == "Tom's father said, \"I will go,\" and Tom stayed with Tom's." and count == 3
    assert resolve_first_person("CHAPTER I", "Tom") == ("CHAPTER I", 0)
    assert resolve_first_person("I.", "Tom") == ("I.", 0) and resolve_first_person("I ran.", "Tom") == ("Tom ran.", 1)
    assert resolve_first_person("He was as tired as I.", "Tom") == ("He was as tired as Tom.", 1)
    assert resolve_first_person("I'm sure of it.", "Tom") == ("I'm sure of it.", 0)


def test_quote_state_resets_at_chunk_boundaries():
    first = sentences('"I shall speak long.')
    second = sentences("I went home.", chunk=1)
    out, narrator = resolve_narrator(first + second, narrator_for(first + second, "Tom"))
    assert out[0].resolved == '"I shall speak long.' and out[1].resolved == "Tom went home." and narrator.resolved == 1


def test_narrator_options():
    assert narrator_for(sentences("I ran.", "I slept."), "none") is None
    assert narrator_for(sentences("Peter ran.", "Peter slept."), "auto") is None
    unnamed = narrator_for(sentences("I ran.", "I slept."), "auto")
    assert unnamed.name == "" and unnamed.source == "none" and unnamed.first_person_share == 1.0
    out, same = resolve_narrator(sentences("I ran."), unnamed)
    assert out[0].resolved == "I ran." and same.resolved == 0
    assert narrator_for(sentences("I ran."), "Jane Eyre").source == "user"
    assert check_narrator_option(" AUTO ") == "auto" and check_narrator_option("Jane  Eyre") == "Jane Eyre"
    for bad in ("", "x" * 81, "Robert'); DROP", "Jane\nEyre"):
        with pytest.raises(InputError, match="narrator"):
            IndexOptions(narrator=bad)


# -- real books and a real index -------------------------------------------------------------


def test_detection_on_the_bundled_books():
    from kgcore.ingest import load_document, split_sentences
    from kgcore.nlp import load_spacy

    nlp = load_spacy()
    crusoe = split_sentences(load_document(ASSETS / "robinson_crusoe.txt"), nlp, 5000)
    narrator = narrator_for(crusoe, "auto")
    assert narrator.name == "Robinson Crusoe" and narrator.source == "text" and narrator.first_person_share > 0.6
    assert "Robinson Crusoe" in narrator.evidence
    peter = split_sentences(load_document(PETER), nlp, 5000)
    assert narrator_for(peter, "auto") is None


@pytest.fixture(scope="module")
def story_engine(tmp_path_factory):
    from kgcore.engine import QueryEngine
    from kgcore.ingest import load_text
    from kgcore.pipeline import index_document
    from kgcore.store import Store

    store = Store(tmp_path_factory.mktemp("narrator_store"))
    for name, narrator in (("story", "auto"), ("story-plain", "none")):
        index_document(load_text(STORY, name), store, IndexOptions(narrator=narrator))
    return QueryEngine(store)


def test_index_resolves_the_narrator_into_graph_and_manifest(story_engine):
    index = story_engine.index("story")
    narrator = index.manifest["narrator"]
    assert narrator["name"] == "Tom Harlow" and narrator["source"] == "text" and narrator["resolved"] >= 10
    tom = index.graph.nodes["tom harlow"]
    assert len(tom.grounded_texts) >= 6  # every narrated sentence, not just the one naming him
    father = index.sentence(next(s.id for s in index.sentences if "rope-maker" in s.original))
    assert father.resolved.startswith("Tom Harlow's father")
    assert any(e.source == "father" and e.target == "tom harlow" and e.edge_role == "poss" for e in index.graph.edges)
    speech = next(s for s in index.sentences if s.original.startswith('"I will build'))
    assert speech.resolved.startswith('"I will build') and "Tom Harlow said" in speech.resolved
    plain = story_engine.index("story-plain")
    assert plain.manifest["narrator"] is None and "tom harlow" in plain.graph.nodes
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


def test_cli_narrator_option(tmp_path, capsys):
    book = tmp_path / "story.txt"
    book.write_text(STORY, encoding="utf-8")
    assert main(["index", str(book), "--store", str(tmp_path / "s"), "--narrator", "Tom Harlow", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["narrator"] == "Tom Harlow"
    assert main(["index", str(book), "--store", str(tmp_path / "s"), "--narrator", "Tom<script>", "--quiet"]) == 2
    assert "narrator" in capsys.readouterr().err
