"""The multi-hop walk (:mod:`kgcore.query.multihop`) over a sharded collection, run by the driver.

The walk goes from the pages a question names and the best sentences of the fused order to the pages their
sentences name, which may sit on any shard.  So the driver holds the collection's entity pages (titles, names,
aliases, typed relations and lead sentences of every document: :class:`PageTable`, merged once from every shard's
pages by :func:`~kgcore.index.views.pages.merged_pages`, as one process builds them), and runs the same walk
(:func:`~kgcore.query.multihop.walked`) over a :class:`ShardedCollection`: a page's sentences and fused scores and
a sentence's names are asked of the shard that holds them, once each per question.

>>> table = PageTable(EntityPages(), ["a", "b", "c"], [0, 4, 9], {"a": 0, "b": 1, "c": 0})
>>> [table.shard_of_row(row) for row in (0, 3, 4, 8, 9, 20)]
[0, 0, 1, 1, 0, 0]
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgcore.core.types import Match
from kgcore.index.views.pages import EntityPages, merged_pages
from kgcore.query import multihop
from kgcore.query.match import CONTEXT_WEIGHT, Pool, agreement_of


@dataclass
class PageTable:
    """The collection's entity pages held by the driver, and where each document and row lives: ``docs`` in
    reading order with their first rows ``starts``, and each document's shard."""

    pages: EntityPages
    docs: list[str]
    starts: list[int]
    shard_of: dict[str, int]

    def shard_of_row(self, row: int) -> int:
        return self.shard_of[self.docs[bisect.bisect_right(self.starts, row) - 1]]


def page_table(engine: Any) -> PageTable:
    """Every shard's pages merged, and the collection's documents and rows (from its manifest)."""
    manifest = engine.store.manifest(engine.name)
    docs, starts, start = [], [], 0
    for entry in manifest.documents:
        docs.append(entry.doc_id)
        starts.append(start)
        start += entry.manifest.counts.sentences
    shard_of = {doc: n for n, part in enumerate(engine.parts) for doc in part}
    return PageTable(merged_pages(engine.ask_all("graph_pages"), docs), docs, starts, shard_of)


class ShardedCollection:
    """The sharded collection as the walk reads it (:class:`~kgcore.query.multihop.Collection`) for the question
    every shard has ranked; what it asked is kept (``finals``: each sentence's fused score it has seen,
    ``words``: each sentence's words)."""

    def __init__(self, engine: Any, table: PageTable) -> None:
        self.engine, self.table, self.pages = engine, table, table.pages
        self.finals: dict[int, float] = {}
        self.words: dict[int, int] = {}
        self._pages: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._sentences: dict[int, tuple[str, str, list[str]]] = {}

    def page(self, doc: str) -> tuple[np.ndarray, np.ndarray]:
        if doc not in self._pages:
            shard = self.table.shard_of[doc]
            (rows, finals), = self.engine.gather([(shard, self.engine.call(shard, "graph_page", doc))])
            self.finals.update(zip(rows, finals))
            self._pages[doc] = (np.asarray(rows, dtype=np.int64), np.asarray(finals, dtype=np.float64))
        return self._pages[doc]

    def sentence(self, row: int) -> tuple[str, str, list[str]]:
        if row not in self._sentences:
            self.fetch([row])
        return self._sentences[row]

    def fetch(self, rows: Sequence[int]) -> None:
        """Ask the shards for the sentences ``rows`` not asked yet, one call per shard."""
        asks: dict[int, list[int]] = {}
        for row in rows:
            if row not in self._sentences:
                asks.setdefault(self.table.shard_of_row(row), []).append(row)
        calls = [(shard, self.engine.call(shard, "graph_sentences", wanted)) for shard, wanted in asks.items()]
        for wanted, found in zip(asks.values(), self.engine.gather(calls)):
            for row, (doc, text, names, words) in zip(wanted, found):
                self._sentences[row], self.words[row] = (doc, text, names), words


def collection_matches(pools: Sequence[Sequence[Pool] | None], k: int) -> tuple[list[Match], list[list[Match]]]:
    """The collection's top-``k`` matches of every query node from the shards' pools (None: a shard out of the
    question's documents), as :func:`~kgcore.query.match.match_nodes` chooses them over one collection: the
    collection's pool is the best cosines of all (its size capped by every shard's rows), ranked by cosine plus
    context agreement, a node several shards hold once; and each shard's share, in the same order (such a node in
    the share of every shard holding it).  (Ties are broken by shard where one process breaks them by node row.)"""
    found = [p for p in pools if p is not None]
    matches: list[Match] = []
    shares: list[list[Match]] = [[] for _ in pools]
    for q in range(len(found[0]) if found else 0):
        size = min(found[0][q].wanted, sum(p[q].finite for p in found))
        candidates = [(cos, by, shard, n, m) for shard, p in enumerate(pools) if p is not None
                      for n, (cos, by, m) in enumerate(p[q].candidates)]
        pool, holders = _one_per_node(sorted(candidates, key=lambda c: (-c[0], c[2], c[3])), pools, q)
        pool = pool[:size]
        pool.sort(key=lambda c: (c[2], c[3]))  # the pool in a fixed order, then ranked stably, as one process
        for rank, c in enumerate(sorted(pool, key=lambda c: -c[1])[:k]):
            match = dataclasses.replace(c[4], rank=rank)
            matches.append(match)
            for shard in holders[match.node_id]:
                shares[shard].append(match)
    return matches, shares


def _one_per_node(candidates: list[tuple], pools: Sequence[Sequence[Pool] | None], q: int
                  ) -> tuple[list[tuple], dict[str, list[int]]]:
    """The candidates (best first) with each node once, and the shards holding each: a node several shards hold
    (a name their documents share, one node in the collection) is one candidate, matched on every shard, ranked
    by its context agreement over the neighbours it has on all of them (:func:`~kgcore.query.match.agreement_of`
    the maxima of every shard's :attr:`~kgcore.query.match.Pool.context`, those out of the question's documents
    too)."""
    kept: dict[str, tuple] = {}
    holders: dict[str, list[int]] = {}
    for c in candidates:
        kept.setdefault(c[4].node_id, c)
        if c[2] not in holders.setdefault(c[4].node_id, []):
            holders[c[4].node_id].append(c[2])
    for node in holders:
        columns = [p[q].context[node] for p in pools if p is not None and node in p[q].context]
        if len(columns) > 1:
            cos, _, shard, n, m = kept[node]
            agreement = agreement_of(np.max(columns, axis=0)[:, None])  # float32, as one process adds it
            kept[node] = (cos, float((np.float32(cos) + np.float32(CONTEXT_WEIGHT) * agreement)[0]), shard, n, m)
    return list(kept.values()), holders


def walk_head(engine: Any, table: PageTable, question: str, matches: list[Match]
              ) -> tuple[list[int], multihop.Walk | None, ShardedCollection]:
    """The walk's sentences (rows in the collection, walk order), the walk (its paths), and what it read; no
    sentences when the question gets no walk."""
    view = ShardedCollection(engine, table)
    walk = multihop.plan_over(table.pages, question, matches)
    if walk is None:
        return [], None, view
    firsts = [item for page, _ in engine.ask_all("page", "fused", 0, multihop.FIRST_HOP, None) for item in page]
    firsts.sort(key=lambda item: (-item[0], item[1]))
    top = max(firsts[0][0] if firsts else 0.0, 1e-9)
    view.finals.update((item[1], item[0]) for item in firsts)
    head = multihop.walked(view, walk, [item[1] for item in firsts[: multihop.FIRST_HOP]], top)
    view.fetch(head)
    return head, walk, view
