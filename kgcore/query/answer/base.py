"""What an answerer is: the :class:`AnswerGenerator` protocol with its one ``generate`` signature, the
:class:`AnswerSource` it may read, the :class:`Answerer` entry that names and builds it, and the lazy models the
offline answerers share.

Every answerer answers with::

    generate(question, context, source) -> Answer

``context`` is the retrieval's selected sentences in document order; ``source`` (:class:`AnswerSource`) is what it
may read of the collection besides them: the book's name, the support check's calibration and the QA pairs, each
computed the first time an answerer reads it.

>>> source = AnswerSource("Peter Rabbit", calibration=lambda: "computed")
>>> source.book_name, source.qa, source.calibration
('Peter Rabbit', None, 'computed')
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from kgcore.core.embed import Embedder, get_embedder
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import Settings
from kgcore.core.types import Answer, SelectedSentence
from kgcore.query.answer.parse_store import ParseStore
from kgcore.query.answer.support import UNCALIBRATED, Calibration
from kgcore.query.qakg.graph import QAGraph


class AnswerSource:
    """What an answerer may read of the collection besides the context: ``book_name`` (what the collection is
    called, for an answer from memory), ``calibration`` (the support check's threshold for this collection,
    :mod:`~kgcore.query.answer.calibration`) and ``qa`` (the collection's QA graph, :mod:`kgcore.query.qakg`).
    ``calibration`` and ``qa`` may be given as values or as functions that compute them on first read."""

    def __init__(self, book_name: str = "", calibration: Calibration | Callable[[], Calibration] = UNCALIBRATED,
                 qa: QAGraph | Callable[[], QAGraph | None] | None = None):
        self.book_name = book_name
        self._calibration = calibration
        self._qa = qa

    @cached_property
    def calibration(self) -> Calibration:
        return self._calibration() if callable(self._calibration) else self._calibration

    @cached_property
    def qa(self) -> QAGraph | None:
        return self._qa() if callable(self._qa) else self._qa


class AnswerGenerator(Protocol):
    """What every answer backend provides.

    ``generate`` answers ``question`` from ``context`` (selected sentences in
    document order); an empty context is the paper's "without content"
    setting, where the model answers from its memory of ``source.book_name``.
    """

    name: str

    @property
    def model(self) -> str:
        """The model that answers (an LLM's name, or the extractive answerer's embedder)."""
        ...

    def generate(self, question: str, context: Sequence[SelectedSentence],
                 source: AnswerSource | None = None) -> Answer:
        ...


@dataclass(frozen=True)
class Answerer:
    """One answerer in the registry (:data:`kgcore.query.answer.ANSWERERS`): ``name`` (``--answerer NAME``),
    ``label`` and ``help`` for people, ``make``, which builds its generator from the settings, and ``check``,
    which fails when the settings lack what it needs (an endpoint), in no time and before any model loads.

    >>> Answerer("x", "X", "", make=lambda s: None).check(Settings()) is None
    True
    """

    name: str
    label: str
    help: str
    make: Callable[[Settings], Any]
    check: Callable[[Settings], None] = lambda settings: None
    #: Whether it answers on this machine (no endpoint is called): a preparation may run it, and it parses.
    offline: bool = True


#: Parsed texts each spaCy pipeline keeps between answers (:class:`ParseCache`).  A paper's sentence parses in
#: about 5-10 ms and its doc takes about 22 KB (26 tokens and their tok2vec tensor), so a full cache holds about
#: 90 MB, and an answer whose sentences are all held skips 0.5-1 s of parsing.  Half of it (the most
#: :func:`warm_parses` fills) holds both forms of every sentence of the longest design paper (1,021 texts).
PARSE_CACHE_SIZE = 4096
#: The most texts :func:`store_parses` parses into a parse store ahead of the questions (about 3 minutes of one
#: core: 24 papers or a long novel); past it the texts are stored as questions parse them.
STORE_FILL_LIMIT = 20_000


class ParseCache:
    """The parsed texts of one spaCy pipeline, kept between answers: the questions about one collection quote
    and check the same sentences again, so each is parsed once while it is in use.  Bounded: beyond ``size``
    texts the least recently used is dropped.  Safe to share between threads (the app's sessions); a text is
    parsed outside the lock, so two threads may both parse it and keep either doc (they are equal).

    >>> import spacy
    >>> cache = ParseCache(spacy.blank("en"), size=2)
    >>> a = cache.pipe(["A hat."])[0]
    >>> cache.pipe(["A hat.", "A cap."])[0] is a, len(cache)
    (True, 2)
    >>> _ = cache.pipe(["A bag."]); "A hat." in cache, "A cap." in cache, "A bag." in cache
    (False, True, True)
    """

    def __init__(self, nlp, size: int = PARSE_CACHE_SIZE):
        self.nlp = nlp
        self.size = size
        #: Where texts not held are looked up before they are parsed, and parsed ones are written
        #: (:meth:`attach`); None: parse them.
        self.store: ParseStore | None = None
        self._docs: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()

    def attach(self, store: ParseStore | None) -> None:
        """Read texts not held from ``store`` before parsing them, and write what is parsed into it (None: parse
        them, keep nothing on disk)."""
        self.store = store

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, text: str) -> bool:
        return text in self._docs

    def pipe(self, texts) -> list:
        """The docs of ``texts`` (in order), parsing the ones not held."""
        texts = list(texts)
        with self._lock:
            held = {t: self._docs[t] for t in dict.fromkeys(texts) if t in self._docs}
            for t in held:
                self._docs.move_to_end(t)
        todo = [t for t in dict.fromkeys(texts) if t not in held]
        parsed = self._read_or_parse(todo)
        with self._lock:
            for t, doc in parsed.items():
                self._docs[t] = doc
                self._docs.move_to_end(t)
            while len(self._docs) > self.size:
                self._docs.popitem(last=False)
        found = {**held, **parsed}
        return [found[t] for t in texts]

    def _read_or_parse(self, texts: list[str]) -> dict:
        store = self.store
        stored = store.get(texts) if store is not None and texts else {}
        todo = [t for t in texts if t not in stored]
        parsed = dict(zip(todo, self.nlp.pipe(todo)))
        if store is not None:
            store.put(parsed)
        return {**stored, **parsed}

    def fill_store(self, texts: Sequence[str], batch: int = 64, pause: Callable[[], None] | None = None) -> int:
        """Parse those of ``texts`` the attached store lacks into it, ``batch`` at a time, without holding them in
        memory (``pause`` is called before each batch: the app waits there while a question is answered); how
        many were parsed (0 without a store)."""
        store = self.store
        if store is None:
            return 0
        todo = store.missing(list(dict.fromkeys(texts)))
        for start in range(0, len(todo), batch):
            if pause is not None:
                pause()
            chunk = todo[start:start + batch]
            if not store.put(dict(zip(chunk, self.nlp.pipe(chunk)))):
                return start
        return len(todo)

    def clear(self) -> None:
        with self._lock:
            self._docs.clear()


#: One cache per loaded pipeline, keyed as :mod:`kgcore.core.embed` keys its embedders' caches.
_CACHES: weakref.WeakKeyDictionary[Any, ParseCache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def shared_cache(nlp) -> ParseCache:
    """The one :class:`ParseCache` of the pipeline ``nlp`` in this process (made on first use)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(nlp)
        if cache is None:
            cache = _CACHES[nlp] = ParseCache(nlp)
        return cache


def warm_parses(nlp, texts: Sequence[str], limit: int = PARSE_CACHE_SIZE // 2) -> int:
    """Parse ``texts`` into ``nlp``'s :func:`shared_cache` ahead of the questions (the app does it while the
    analyst types); the number of texts parsed.  Nothing when there are over ``limit`` distinct texts (a long
    book): the cache would drop most of them again, and the later questions' own texts need room too
    (:func:`store_parses` keeps them on disk instead).

    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> warm_parses(nlp, ["A hat.", "A cap.", "A hat."]), warm_parses(nlp, ["A hat."]), warm_parses(nlp, ["x", "y"], 1)
    (2, 0, 0)
    """
    distinct = list(dict.fromkeys(texts))
    if len(distinct) > limit:
        return 0
    cache = shared_cache(nlp)
    todo = [t for t in distinct if t not in cache]
    cache.pipe(todo)
    return len(todo)


def store_parses(nlp, texts: Sequence[str], pause: Callable[[], None] | None = None) -> int:
    """Parse those of ``texts`` that the :class:`ParseStore` of ``nlp``'s :func:`shared_cache` lacks into it (not
    into memory); the number parsed.  Nothing without a store or over :data:`STORE_FILL_LIMIT` distinct texts.
    ``pause`` is called between batches (:meth:`ParseCache.fill_store`).

    >>> import spacy
    >>> store_parses(spacy.blank("en"), ["A hat."])  # no store attached
    0
    """
    distinct = list(dict.fromkeys(texts))
    if len(distinct) > STORE_FILL_LIMIT:
        return 0
    return shared_cache(nlp).fill_store(distinct, pause=pause)


class ParseMemo:
    """A spaCy pipeline that parses each text once: one answer's sentence scorer, QA pairs and clause trimming
    parse the same few sentences.  With ``cache`` (:func:`shared_cache`) texts parsed for an earlier answer are
    reused too; the docs of one answer stay with it whatever the cache drops meanwhile.

    >>> import spacy
    >>> memo = ParseMemo(spacy.blank("en"))
    >>> memo("A hat.") is memo("A hat."), [d.text for d in memo.pipe(["A hat.", "A cap."])], len(memo.docs)
    (True, ['A hat.', 'A cap.'], 2)
    """

    def __init__(self, nlp, cache: ParseCache | None = None):
        self.nlp = nlp
        self.cache = cache
        self.docs: dict[str, object] = {}

    def __call__(self, text: str):
        return self.pipe([text])[0]

    def pipe(self, texts):
        texts = list(texts)
        todo = [t for t in dict.fromkeys(texts) if t not in self.docs]
        parsed = self.cache.pipe(todo) if self.cache is not None else self.nlp.pipe(todo)
        self.docs.update(zip(todo, parsed))
        return [self.docs[t] for t in texts]


class LazyModels:
    """The embedder and spaCy pipeline of an offline answerer, loaded on first use when not given."""

    def __init__(self, embedder: Embedder | None = None, nlp=None):
        self._embedder = embedder
        self._nlp = nlp

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    @property
    def nlp(self):
        if self._nlp is None:
            self._nlp = load_spacy()
        return self._nlp
