"""Query-time façade: loads models and indexes once, runs any method, answers.

>>> engine = QueryEngine(Store("data"))                  # doctest: +SKIP
>>> result, answer = engine.ask("peter-rabbit", "Where did Peter lose his shoes?")  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import cached_property
from pathlib import Path

from kgcore.core.deprecation import renamed_argument
from kgcore.core.embed import Embedder, query_embedder
from kgcore.core.errors import IndexMismatchError, InputError, clean_field
from kgcore.core.heap import release_free_memory
from kgcore.core.nlp import load_spacy
from kgcore.core.once import KeyedLocks
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.timing import Timer, ms_since
from kgcore.core.types import RETRIEVABLE, Answer, QueryResult, Sentence
from kgcore.index.parse import Parser, get_parser
from kgcore.index.store.disk import Index, Store
from kgcore.index.store.writer import ensure_chroma
from kgcore.query import asked_kind, methods, spelling
from kgcore.query.answer import ANSWERERS, AnswerGenerator, AnswerSource, default_answerer, get_generator
from kgcore.query.answer.authorship import asks_authors
from kgcore.query.answer.base import shared_cache, store_parses, warm_parses
from kgcore.query.answer.calibration import collection_calibration
from kgcore.query.answer.parse_store import ParseStore, store_path
from kgcore.query.answer.support import Calibration
from kgcore.query.context import author_sentences, with_author_lines
from kgcore.query.methods import Models
from kgcore.query.qakg import qa_answer_graph
from kgcore.query.rerank import Reranker, get_reranker

#: The default limit on a question's length (``KGCORE_MAX_QUESTION_CHARS`` sets the engine's).
MAX_QUESTION_CHARS = Settings.max_question_chars


class QueryEngine:
    """Holds one store, cached indexes, parsers, the embedder and answer generators."""

    def __init__(self, store: Store, settings: Settings | None = None, parsers: dict[str, Parser] | None = None):
        """``parsers`` pre-sets parser backends by name (e.g. a PenmanParser for ``amr``)."""
        self.store = store
        self.settings = settings or Settings.from_env()
        self._indexes: dict[str, tuple[str, Index]] = {}
        self._loading = KeyedLocks()
        self._parsers: dict[str, Parser] = dict(parsers or {})
        self._generators: dict[str, AnswerGenerator] = {}
        self._reranker: Reranker | None = None

    # -- cached resources ------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        return query_embedder(self.settings)

    @renamed_argument("doc_id", "collection")
    def index(self, collection: str) -> Index:
        """Collection ``collection``, loaded; reloaded only when it changed (a document added, removed, re-indexed)."""
        stamp = self.store.manifest(collection).stamp
        cached = self._indexes.get(collection)
        if cached is None or cached[0] != stamp:
            with self._loading(collection):  # the app's sessions share this engine: one loads, the others wait for it
                cached = self._indexes.get(collection)
                if cached is None or cached[0] != stamp:
                    index = self.store.load(collection)
                    self._check_compatible(index)
                    cached = self._indexes[collection] = (stamp, index)
        return cached[1]

    @renamed_argument("doc_id", "collection")
    def forget(self, collection: str) -> None:
        self._indexes.pop(collection, None)

    def parser(self, name: str) -> Parser:
        if name not in self._parsers:
            self._parsers[name] = get_parser(name, self.settings)
        return self._parsers[name]

    def generator(self, name: str | None = None) -> AnswerGenerator:
        """Answerer ``name`` (the settings' default when None), built once; an offline one reads and writes its
        parses through the store's :class:`~kgcore.query.answer.parse_store.ParseStore`."""
        name = name or default_answerer(self.settings)
        if name not in self._generators:
            self._generators[name] = get_generator(name, self.settings)
        generator = self._generators[name]
        nlp = getattr(generator, "nlp", None)
        if nlp is not None:
            self._with_parse_store(nlp)
        return generator

    def _with_parse_store(self, nlp, strict: bool = True):
        """``nlp``, its shared parse cache reading and writing this store's parse store (one cache per pipeline,
        whichever engine asks last).  Not ``strict`` (retrieval): a parse store folder that cannot be made leaves
        the cache as it is, for the answer to report."""
        try:
            folder = self._parse_folder
        except InputError:
            if strict:
                raise
            return nlp
        cache = shared_cache(nlp)
        path = store_path(folder, nlp) if folder is not None else None
        if (cache.store.path if cache.store else None) != path:
            cache.attach(ParseStore(path, nlp) if path is not None else None)
        return nlp

    @cached_property
    def _parse_folder(self) -> Path | None:
        """The folder whose ``.parses`` keeps the answerers' parses (``KGCORE_PARSE_STORE``, made when missing, once
        per engine: every answer asks; default the store's root; None: ``off``, or a store with no folder)."""
        chosen = self.settings.parse_store
        if chosen.lower() == "off":
            return None
        if not chosen:
            return getattr(self.store, "root", None)
        folder = Path(chosen).expanduser()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError("KGCORE_PARSE_STORE", f"{folder} cannot be made: {exc.strerror or exc}") from exc
        return folder

    def _offline(self, answerer: str | None) -> bool:
        """Whether answerer ``answerer`` (the settings' default when None) answers on this machine."""
        return ANSWERERS.get(answerer or default_answerer(self.settings)).offline

    @property
    def reranker(self) -> Reranker:
        """The ``qa-kg`` reranker (a cross-encoder when ``KGCORE_RERANKER_MODEL`` is set), loaded once."""
        if self._reranker is None:
            self._reranker = get_reranker(self.settings)
        return self._reranker

    def _check_compatible(self, index: Index) -> None:
        models = index.manifest.models
        embedder = self.embedder
        if models.embedding != embedder.name or (models.embedding_dim or embedder.dim) != embedder.dim:
            raise IndexMismatchError(
                f"Index {index.collection!r} was built with embedding model {models.embedding!r} "
                f"({models.embedding_dim} dims) but this process uses {embedder.name!r} ({embedder.dim} dims). "
                "Re-index the document, or set KGCORE_EMBEDDING_MODEL to the model it was built with."
            )

    # -- operations ------------------------------------------------------------
    def models(self, use_chroma: bool = False) -> Models:
        """What the retrieval methods may use: this engine's embedder, parsers, spaCy (its parses read from and
        written to the store's parse store, as the offline answerers' are) and reranker."""
        return Models(self.settings, self.embedder, self.parser,
                      lambda: self._with_parse_store(load_spacy(self.settings.spacy_model), strict=False),
                      lambda: self.reranker,
                      use_chroma)

    @renamed_argument("doc_id", "collection")
    def retrieve(self, collection: str, question: str, options: RetrievalOptions = RetrievalOptions(),
                 use_chroma: bool = False) -> QueryResult:
        """Run ``options.method`` (any method of :mod:`kgcore.query.methods`) on collection ``collection``."""
        method = methods.get(options.method)
        question = validate_question(question, self.settings.max_question_chars)
        if use_chroma:
            ensure_chroma(self.store, collection, self.embedder)
        index = self.index(collection)
        built = len(index.cache.keys())
        respelled = spelling.asked(question, spelling.collection_vocabulary(index) if options.respell else None)
        result = method.retrieve(index, respelled.text, options, self.models(use_chroma))
        spelling.noted(result, respelled, question)
        if asks_authors(result.question):
            with_author_lines(result, author_sentences(index, options.documents))
        if len(index.cache.keys()) > built:  # a view built for this question: its freed temporaries given back
            release_free_memory()
        return result

    @renamed_argument("doc_id", "collection")
    def support_calibration(self, collection: str) -> Calibration:
        """The support check's threshold for collection ``collection`` (measured once per loaded index)."""
        return self._calibration(self.index(collection))

    def _calibration(self, index: Index) -> Calibration:
        return collection_calibration(index, load_spacy(self.settings.spacy_model), self.embedder)

    def answer(self, result: QueryResult, answerer: str | None = None) -> Answer:
        start = time.perf_counter()  # the answer's time joins the retrieval's (timings_ms["answer"])
        index = self.index(result.collection)
        book = index.manifest.source_file or result.collection
        source = AnswerSource(book, qa=lambda: qa_answer_graph(index, self.embedder))  # built if an answerer reads it
        answer = self.generator(answerer).generate(result.question, result.sentences, source)
        result.timings_ms["answer"] = ms_since(start)
        return answer

    @renamed_argument("doc_id", "collection")
    def prepare(self, collection: str, options: RetrievalOptions | None = None, answerer: str | None = None
                ) -> dict[str, float]:
        """Load collection ``collection`` and build what its first question would otherwise wait for: the retrieval's
        lazily built structures (incidence and neighbour matrices, the BM25 models, the contextual graph) for
        ``options`` (default: groundedkg within the settings' word budget), the offline answerers' support
        calibration and their parses of the sentences of ``options.documents`` (all when empty; not for a long
        book).  It answers a probe made of the collection's first body sentence (:func:`probe_question`); no LLM
        is called.  Seconds per step.  Safe beside questions: each structure is built once, the others wait.

        The app prepares a collection while the analyst types: on a large collection the first question otherwise
        waits seconds for what a later one finds built (``bench/startup_bench.py`` measures it).
        """
        timer = Timer()
        with timer.step("load"):
            index = self.index(collection)
            index.has_sentence("")  # the id -> row map, read from every row once: not by the first question
        probe = probe_question(index.sentences)
        if probe:
            options = options or RetrievalOptions(budget_words=self.settings.budget_words)
            with timer.step("retrieve"):
                result = self.retrieve(collection, probe, options)
            offline = self._offline(answerer)
            with timer.step("answer"):
                if offline:
                    self.answer(result, answerer)
            with timer.step("parses"):
                if offline:
                    self._warm_parses(index, options, answerer)
        return {step: round(ms / 1000, 3) for step, ms in timer.ms.items()}

    def _warm_parses(self, index: Index, options: RetrievalOptions, answerer: str | None) -> int:
        """Parse the sentences a question on ``options.documents`` (all when empty) may quote into the answerer's
        parse cache (:func:`~kgcore.query.answer.base.warm_parses`): the later questions' answers then parse only
        the question (on a paper, 0.55 s -> see ``bench/answer_speed.py``)."""
        nlp = getattr(self.generator(answerer), "nlp", None)
        wanted = set(options.documents)
        sentences = [s for s in index.sentences if not wanted or s.doc_id in wanted]
        return warm_parses(nlp, _texts(sentences)) if nlp is not None else 0

    @renamed_argument("doc_id", "collection")
    def store_parses(self, collection: str, answerer: str | None = None, pause: Callable[[], None] | None = None
                     ) -> int:
        """Parse every sentence of ``collection`` that the store's parse store lacks into it
        (:func:`~kgcore.query.answer.base.store_parses`): once per store, the answers of a collection too large
        for the memory cache read their sentences' parses back instead of parsing them, and so does the fused
        ranking, which reads its first candidates for the asked kind (:mod:`~kgcore.query.asked_kind`).  For an
        offline ``answerer`` each sentence's written and resolved text; for one that is not offline (``openai``),
        the written texts the ranking reads, in a collection where it reads them
        (:func:`~kgcore.query.asked_kind.applies`).  ``pause`` is called between batches (the app waits there
        while a question is answered).  How many texts were parsed; 0 past ``STORE_FILL_LIMIT`` texts.

        On 24 arXiv papers (about 20,000 texts) it takes about 3 minutes of one core, once.
        """
        sentences = self.index(collection).sentences
        if self._offline(answerer):
            nlp, texts = getattr(self.generator(answerer), "nlp", None), _texts(sentences)
        elif asked_kind.applies(len(sentences)):
            nlp, texts = self.models().nlp, [s.original for s in sentences]  # the pipeline retrieval reads with
        else:
            return 0
        return store_parses(nlp, texts, pause) if nlp is not None else 0

    @renamed_argument("doc_id", "collection")
    def ask(self, collection: str, question: str, options: RetrievalOptions = RetrievalOptions(),
            answerer: str | None = None, use_chroma: bool = False) -> tuple[QueryResult, Answer]:
        result = self.retrieve(collection, question, options, use_chroma)
        return result, self.answer(result, answerer)


def _texts(sentences: Sequence[Sentence]) -> list[str]:
    """The texts an offline answerer parses of ``sentences``: each as written and as resolved."""
    return [t for s in sentences for t in (s.original, s.resolved or s.original)]


def probe_question(sentences: Sequence[Sentence], max_words: int = 30) -> str:
    """The first retrievable sentence of at least five words, cut to ``max_words`` ("" when there is none): a
    question that exercises every step of a retrieval on the collection's own words.

    >>> texts = [("CHAPTER ONE OF THE BOOK", "heading"), ("Hello there.", "body"),
    ...          ("Peter ran into the garden at once.", "body")]
    >>> s = [Sentence(f"d/t-{i}", 0, i, i, t, t, t, role=r) for i, (t, r) in enumerate(texts)]
    >>> probe_question(s), probe_question(s, max_words=3), probe_question(s[:2])
    ('Peter ran into the garden at once.', 'Peter ran into', '')
    """
    for s in sentences:
        words = s.original.split()
        if s.role in RETRIEVABLE and len(words) >= 5:
            return " ".join(words[:max_words])
    return ""


def validate_question(question: str, max_chars: int = MAX_QUESTION_CHARS) -> str:
    """Strip and check a question; empty or oversized questions and control characters are refused.

    >>> validate_question("  Who ran? ")
    'Who ran?'
    >>> validate_question("x" * 30, 20)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: question: 30 characters exceed the limit of 20 characters per question
        (raise it with the environment variable KGCORE_MAX_QUESTION_CHARS); it protects the time of parsing and
        embedding one question
    """
    if question is not None and not isinstance(question, str):
        raise InputError("question", f"must be text, not {type(question).__name__} {question!r}"[:200])
    text = " ".join((question or "").split())
    Settings(max_question_chars=max_chars).check_limit("question", "max_question_chars", len(text))
    return clean_field("question", text, max_chars)


def result_to_json(result: QueryResult, answer: Answer | None = None) -> dict:
    """The CLI/JSONL shape of a result (stable keys documented in the README).  ``doc_id`` repeats ``collection``
    for readers of the old key; it goes in kgcore 0.4."""
    graph = result.query_graph
    return {
        "question": result.question,
        "asked": result.asked or result.question,
        "respelled": result.respelled,
        "collection": result.collection,
        "doc_id": result.collection,  # deprecated: the collection's old name, kept until kgcore 0.4
        "method": result.method,
        "settings": result.settings,
        "query_graph": {
            "nodes": [asdict(n) for n in graph.nodes] if graph else [],
            "edges": [asdict(e) for e in graph.edges] if graph else [],
        },
        "matches": [m.to_dict() for m in result.matches],
        "sentences": [s.to_dict() for s in result.sentences],
        "context_words": result.context_words,
        "candidates": result.candidates,
        "summaries": result.summaries,
        "answer": answer.text if answer else None,
        "answerer": answer.generator if answer else None,
        "citations": [c.to_dict() for c in answer.citations] if answer else [],
        "verdict": answer.verdict.to_dict() if answer and answer.verdict else None,
        "notes": result.notes + (answer.notes if answer else []),
        "timings_ms": result.timings_ms,
    }
