"""A question's misspelt names read in the collection's spelling, with a real index (spaCy, MiniLM): the engine, the
JSON result and the CLI flag that turns it off."""

from __future__ import annotations

import json

import pytest
from wordnetkit import requires_wordnet

from kgcore.cli import main
from kgcore.core.settings import RetrievalOptions

# A short story written for these tests: "Elliot" and "Harville" are the book's spellings; a reader writes
# "Elliott" and "Harvell".
STORY = """Anne walked along the shore at Lyme with her sister.

Mr Elliot had inherited the estate of Kellynch after the death of his cousin.

Mr Elliot was the executor of the will of Mrs Smith's husband, and he refused to act.

Captain Harville lived in a small house near the harbour with his wife.

Captain Harville carved the toys himself from driftwood.

The slaughter of the lambs began in the spring at the farm.

The weather turned cold, and the sisters went home by coach.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from kgcore.index.load import load_text
    from kgcore.index.pipeline import index_document
    from kgcore.index.store.disk import Store
    from kgcore.query.engine import QueryEngine

    store = Store(tmp_path_factory.mktemp("spelling_store"))
    index_document(load_text(STORY, "story"), store)
    return QueryEngine(store)


@requires_wordnet
def test_a_misspelt_name_is_asked_in_the_books_spelling(engine):
    options = RetrievalOptions(budget_sentences=2)
    result = engine.retrieve("story", "What was William Elliott the executor of?", options)
    assert result.respelled == {"Elliott": "Elliot"}
    assert result.question == "What was William Elliot the executor of?"
    assert any("executor of the will" in s.text for s in result.sentences)
    assert result.notes[0] == ("Read with the spelling of the collection: Elliott as “Elliot” "
                               "(names it never writes). The collection never writes William: asked as written.")
    assert result.asked == "What was William Elliott the executor of?"
    answer = engine.answer(result)
    assert "executor" in answer.text


@requires_wordnet
def test_words_english_knows_or_the_book_writes_stay_as_written(engine):
    # "slaughter" is not the book's "laughter", and a name the book writes is never touched
    result = engine.retrieve("story", "Where did Captain Harville live before the slaughter?",
                             RetrievalOptions(budget_sentences=2))
    assert result.respelled == {} and not any("spelling" in n for n in result.notes)
    carved = engine.retrieve("story", "What did Captain Harvell carve?", RetrievalOptions(budget_sentences=1))
    assert carved.respelled == {"Harvell": "Harville"} and "carved the toys" in carved.sentences[0].text


@requires_wordnet
def test_a_name_too_short_to_respell_is_named_with_the_nearest_one_the_book_writes(engine):
    result = engine.retrieve("story", "What did Mrs Smyth's husband leave?", RetrievalOptions(budget_sentences=2))
    assert result.respelled == {} and result.question == "What did Mrs Smyth's husband leave?"
    assert result.notes[0] == "The collection never writes Smyth (nearest name it writes: “Smith”): asked as written."


def test_respelling_can_be_turned_off(engine):
    question = "What was William Elliott the executor of?"
    result = engine.retrieve("story", question, RetrievalOptions(budget_sentences=2, respell=False))
    assert result.question == question and result.respelled == {}
    assert not any("spelling of the collection" in note for note in result.notes)


@requires_wordnet
def test_cli_json_carries_the_respelling_and_no_respell_turns_it_off(engine, capsys):
    store = str(engine.store.root)
    assert main(["ask", "What did Captain Harvell carve?", "--collection", "story", "--store", store, "--json",
                 "--budget-sentences", "1"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["respelled"] == {"Harvell": "Harville"} and row["question"] == "What did Captain Harville carve?"
    assert row["asked"] == "What did Captain Harvell carve?"
    assert main(["ask", "What did Captain Harvell carve?", "--collection", "story", "--store", store, "--json",
                 "--budget-sentences", "1", "--no-respell"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["respelled"] == {} and row["question"] == row["asked"] == "What did Captain Harvell carve?"
