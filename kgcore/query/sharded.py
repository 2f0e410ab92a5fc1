"""A collection served by several processes: split by document into shards, each loaded by a Ray actor.

    driver: question -> vector (the embedder, once) --> every shard: cosine over its sentences, its ranking kept
            <- pages of (score, row in the collection, words) -- merged best first, cut to the budget exactly as
            one process cuts it -> the kept sentences from their shards -> the answerer, here

Each shard holds only its documents' sentences and vectors (:mod:`kgcore.index.store.partial`), so the memory of
serving a collection is spread over the actors, which may sit on other machines (``address``: a Ray cluster, as
``index --ray`` takes; ``local``: a Ray started on this machine).  The driver walks the merged ranking as
:func:`~kgcore.query.context.budget_positions` walks one process's: at each step the best remaining sentence
that still fits the words left, ties by row in the collection; a shard is asked for its next page only when the
driver has used what it sent (a page skips what can never fit again, as the words left only shrink), so a
question costs a few round trips whatever the collection's size.  Ranks count every shard's better sentences.
The result is the one :class:`~kgcore.query.engine.QueryEngine` gives for ``dense``: the same sentences, scores,
ranks and answer (``tests/models/test_sharded_models.py``).

Only ``dense`` is sharded: the graph methods walk the linked graph and cross-document entities, which this
engine does not split (a shared table of entities kept by the driver would be the next step).
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from kgcore.core.errors import InputError
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import Answer, QueryResult, SelectedSentence
from kgcore.index.ray_runner import RayRunner
from kgcore.index.store.disk import Store
from kgcore.index.store.partial import load_part
from kgcore.query.answer import AnswerSource
from kgcore.query.context import in_scope, selected_sentence, sentence_words
from kgcore.query.engine import QueryEngine, validate_question
from kgcore.query.sentence_ranking import by_score

#: Sentences a shard sends per page.
PAGE = 64
#: (score, row in the collection, words, the shard's position of it in its ranking)
Item = tuple[float, int, int, int]


class Shard:
    """One shard's documents and its ranking of the last question (a Ray actor, or a plain object in tests)."""

    def __init__(self, store_root: str, name: str, doc_ids: Sequence[str]) -> None:
        part = load_part(Store(store_root), name, doc_ids)
        self.index, self.rows, self.doc_ids = part.index, part.rows, set(doc_ids)
        self._order = np.zeros(0, dtype=np.int64)
        self._scores = self._sims = np.zeros(0, dtype=np.float32)

    def rank(self, vector: np.ndarray, documents: Sequence[str], front_matter: bool) -> int:
        """Rank this shard's sentences for the question ``vector`` (within ``documents`` when given); how many."""
        mine = [d for d in documents if d in self.doc_ids]
        if documents and not mine:
            self._order, self._scores = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
            return 0
        self._sims = self.index.sentence_vectors @ vector
        rows, _ = by_score(self._sims)
        kept = in_scope(rows, self.index.sentence_scope(mine, front_matter))
        self._order = np.asarray(kept, dtype=np.int64)
        self._scores = self._sims[self._order]
        return len(kept)

    def page(self, start: int, count: int, max_words: int | None) -> tuple[list[Item], int]:
        """The next ``count`` ranked sentences from place ``start`` with at most ``max_words`` words, and the
        place after the last one sent (the end when none is left)."""
        words = sentence_words(self.index)[self._order[start:]]
        places = np.arange(len(words)) if max_words is None else np.flatnonzero(words <= max_words)
        places = places[:count] + start
        items = [(float(self._scores[p]), int(self.rows[self._order[p]]), int(words[p - start]), int(p))
                 for p in places]
        return items, int(places[-1]) + 1 if len(places) else len(self._order)

    def better(self, keys: Sequence[tuple[float, int]]) -> list[int]:
        """For each (score, row), how many of this shard's ranked sentences rank before it."""
        scores, rows = self._scores, self.rows[self._order]
        return [int(np.count_nonzero((scores > s) | ((scores == s) & (rows < r)))) for s, r in keys]

    def selected(self, places: Sequence[int]) -> list[SelectedSentence]:
        """The sentences at ``places`` of this shard's ranking, as a context sentence, placed in the collection."""
        out = []
        for p in places:
            row = int(self._order[p])
            chosen = selected_sentence(self.index, row, similarity=round(float(self._sims[row]), 4),
                                       score=round(float(self._scores[p]), 4))
            out.append(dataclasses.replace(chosen, position=int(self.rows[row])))
        return out


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
    mounted at the same path on every node, as a team's app hosts share it.  Use it as a context manager;
    :meth:`close` ends the actors (and the Ray it started)."""

    def __init__(self, store: Store, name: str, shards: int = 2, address: str | None = "local",
                 settings: Settings | None = None) -> None:
        self.store, self.name, self.settings = store, name, settings or Settings.from_env()
        self.engine = QueryEngine(store, self.settings)  # the embedder and answerers; it never loads the collection
        self.parts = split(store.manifest(name).doc_ids, shards)
        self._runner: Any = None
        if address is None:
            self._get: Any = lambda values: values
            self._actors = [Shard(str(store.root), name, part) for part in self.parts]
            return
        self._runner = RayRunner(address, len(self.parts), self.settings)
        ray = self._runner.start()
        actor = ray.remote(num_cpus=0)(Shard)
        self._actors = [actor.remote(str(store.root), name, part) for part in self.parts]
        self._get = ray.get

    def __enter__(self) -> ShardedEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._runner is not None:
            ray = self._runner.start()
            for actor in self._actors:
                ray.kill(actor)
            self._actors = []
            self._runner.close()
            self._runner = None

    def _call(self, actor: Any, method: str, *args: Any) -> Any:
        bound = getattr(actor, method)
        return bound(*args) if self._runner is None else bound.remote(*args)

    def _all(self, method: str, *args: Any) -> list[Any]:
        return self._get([self._call(a, method, *args) for a in self._actors])

    def retrieve(self, question: str, options: RetrievalOptions = RetrievalOptions(method="dense")) -> QueryResult:
        """``dense`` retrieval over every shard, merged and cut as one process does."""
        if options.method != "dense":
            raise InputError("method", f"the sharded engine serves 'dense' only, not {options.method!r}")
        question = validate_question(question, self.settings.max_question_chars)
        started = time.perf_counter()
        vector = self.engine.embedder.encode([question])[0]
        embedded = time.perf_counter()
        candidates = sum(self._all("rank", vector, tuple(options.documents), options.front_matter))
        kept = self._walk(options)
        ranks = [1 + sum(counts) for counts in zip(*self._all("better", [(i[0], i[1]) for _, i in kept]))]
        chosen = self._chosen(kept, ranks)
        done = time.perf_counter()
        timings = {"parse": 0.0, "embed": (embedded - started) * 1000, "match": (done - embedded) * 1000,
                   "select": 0.0, "retrieval": (done - started) * 1000}
        return QueryResult(question, "dense", self.name, None, [], sorted(chosen, key=lambda s: s.position),
                           options.to_dict(), timings, [], candidates)

    def _walk(self, options: RetrievalOptions) -> list[tuple[int, Item]]:
        """(shard, item) of the kept sentences in rank order: :func:`budget_positions` over the merged ranking."""
        words, most = options.budget_words, options.budget_sentences
        if not words and not most:
            most = options.k
        buffers: list[deque[Item]] = [deque() for _ in self._actors]
        cursors, ended = [0] * len(self._actors), [False] * len(self._actors)
        kept: list[tuple[int, Item]] = []
        total = 0
        while not (most and len(kept) >= most):
            gap = words - total if words else None
            for shard, buffer in enumerate(buffers):
                while buffer and gap is not None and buffer[0][2] > gap:
                    buffer.popleft()  # it will never fit: the words left only shrink
                if not buffer and not ended[shard]:
                    items, cursors[shard] = self._get(self._call(self._actors[shard], "page", cursors[shard], PAGE,
                                                                 gap))
                    buffer.extend(items)
                    ended[shard] = not items
            heads = [(-b[0][0], b[0][1], shard) for shard, b in enumerate(buffers) if b]
            if not heads:
                break
            shard = min(heads)[2]
            item = buffers[shard].popleft()
            kept.append((shard, item))
            total += item[2]
        return kept

    def _chosen(self, kept: list[tuple[int, Item]], ranks: list[int]) -> list[SelectedSentence]:
        by_shard: dict[int, list[int]] = {}
        for n, (shard, _) in enumerate(kept):
            by_shard.setdefault(shard, []).append(n)
        out: list[SelectedSentence] = [None] * len(kept)  # type: ignore[list-item]
        futures = {s: self._call(self._actors[s], "selected", [kept[n][1][3] for n in ns])
                   for s, ns in by_shard.items()}
        for shard, ns in by_shard.items():
            for n, sentence in zip(ns, self._get(futures[shard])):
                out[n] = dataclasses.replace(sentence, rank=ranks[n])
        return out

    def answer(self, result: QueryResult, answerer: str | None = None) -> Answer:
        """The answer from the merged context, by the answerers one process uses (the source: the collection's
        name, no QA graph)."""
        book = self.store.manifest(self.name).source_file or self.name
        return self.engine.generator(answerer).generate(result.question, result.sentences, AnswerSource(book))
