"""Parses kept on disk (:mod:`kgcore.query.answer.parse_store`), with the real spaCy pipeline: a text parsed once is
read back, equal, by a cache that never parsed it; a store that cannot be written parses as before; the engine's
answers read and write the store's parse file and do not change with it."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from kgcore.core.nlp import load_spacy
from kgcore.core.settings import RetrievalOptions
from kgcore.index.store.disk import Store
from kgcore.query.answer.base import ParseCache, shared_cache, warm_parses
from kgcore.query.answer.parse_store import ParseStore, store_path
from kgcore.query.engine import QueryEngine
from paths import PETER_ID

TEXTS = ["Mr. McGregor caught Peter's father in 1902 and put him in a pie.",
         "Dense passage retrieval encodes questions and passages with two BERT encoders."]


class Counting:
    """The real pipeline, counting the texts it is asked to parse."""

    def __init__(self, nlp):
        self.nlp, self.parsed = nlp, 0

    def pipe(self, texts):
        texts = list(texts)
        self.parsed += len(texts)
        return self.nlp.pipe(texts)


def _analysis(doc) -> list[tuple]:
    return [(t.text, t.lemma_, t.pos_, t.tag_, t.dep_, t.head.i, t.ent_type_, t.is_sent_start) for t in doc]


def test_a_text_parsed_once_is_read_back_equal_by_a_cache_that_never_parsed_it(tmp_path):
    nlp = load_spacy()
    store = ParseStore(store_path(tmp_path, nlp), nlp)
    first = ParseCache(Counting(nlp))
    first.attach(store)
    docs = first.pipe(TEXTS)
    assert first.nlp.parsed == 2 and store.path.is_file() and store.path.parent.name == ".parses"
    second = ParseCache(Counting(nlp))  # a new process's memory: empty
    second.attach(ParseStore(store.path, nlp))
    again = second.pipe([*TEXTS, "A third sentence."])
    assert second.nlp.parsed == 1  # only the text the store lacked
    assert [_analysis(d) for d in again[:2]] == [_analysis(d) for d in docs]
    assert [c.text for c in again[0].noun_chunks] == [c.text for c in docs[0].noun_chunks]
    assert store.missing([*TEXTS, "A third sentence.", "Never seen."]) == ["Never seen."]


def test_a_collection_too_large_for_memory_is_parsed_into_the_store_once(peter_store, tmp_path):
    engine = QueryEngine(Store(tmp_path / "store"))
    shutil.copytree(peter_store.root / PETER_ID, tmp_path / "store" / PETER_ID)
    nlp = engine.generator().nlp
    sentences = engine.index(PETER_ID).sentences
    texts = list(dict.fromkeys(t for s in sentences for t in (s.original, s.resolved or s.original)))
    cache = shared_cache(nlp)
    assert warm_parses(nlp, texts, limit=4) == 0  # over the memory cache's share: not into memory
    pauses = []
    assert engine.store_parses(PETER_ID, pause=lambda: pauses.append(1)) == len(texts)
    assert cache.store.missing(texts) == [] and len(pauses) == -(-len(texts) // 64)  # a pause before each batch
    assert engine.store_parses(PETER_ID) == 0  # once per store


def test_with_an_endpoints_answerer_the_ranking_still_finds_its_candidates_parsed(peter_store, tmp_path):
    """An answerer that is not offline parses nothing, but the fused ranking reads its first candidates' written
    texts for the asked kind: those are filled ahead of the questions, the resolved ones are not."""
    engine = QueryEngine(Store(tmp_path / "store"))
    shutil.copytree(peter_store.root / PETER_ID, tmp_path / "store" / PETER_ID)
    sentences = engine.index(PETER_ID).sentences
    written = list(dict.fromkeys(s.original for s in sentences))
    resolved_only = {s.resolved for s in sentences if s.resolved} - set(written)
    assert resolved_only  # Peter Rabbit's coreference rewrites some sentences
    assert engine.store_parses(PETER_ID, answerer="openai") == len(written)
    store = shared_cache(load_spacy(engine.settings.spacy_model)).store
    assert store.missing(written) == [] and set(store.missing(sorted(resolved_only))) == resolved_only


def test_a_store_that_cannot_be_written_parses_as_before(tmp_path):
    nlp = load_spacy()
    (tmp_path / "store").write_text("a file where the store's folder should be")
    cache = ParseCache(Counting(nlp))
    cache.attach(ParseStore(tmp_path / "store" / ".parses" / "p.sqlite", nlp))
    assert [d.text for d in cache.pipe(TEXTS)] == TEXTS and cache.nlp.parsed == 2
    assert not cache.store.writable and cache.store.missing(TEXTS) == TEXTS


def test_an_unreadable_store_file_is_parsed_around(tmp_path):
    nlp = load_spacy()
    path = tmp_path / "p.sqlite"
    path.write_bytes(b"not a database" * 100)
    cache = ParseCache(Counting(nlp))
    cache.attach(ParseStore(path, nlp))
    assert [d.text for d in cache.pipe(TEXTS)] == TEXTS and cache.nlp.parsed == 2


def test_the_engine_answers_through_the_stores_parse_file_and_the_same_with_it(peter_store):
    question, options = "Where did Peter lose his shoes?", RetrievalOptions(budget_words=300)
    engine = QueryEngine(peter_store)
    nlp = engine.generator().nlp
    cache = shared_cache(nlp)
    assert cache.store is not None and cache.store.path == store_path(peter_store.root, nlp)
    cache.clear()
    result, answer = engine.ask(PETER_ID, question, options)
    with sqlite3.connect(cache.store.path) as con:
        (stored,) = con.execute("SELECT count(*) FROM docs").fetchone()
    assert stored >= len(result.sentences)
    assert cache.store.missing([s.text for s in result.sentences]) == []
    cache.clear()  # a restart: memory empty, the file kept
    again = engine.ask(PETER_ID, question, options)[1]
    assert (again.text, again.citations) == (answer.text, answer.citations) and "cabbages" in again.text
    assert PETER_ID in {m.name for m in peter_store.list()} and ".parses" not in {m.name for m in peter_store.list()}


def test_retrieval_alone_parses_its_candidates_through_the_stores_parse_file(peter_store):
    """The fused ranking parses its first candidates to find the asked kind (:mod:`kgcore.query.asked_kind`):
    a retrieval with no answer reads and writes the same parse file, so a later process finds them parsed."""
    engine = QueryEngine(peter_store)
    nlp = load_spacy(engine.settings.spacy_model)
    shared_cache(nlp).attach(None)
    shared_cache(nlp).clear()
    result = engine.retrieve(PETER_ID, "Who chased Peter round the garden?", RetrievalOptions(budget_words=300))
    cache = shared_cache(nlp)
    assert cache.store is not None and cache.store.path == store_path(peter_store.root, nlp)
    assert cache.store.missing([s.text for s in result.sentences]) == []  # every kept sentence was a candidate


def test_a_full_store_takes_no_more_texts_but_still_serves_what_it_holds(tmp_path, monkeypatch):
    import kgcore.query.answer.parse_store as parse_store

    nlp = load_spacy()
    store = ParseStore(tmp_path / "p.sqlite", nlp)
    assert store.put({TEXTS[0]: nlp(TEXTS[0])}) == 1
    monkeypatch.setattr(parse_store, "MAX_BYTES", 0)
    assert store.put({TEXTS[1]: nlp(TEXTS[1])}) == 0 and store.writable  # full, not broken
    assert list(store.get(TEXTS)) == [TEXTS[0]]


def test_a_pipeline_with_other_tokenizer_rules_has_its_own_file(tmp_path):
    import spacy

    nlp = load_spacy()
    other = spacy.load(nlp.meta["lang"] + "_" + nlp.meta["name"])  # the model without the project's own rules
    assert store_path(tmp_path, nlp) != store_path(tmp_path, other)


def test_the_parse_store_can_live_elsewhere_or_nowhere(peter_store, tmp_path):
    from kgcore.core.errors import InputError
    from kgcore.core.settings import Settings

    local = tmp_path / "host-local" / "kgcore"
    engine = QueryEngine(peter_store, Settings(parse_store=str(local)))  # a store on shared storage, parses per host
    nlp = engine.generator().nlp
    assert shared_cache(nlp).store.path == store_path(local, nlp) and local.is_dir()
    QueryEngine(peter_store, Settings(parse_store="off")).generator()
    assert shared_cache(nlp).store is None
    (tmp_path / "a-file").write_text("not a folder")
    broken = QueryEngine(peter_store, Settings(parse_store=str(tmp_path / "a-file" / "x")))
    with pytest.raises(InputError, match="KGCORE_PARSE_STORE"):
        broken.generator()
    result = broken.retrieve(PETER_ID, "Who chased Peter?", RetrievalOptions(budget_words=200))
    assert result.sentences  # retrieval parses around it; the answer reports it
    with pytest.raises(InputError, match="KGCORE_PARSE_STORE"):
        broken.answer(result)
    QueryEngine(peter_store).generator()  # back to the store's own
    assert shared_cache(nlp).store.path == store_path(peter_store.root, nlp)
