"""A collection served by several processes: split by document into shards, each loaded by a Ray actor.

    driver: question -> vector (the embedder, once) --> every shard: cosine (and BM25) over its sentences, its
            rankings kept <- pages of (score, row in the collection, words) -- merged best first, cut to the
            budget exactly as one process cuts it -> the kept sentences from their shards -> the answerer, here

Each shard holds only its documents' sentences and vectors (:mod:`kgcore.index.store.partial`), so the memory of
serving a collection is spread over the actors, which may sit on other machines (``address``: a Ray cluster, as
``index --ray`` takes; ``local``: a Ray started on this machine).  What is served, and how each merges:

* ``dense`` and ``bm25`` (:data:`EXACT`): every shard scores its sentences as one process would (the cosine; BM25
  with the collection's idf and mean length, added up from every shard's counts when the engine starts,
  :class:`~kgcore.query.shard.GlobalBM25`).  The driver walks the merged ranking as
  :func:`~kgcore.query.context.budget_positions` walks one process's: at each step the best remaining sentence
  that still fits the words left, ties by row in the collection; a shard is asked for its next page only when the
  driver has used what it sent (a page skips what can never fit again, as the words left only shrink), so a
  question costs a few round trips whatever the collection's size.  Ranks count every shard's better sentences.
* ``hybrid``: reciprocal-rank fusion of the two exact rankings, with each sentence's collection-wide ranks
  (:func:`~kgcore.query.sharded_fusion.fuse_hybrid`).  These three give what
  :class:`~kgcore.query.engine.QueryEngine` gives: the same sentences, scores, ranks and answer
  (``tests/models/test_sharded_models.py``; 20 HotpotQA questions, 2 and 3 shards: identical at 100, 200 and 500
  words).
* the graph methods, the default ``groundedkg`` (fused ranking, multi-hop walk) and ``lesegr``
  (:data:`PER_SHARD`): every shard scores its sentences with the collection's statistics, which the driver gathers
  from all of them and hands back (BM25 counts, node specificity, each query node's best match, each signal's best
  value and reciprocal ranks: :mod:`~kgcore.query.sharded_graph`); every shard propagates over its part of the
  collection's contextual graph, and the messages of the links that cross shards (a rare name, a citation, a
  related chunk in another shard's document) are traded by the driver once per layer
  (:mod:`~kgcore.query.sharded_links`); the driver walks the merged ranking as above, runs the multi-hop walk over
  the collection's entity pages (:mod:`~kgcore.query.sharded_walk`) and leaves out a text another shard ranked
  better.  This is one process's ranking (up to the order of floating-point additions, which could order an
  exact tie apart): the same sentences, scores, ranks, explanations and matched nodes
  (``tests/models/test_sharded_models.py``; on 20 HotpotQA questions over 100 of its paragraphs,
  ``bench/sharded_agreement.py``, identical for all 20 at 100 / 200 / 500 words on 2 and 3 shards).
  ``groundedkg``'s paper union (no budget) and graph-score ranking run on each shard's documents alone and are
  interleaved by score (:func:`~kgcore.query.sharded_fusion.merge_runs`): exact on one shard only.

A shard that fails (a damaged file, an actor that died) is a :class:`ShardError` naming the shard and its
documents.

>>> split(["a", "b", "c"], 2), EXACT, PER_SHARD
([['a', 'c'], ['b']], ('dense', 'bm25', 'hybrid'), ('groundedkg', 'lesegr'))
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from kgcore.core.errors import InputError, KgcoreError
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import Answer, Match, QueryResult, SelectedSentence
from kgcore.index.ray_runner import RayRunner
from kgcore.index.store.disk import Store
from kgcore.index.store.partial import Whole, check_documents
from kgcore.query import spelling
from kgcore.query.answer import AnswerSource
from kgcore.query.answer.authorship import asks_authors
from kgcore.query.context import with_author_lines
from kgcore.query.engine import QueryEngine, validate_question
from kgcore.query.sentence_ranking import bm25_tokens
from kgcore.query.shard import Item, Shard, collection_bm25
from kgcore.query.sharded_fusion import collection_ranks, fetch_selected, fuse_hybrid, merge_runs
from kgcore.query.sharded_graph import exact, rank_graph, start
from kgcore.query.sharded_links import CUT, ensure_stored, start_links
from kgcore.query.sharded_walk import PageTable

#: Sentences a shard sends per page.
PAGE = 64
#: The methods served from shards: ranked by signals every shard computes as one process does (merged exactly) ...
EXACT = ("dense", "bm25", "hybrid")
#: ... and run on each shard's documents, merged by score (see the module docstring for how close that comes).
PER_SHARD = ("groundedkg", "lesegr")
#: Answerers a sharded collection does not serve (they read a whole-collection structure).
NOT_SERVED = ("qa-kg",)


class ShardError(KgcoreError):
    """A shard failed: which one (its number and documents) and why."""

    def __init__(self, shard: int, documents: Sequence[str], reason: BaseException | str):
        named = ", ".join(documents[:3]) + (f" and {len(documents) - 3} more" if len(documents) > 3 else "")
        super().__init__(f"shard {shard} (documents {named}) failed: {reason}")
        self.shard, self.documents = shard, list(documents)


def check_served_method(method: str, field: str = "method") -> None:
    """An :class:`InputError` (on ``field``) for a retrieval method the shards do not serve."""
    if method not in EXACT + PER_SHARD:
        raise InputError(field, f"the sharded engine serves {', '.join(EXACT + PER_SHARD)}, not {method!r}")


def check_served_answerer(answerer: str | None) -> None:
    """An :class:`InputError` for an answerer the shards cannot serve as one process does (:data:`NOT_SERVED`)."""
    if answerer in NOT_SERVED:
        raise InputError("answerer", f"{answerer!r} reads the collection's stored question-answer graph, which "
                                     "shards do not load; use extractive or openai")


def split(doc_ids: Sequence[str], shards: int) -> list[list[str]]:
    """Documents dealt round-robin into ``shards`` parts (none empty).

    >>> split(["a", "b", "c", "d", "e"], 2)
    [['a', 'c', 'e'], ['b', 'd']]
    """
    parts = [list(doc_ids[i::shards]) for i in range(max(1, min(shards, len(doc_ids))))]
    return [p for p in parts if p]


class ShardedEngine:
    """Collection ``name`` of ``store`` split into ``shards`` by document, each shard on a Ray actor (``address``:
    ``local`` starts a Ray here; a cluster's ``HOST:PORT`` or ``ray://`` joins it; None: plain objects in this
    process, the same walk without Ray).  Every actor reads the store at ``store.root``: on a cluster, shared storage
    mounted at the same path on every node, as a team's app hosts share it.  ``graph``: each shard also links its
    documents' graphs and loads the models, so the graph methods (:data:`PER_SHARD`) are served; without it, only
    :data:`EXACT`, and an actor holds no model.  Use it as a context manager; :meth:`close` ends the actors (and the
    Ray it started).  A shard that fails is a :class:`ShardError` naming it."""

    def __init__(self, store: Store, name: str, shards: int = 2, address: str | None = "local",
                 settings: Settings | None = None, graph: bool = True) -> None:
        self.store, self.name, self.settings, self.graph = store, name, settings or Settings.from_env(), graph
        self.engine = QueryEngine(store, self.settings)  # the embedder and answerers; it never loads the collection
        self._asking = threading.Lock()  # a shard keeps the last question's rankings: one question at a time
        self.parts = split(store.manifest(name).doc_ids, shards)
        self._runner: Any = None
        self._actors: list[Any] = []
        self.pages: PageTable | None = None
        self.whole: Whole | None = None
        self.ghosts: list[np.ndarray] | None = None  # per shard, the nodes of other shards it hears
        try:
            if graph:
                ensure_stored(store, name)
            self._start(str(store.root.resolve()), address)
            self.bm25 = collection_bm25(self.ask_all("bm25_counts"))
            self.vocabulary = spelling.Vocabulary.merged(self.ask_all("vocabulary"))
            self.pages, self.whole = start(self) if graph else (None, None)
            self.ghosts = start_links(self) if graph else None
        except BaseException:
            self.close()  # a shard that failed to start leaves no actor (nor the Ray this engine started) behind
            raise

    def _start(self, root: str, address: str | None) -> None:
        """One shard per part: plain objects here (``address`` None) or Ray actors (every actor reads ``root``,
        absolute, as a cluster's nodes mount the store at the same path)."""
        if address is None:
            for n, part in enumerate(self.parts):
                self._actors.append(self.gather([(n, lambda p=part: Shard(root, self.name, p, self.graph,
                                                                           self.settings))])[0])
            return
        self._runner = RayRunner(address, len(self.parts), self.settings)
        actor = self._runner.start().remote(num_cpus=0)(Shard)
        self._actors = [actor.remote(root, self.name, part, self.graph, self.settings) for part in self.parts]

    def __enter__(self) -> ShardedEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove each shard's private views and end the actors (and the Ray this engine started)."""
        for n in range(len(self._actors)):
            try:
                self.gather([(n, self.call(n, "close"))])
            except ShardError:
                pass  # a dead shard has nothing left to remove
        if self._runner is not None:
            ray = self._runner.start()
            for actor in self._actors:
                ray.kill(actor)
            self._runner.close()
            self._runner = None
        self._actors = []

    def call(self, shard: int, method: str, *args: Any) -> Any:
        """Ask shard ``shard`` (a Ray call under way, or a call to make in :meth:`gather` without Ray)."""
        bound = getattr(self._actors[shard], method)
        return (lambda: bound(*args)) if self._runner is None else bound.remote(*args)

    def gather(self, calls: Sequence[tuple[int, Any]]) -> list[Any]:
        """The answers of ``calls`` (shard, call), in order; a failed one is a :class:`ShardError` naming it."""
        out = []
        for shard, call in calls:
            try:
                out.append(call() if self._runner is None else self._runner.start().get(call))
            except Exception as exc:  # noqa: BLE001 -- any failure of a shard, named with the shard
                cause = getattr(exc, "cause", None) or exc  # a Ray task's error carries the shard's own
                raise ShardError(shard, self.parts[shard], f"{type(cause).__name__}: {cause}") from exc
        return out

    @property
    def crossing_nodes(self) -> int:
        """Nodes grounded in documents of more than one shard (a name two shards' documents share): each shard
        holds its own copy, weighted by the collection's counts, matched once over all of them (0 without the
        graph methods)."""
        return len(self.whole.nodes) if self.whole is not None else 0

    def memory(self) -> list[dict[str, float]]:
        """Each shard's process memory and share of the collection (:meth:`~kgcore.query.shard.Shard.memory`; in
        this process without Ray, every shard reports this process)."""
        return self.ask_all("memory")

    def ask_all(self, method: str, *args: Any) -> list[Any]:
        """Every shard's answer to ``method(*args)``, asked of all at once, in shard order."""
        return self.gather([(n, self.call(n, method, *args)) for n in range(len(self._actors))])

    def retrieve(self, question: str, options: RetrievalOptions = RetrievalOptions(method="dense")) -> QueryResult:
        """``options.method`` over every shard, merged (exactly for :data:`EXACT`, by score for :data:`PER_SHARD`)
        and cut to the budget as one process cuts it."""
        method = options.method
        check_served_method(method)
        if method in PER_SHARD and not self.graph:
            raise InputError("method", f"{method!r} needs shards loaded with their graphs (graph=True)")
        question = validate_question(question, self.settings.max_question_chars)
        check_documents((d for part in self.parts for d in part), options.documents, self.name)
        respelled = spelling.asked(question, self.vocabulary if options.respell else None)
        with self._asking:
            result = spelling.noted(self._retrieve(respelled.text, options), respelled, question)
            if asks_authors(result.question):
                with_author_lines(result, [s for part in self.ask_all("author_lines", tuple(options.documents))
                                           for s in part])
            return result

    def _retrieve(self, question: str, options: RetrievalOptions) -> QueryResult:
        method = options.method
        started, notes, matches = time.perf_counter(), list[str](), list[Match]()
        if method in PER_SHARD and exact(options):
            chosen, candidates, matches = rank_graph(self, question, options)
            notes += [CUT] if self.ghosts is None else []
        elif method in PER_SHARD:
            chosen, candidates = merge_runs(self.ask_all("run", question, options), options)
        else:
            vector = self.engine.embedder.encode([question])[0]
            weights = None if method == "dense" else self.bm25.query(bm25_tokens(question))
            ranked = self.ask_all("rank", vector, weights, tuple(options.documents), options.front_matter)
            candidates = sum(n for n, _ in ranked)
            if method == "hybrid":
                chosen, notes = fuse_hybrid(self, options, candidates, min((w for _, w in ranked), default=0))
            else:
                chosen = self._ranked(method, options)
        ms = (time.perf_counter() - started) * 1000
        timings = {"parse": 0.0, "embed": 0.0, "match": ms, "select": 0.0, "retrieval": ms}
        return QueryResult(question, method, self.name, None, matches, sorted(chosen, key=lambda s: s.position),
                           options.to_dict(), timings, notes, candidates)

    def _ranked(self, signal: str, options: RetrievalOptions) -> list[SelectedSentence]:
        """``dense`` or ``bm25``: the merged walk, each kept sentence ranked among every shard's."""
        kept = self._walk(signal, options)
        ranks = collection_ranks(self, signal, [(i[0], i[1]) for _, i in kept])
        sentences = fetch_selected(self, [(shard, signal, item[3]) for shard, item in kept])
        return [dataclasses.replace(s, rank=r) for s, r in zip(sentences, ranks)]

    def _walk(self, signal: str, options: RetrievalOptions, skip: frozenset[int] = frozenset(), taken: int = 0,
              used: int = 0, seen: frozenset[int] = frozenset()) -> list[tuple[int, Item]]:
        """(shard, item) of the kept sentences in rank order: :func:`budget_positions` over the merged ranking,
        leaving out the rows ``skip`` and the texts ``seen`` (ids), and going on from ``taken`` sentences of
        ``used`` words already kept."""
        words, most = options.budget_words, options.budget_sentences
        if not words and not most:
            most = options.k
        buffers: list[deque[Item]] = [deque() for _ in self._actors]
        cursors, ended = [0] * len(self._actors), [False] * len(self._actors)
        kept: list[tuple[int, Item]] = []
        total, met = used, set(seen)  # the texts met (a ranking that leaves out repeated texts)
        while not (most and len(kept) + taken >= most):
            gap = words - total if words else None
            for shard, buffer in enumerate(buffers):
                while buffer and gap is not None and buffer[0][2] > gap:
                    buffer.popleft()  # it will never fit: the words left only shrink
                if not buffer and not ended[shard]:
                    (items, cursors[shard]), = self.gather([(shard, self.call(shard, "page", signal,
                                                                               cursors[shard], PAGE, gap))])
                    buffer.extend(items)
                    ended[shard] = not items
            heads = [(-b[0][0], b[0][1], shard) for shard, b in enumerate(buffers) if b]
            if not heads:
                break
            shard = min(heads)[2]
            item = buffers[shard].popleft()
            if item[4] and item[4] in met:
                continue  # another shard's better sentence says the same
            met.add(item[4])
            if item[1] in skip:
                continue
            kept.append((shard, item))
            total += item[2]
        return kept


    def answer(self, result: QueryResult, answerer: str | None = None) -> Answer:
        """The answer from the merged context, by the answerers one process uses (the source: the collection's
        name, no QA graph: ``qa-kg``, which reads the collection's stored question-answer graph, is refused)."""
        check_served_answerer(answerer)
        book = self.store.manifest(self.name).source_file or self.name
        return self.engine.generator(answerer).generate(result.question, result.sentences, AnswerSource(book))
