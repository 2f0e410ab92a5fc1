"""Sentence splitting with the real spaCy (:mod:`kgcore.index.sentences`): Peter Rabbit end to end, chunk ids."""

from __future__ import annotations

import re

import pytest

from kgcore.core.settings import Settings
from kgcore.core.types import sentence_id
from kgcore.index.load import load_document, load_text
from kgcore.index.sentences import normalize_sentence, split_sentences
from paths import PETER

SETTINGS = Settings()  # defaults, independent of the caller's KGCORE_* environment


@pytest.fixture(scope="module")
def peter_doc():
    return load_document(PETER, SETTINGS)


@pytest.fixture(scope="module")
def peter_sentences(peter_doc, nlp):
    return split_sentences(peter_doc, nlp)


# ---------------------------------------------------------------- Peter Rabbit, end to end


def test_peter_sentences_are_single_clean_lines(peter_sentences):
    assert len(peter_sentences) > 50
    for sentence in peter_sentences:
        assert "\n" not in sentence.original
        assert "[Illustration" not in sentence.original and "Illustration]" not in sentence.original
        assert sentence.original == sentence.original.strip()
        assert any(ch.isalnum() for ch in sentence.original)


def test_peter_has_no_gutenberg_boilerplate(peter_sentences):
    text = " ".join(s.original for s in peter_sentences)
    for boilerplate in ("Gutenberg", "License", "Produced by", "eBook", "www.", "Release Date"):
        assert boilerplate not in text
    # the story's first and last sentences survive the stripping
    assert peter_sentences[0].original == "THE TALE"
    assert "Once upon a time there were four little rabbits" in text
    assert peter_sentences[-1].original.endswith("bread and milk and blackberries for supper.")


def _one_sentence_with(sentences, *parts):
    found = [s for s in sentences if all(part in s.original for part in parts)]
    assert len(found) == 1, f"expected one sentence containing {parts}, got {[s.original for s in found]}"
    return found[0]


def test_peter_sentences_cut_by_illustrations_are_whole(peter_sentences):
    _one_sentence_with(peter_sentences, "went down the lane together", "To gather blackberries")
    _one_sentence_with(peter_sentences, "He Ate Some Radishes")
    _one_sentence_with(peter_sentences, "ran straight away to Mr. McGregor's garden", "Squeezed under the gate!")
    _one_sentence_with(peter_sentences, "Peter never stopped running", "Till he got home to the big fir-tree.")
    exact = "They lived with their mother in a sand-bank, underneath the root of a very big fir tree."
    assert exact in [s.original for s in peter_sentences]


def test_peter_abbreviated_titles_do_not_end_sentences(peter_sentences):
    pie = _one_sentence_with(peter_sentences, "he was put in a pie by Mrs.", "McGregor")
    assert pie.original == 'Your father had an accident there; he was put in a pie by Mrs. McGregor."'
    quote = _one_sentence_with(peter_sentences, '"Now, my dears," said old Mrs. Rabbit')
    assert quote.original.endswith("don't go into Mr. McGregor's garden.")
    _one_sentence_with(peter_sentences, "whom should he meet but Mr. McGregor!")
    for sentence in peter_sentences:
        assert not re.search(r"\bMrs?\.$", sentence.original), sentence.original
        assert not sentence.original.startswith("McGregor")


def test_peter_ids_and_positions(peter_sentences):
    ids = [s.id for s in peter_sentences]
    assert len(set(ids)) == len(ids)
    assert [s.position for s in peter_sentences] == list(range(len(peter_sentences)))
    for sentence in peter_sentences:
        assert re.fullmatch(r"peter_rabbit/text_\d+-\d+", sentence.id) and sentence.doc_id == "peter_rabbit"
        assert sentence.id == sentence_id(sentence.chunk, sentence.index, "peter_rabbit")
        assert sentence.normalized == normalize_sentence(sentence.original)
        assert sentence.resolved == sentence.normalized
    assert {s.chunk for s in peter_sentences} == {0}  # the whole tale is far below 5000 tokens


def test_small_chunks_restart_ids_and_keep_sentences(peter_doc, peter_sentences, nlp):
    small = split_sentences(peter_doc, nlp, chunk_tokens=100)
    assert [s.original for s in small] == [s.original for s in peter_sentences]
    chunks = sorted({s.chunk for s in small})
    assert chunks == list(range(len(chunks))) and len(chunks) > 5
    for chunk in chunks:
        assert [s.index for s in small if s.chunk == chunk] == list(range(sum(s.chunk == chunk for s in small)))
        words = sum(len(s.original.split()) for s in small if s.chunk == chunk)
        assert words <= 100


def test_every_sentence_has_a_letter_or_digit(nlp):
    doc = load_text('He ran away.\n\n* * *\n\n"Stop!" ... !\n\n"She said "\n\nNo.', "punct.txt")
    sentences = split_sentences(doc, nlp)
    assert sentences and all(any(ch.isalnum() for ch in s.original) for s in sentences)
    assert "He ran away." in [s.original for s in sentences]
