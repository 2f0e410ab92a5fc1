"""Query-time façade: loads models and indexes once, runs any method, answers.

>>> engine = QueryEngine(Store("data"))                  # doctest: +SKIP
>>> result, answer = engine.ask("peter-rabbit", "Where did Peter lose his shoes?")  # doctest: +SKIP
"""

from __future__ import annotations

import time
from dataclasses import asdict

from kgcore.core.errors import IndexMismatchError, InputError, clean_field
from kgcore.core.keyed import KeyedLocks
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import RETRIEVABLE, Answer, QueryResult, Sentence
from kgcore.index.embed import Embedder, query_embedder
from kgcore.index.parse import Parser, get_parser
from kgcore.index.store import Index, Store
from kgcore.index.writer import ensure_chroma
from kgcore.query.answer import AnswerGenerator, QAKGGenerator, default_answerer, get_generator
from kgcore.query.answer.calibration import collection_calibration
from kgcore.query.answer.support import Calibration
from kgcore.query.baselines import retrieve_baseline
from kgcore.query.community import retrieve_community
from kgcore.query.entities import retrieve_entities
from kgcore.query.fused import retrieve_lesegr
from kgcore.query.qakg import qa_answer_graph, retrieve_qakg
from kgcore.query.rerank import Reranker, get_reranker
from kgcore.query.retrieve import retrieve_groundedkg

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

    def index(self, doc_id: str) -> Index:
        """The loaded collection ``doc_id``; reloaded only when it changed (a document added, removed, re-indexed)."""
        stamp = self.store.manifest(doc_id).stamp
        cached = self._indexes.get(doc_id)
        if cached is None or cached[0] != stamp:
            with self._loading(doc_id):  # the app's sessions share this engine: one loads, the others wait for it
                cached = self._indexes.get(doc_id)
                if cached is None or cached[0] != stamp:
                    index = self.store.load(doc_id)
                    self._check_compatible(index)
                    cached = self._indexes[doc_id] = (stamp, index)
        return cached[1]

    def forget(self, doc_id: str) -> None:
        self._indexes.pop(doc_id, None)

    def parser(self, name: str) -> Parser:
        if name not in self._parsers:
            self._parsers[name] = get_parser(name, self.settings)
        return self._parsers[name]

    def generator(self, name: str | None = None) -> AnswerGenerator:
        name = name or default_answerer(self.settings)
        if name not in self._generators:
            self._generators[name] = get_generator(name, self.settings)
        return self._generators[name]

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
                f"Index {index.doc_id!r} was built with embedding model {models.embedding!r} "
                f"({models.embedding_dim} dims) but this process uses {embedder.name!r} ({embedder.dim} dims). "
                "Re-index the document, or set KGCORE_EMBEDDING_MODEL to the model it was built with."
            )

    # -- operations ------------------------------------------------------------
    def retrieve(self, doc_id: str, question: str, options: RetrievalOptions = RetrievalOptions(),
                 use_chroma: bool = False) -> QueryResult:
        question = validate_question(question, self.settings.max_question_chars)
        if use_chroma:
            ensure_chroma(self.store, doc_id, self.embedder)
        index = self.index(doc_id)
        if options.method == "full":
            self._check_full_size(index, options)
        if options.method == "qa-kg":
            return retrieve_qakg(index, question, options, self.embedder, load_spacy(self.settings.spacy_model),
                                 self.reranker)
        if options.method == "lesegr":
            return retrieve_lesegr(index, question, options, self.embedder)
        if options.method in ("community", "hybrid-summaries"):
            return retrieve_community(index, question, options, self.embedder, self.settings, use_chroma)
        if options.method == "entities":
            return retrieve_entities(index, question, options, self.embedder, load_spacy(self.settings.spacy_model),
                                     self.settings)
        if options.method == "groundedkg":
            parser = self.parser(index.manifest.options.parser)
            return retrieve_groundedkg(index, question, options, parser, self.embedder, use_chroma)
        return retrieve_baseline(index, question, options, self.embedder)

    def _check_full_size(self, index: Index, options: RetrievalOptions) -> None:
        """``full`` sends every word to the answerer: refuse collections over ``settings.max_full_words``."""
        scope = index.sentence_scope(options.documents, options.front_matter)
        words = sum(len(s.original.split()) for i, s in enumerate(index.sentences) if scope is None or scope[i])
        sent = min(words, options.budget_words) if options.budget_words else words
        limit = self.settings.max_full_words
        if sent > limit:
            raise InputError("method", f"full would send {sent:,} words of {index.doc_id!r} to the answerer; the "
                                       f"limit is {limit:,} (KGCORE_MAX_FULL_WORDS): give a word budget, choose "
                                       "documents, or use another method")

    def support_calibration(self, doc_id: str) -> Calibration:
        """The support check's threshold for collection ``doc_id`` (measured once per loaded index)."""
        return self._calibration(self.index(doc_id))

    def _calibration(self, index: Index) -> Calibration:
        return collection_calibration(index, load_spacy(self.settings.spacy_model), self.embedder)

    def answer(self, result: QueryResult, answerer: str | None = None) -> Answer:
        start = time.perf_counter()
        index = self.index(result.doc_id)
        book = index.manifest.source_file or result.doc_id
        generator = self.generator(answerer)
        if isinstance(generator, QAKGGenerator):  # short answers read the collection's QA pairs
            answer = generator.generate(result.question, result.sentences, book_name=book,
                                        qa=qa_answer_graph(index, self.embedder))
        else:
            answer = generator.generate(result.question, result.sentences, book_name=book)
        result.timings_ms["answer"] = round((time.perf_counter() - start) * 1000, 3)
        return answer

    def prepare(self, doc_id: str, options: RetrievalOptions | None = None, answerer: str | None = None
                ) -> dict[str, float]:
        """Load collection ``doc_id`` and build what its first question would otherwise wait for: the retrieval's
        lazily built structures (incidence and neighbour matrices, the BM25 models, the contextual graph) for
        ``options`` (default: groundedkg within the settings' word budget) and the offline answerers' support
        calibration.  It answers a probe made of the collection's first body sentence (:func:`probe_question`); no
        LLM is called.  Seconds per step.  Safe beside questions: each structure is built once, the others wait.

        On the ObliQA bench collection (40 documents) the first question otherwise took 7.6 s to retrieve and 3.3 s
        to answer, a later one 0.07 s and 0.13 s: the app prepares a collection while the analyst types.
        """
        seconds: dict[str, float] = {}
        start = time.perf_counter()
        index = self.index(doc_id)
        seconds["load"] = time.perf_counter() - start
        probe = probe_question(index.sentences)
        if probe:
            start = time.perf_counter()
            result = self.retrieve(doc_id, probe, options or RetrievalOptions(budget_words=self.settings.budget_words))
            seconds["retrieve"] = time.perf_counter() - start
            start = time.perf_counter()
            if (answerer or default_answerer(self.settings)) != "openai":
                self.answer(result, answerer)
            seconds["answer"] = time.perf_counter() - start
        return {step: round(s, 3) for step, s in seconds.items()}

    def ask(self, doc_id: str, question: str, options: RetrievalOptions = RetrievalOptions(),
            answerer: str | None = None, use_chroma: bool = False) -> tuple[QueryResult, Answer]:
        result = self.retrieve(doc_id, question, options, use_chroma)
        return result, self.answer(result, answerer)


def probe_question(sentences: list[Sentence], max_words: int = 30) -> str:
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
        (raise it with the environment variable KGCORE_MAX_QUESTION_CHARS)
    """
    text = " ".join((question or "").split())
    Settings(max_question_chars=max_chars).check_limit("question", "max_question_chars", len(text))
    return clean_field("question", text, max_chars)


def result_to_json(result: QueryResult, answer: Answer | None = None) -> dict:
    """The CLI/JSONL shape of a result (stable keys documented in the README)."""
    graph = result.query_graph
    return {
        "question": result.question,
        "collection": result.doc_id,
        "doc_id": result.doc_id,
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
