"""Merging what shards send when their scores are not one process's: ``hybrid``'s fused ranks, and the graph
methods run on each shard's documents alone.

**hybrid** (:func:`fuse_hybrid`) is exact.  Reciprocal-rank fusion needs each sentence's rank in the whole
collection under ``dense`` and under ``bm25``; both rankings are merged exactly from the shards
(:mod:`kgcore.query.shard`: the same cosines, BM25 with the collection's statistics).  The driver takes the best
``m`` of each, asks every shard how many of its sentences rank before each of them under both, and fuses: a
sentence in neither top ``m`` scores at most ``2 / (61 + m)``, so the fused order is exact above that bound.  The
budget is walked over that order; when the walk would need sentences below the bound, ``m`` doubles (every
sentence, at worst), so the result is :class:`~kgcore.query.engine.QueryEngine`'s.

**graph methods run per shard** (:func:`merge_runs`: ``groundedkg``'s paper union and graph-score ranking; the
fused ranking and ``lesegr`` are scored with the collection's statistics, :mod:`kgcore.query.sharded_graph`):
each shard answers as a collection of its documents alone would and sends its budgeted sentences, best first,
with their scores; the driver interleaves the shards' lists by score, each shard's own order kept
(:func:`heapq.merge`), and cuts the budget again.  This is an approximation: a shard scores by its own
documents' statistics and does not follow links into other shards.

>>> from kgcore.core.types import SelectedSentence
>>> def s(n, score, words):
...     return SelectedSentence(f"s{n}", n, " ".join(["w"] * words), "", score=score)
>>> one, two = [s(0, 0.9, 5), s(3, 0.5, 5)], [s(7, 0.8, 4), s(9, 0.95, 3)]   # each shard's own order
>>> kept, _ = merge_runs([(one, 10), (two, 12)], RetrievalOptions(budget_words=12))
>>> [(x.id, x.rank) for x in kept]
[('s0', 1), ('s7', 2), ('s9', 3)]

(``s3`` does not fit the 12 words left after the first three; ``s9`` keeps its place after ``s7``, its shard's
better, though its own score is higher.)
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Sequence
from typing import Any

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import SelectedSentence
from kgcore.query.context import budget_positions
from kgcore.query.methods.hybrid import RRF_K

#: The most sentences of each ranking the hybrid fusion reads before it settles for an approximate order.
MAX_FUSED = 16384


def merge_runs(runs: Sequence[tuple[list[SelectedSentence], int]], options: RetrievalOptions
               ) -> tuple[list[SelectedSentence], int]:
    """The shards' selections (each best first) interleaved by score, cut to the budget (none: ``k``, or every
    sentence for ``groundedkg``'s paper union); and the candidates of every shard.  A sentence's rank is its rank
    in its shard plus the other shards' sentences merged before it (one shard: its own rank)."""
    lists = [[(-s.score, s.position, n, s) for s in sel] for n, (sel, _) in enumerate(runs)]
    merged, ahead, last = [], [0] * len(runs), 0
    for _, _, shard, sentence in heapq.merge(*lists, key=lambda x: (x[0], x[1])):
        before = sum(ahead) - ahead[shard]  # a shard's own ranks skip what its budget left out: never go back
        last = max(last + 1, (sentence.rank or ahead[shard] + 1) + before)
        merged.append(dataclasses.replace(sentence, rank=last))
        ahead[shard] += 1
    if options.budget_words or options.budget_sentences:
        places = budget_positions([len(s.text.split()) for s in merged], options.budget_sentences,
                                  options.budget_words)
    else:
        places = list(range(len(merged) if options.method == "groundedkg" else min(options.k, len(merged))))
    return [merged[p] for p in places], sum(c for _, c in runs)


def _top(engine: Any, signal: str, m: int) -> list[tuple[int, tuple]]:
    """(shard, item) of the best ``m`` sentences of the collection under ``signal``."""
    pages = engine.ask_all("page", signal, 0, m, None)
    items = [(shard, item) for shard, (page, _) in enumerate(pages) for item in page]
    return sorted(items, key=lambda x: (-x[1][0], x[1][1]))[:m]


def fused_order(engine: Any, m: int) -> list[tuple[float, int, int, int, str, int]]:
    """(fused score, row, words, shard, signal, place) of the sentences in the top ``m`` of ``dense`` or ``bm25``,
    best first (ties by row, as :func:`~kgcore.query.methods.hybrid.rrf`)."""
    seen: dict[int, tuple[int, str, int, int]] = {}  # row -> (shard, the signal it came by, its place, words)
    score: dict[tuple[str, int], float] = {}
    for signal in ("dense", "bm25"):
        for shard, (value, row, words, place, _) in _top(engine, signal, m):
            seen.setdefault(row, (shard, signal, place, words))
            score[(signal, row)] = value
    asks = []  # per shard and signal: the other signal's score of the sentences that came by this one
    for shard in sorted({v[0] for v in seen.values()}):
        for signal, other in (("dense", "bm25"), ("bm25", "dense")):
            rows = [row for row, v in seen.items() if v[0] == shard and v[1] == signal]
            if rows:
                asks.append((other, rows, (shard, engine.call(shard, "scores_of", signal,
                                                              [seen[r][2] for r in rows], other))))
    for (other, rows, _), values in zip(asks, engine.gather([a[2] for a in asks])):
        score.update({(other, row): v for row, v in zip(rows, values)})
    rows = list(seen)
    ranks = {signal: collection_ranks(engine, signal, [(score[(signal, row)], row) for row in rows])
             for signal in ("dense", "bm25")}
    out = []
    for n, row in enumerate(rows):
        fused = 0.0 + 1.0 / (RRF_K + ranks["dense"][n])  # summed in rrf's order, so ties fall alike
        fused += 1.0 / (RRF_K + ranks["bm25"][n])
        shard, signal, place, words = seen[row]
        out.append((fused, row, words, shard, signal, place))
    return sorted(out, key=lambda x: (-x[0], x[1]))


def fetch_selected(engine: Any, wanted: Sequence[tuple[int, str, int]]) -> list[SelectedSentence]:
    """The context sentences of ``wanted`` (shard, signal, place in that shard's ``signal`` ranking), in order:
    one call per shard and signal."""
    asks: dict[tuple[int, str], list[int]] = {}
    for n, (shard, signal, _) in enumerate(wanted):
        asks.setdefault((shard, signal), []).append(n)
    calls = [(shard, engine.call(shard, "selected", signal, [wanted[n][2] for n in ns]))
             for (shard, signal), ns in asks.items()]
    out: list[SelectedSentence] = [None] * len(wanted)  # type: ignore[list-item]
    for ns, sentences in zip(asks.values(), engine.gather(calls)):
        for n, sentence in zip(ns, sentences):
            out[n] = sentence
    return out


def _selected(engine: Any, order: list[tuple[float, int, int, int, str, int]], places: list[int]
              ) -> list[SelectedSentence]:
    """The sentences at ``places`` of the fused ``order``, from their shards, with fused scores and ranks."""
    sentences = fetch_selected(engine, [(order[p][3], order[p][4], order[p][5]) for p in places])
    return [dataclasses.replace(s, score=round(order[p][0], 4), rank=p + 1) for p, s in zip(places, sentences)]


def collection_ranks(engine: Any, signal: str, keys: list[tuple[float, int]]) -> list[int]:
    """Each (score, row)'s rank in the collection under ``signal`` (1 = best)."""
    return [1 + sum(counts) for counts in zip(*engine.ask_all("better", signal, keys))] if keys else []


def fuse_hybrid(engine: Any, options: RetrievalOptions, candidates: int, shortest: int
                ) -> tuple[list[SelectedSentence], list[str]]:
    """``hybrid`` over the shards, exactly as one process ranks it (see the module docstring); and notes."""
    m = 64
    while True:
        order = fused_order(engine, m)
        bound = 2.0 / (RRF_K + m + 1)
        sure = order if m >= candidates else [x for x in order if x[0] > bound]
        words = [x[2] for x in sure]
        most = options.budget_sentences or (0 if options.budget_words else options.k)
        places = budget_positions(words, most, options.budget_words)
        left = options.budget_words - sum(words[p] for p in places) if options.budget_words else 0
        if m >= candidates or (most and len(places) >= most) or (options.budget_words and left < shortest):
            return _selected(engine, sure, places), []
        if m >= MAX_FUSED:
            return _selected(engine, sure, places), [f"hybrid: fused from the top {m} of each ranking"]
        m *= 2
