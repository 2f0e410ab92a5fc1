"""The driver's side of the ranked graph methods over shards (:mod:`kgcore.query.shard_graph` is the shards').

When the engine starts (:func:`start`) the driver adds up every shard's sentences, action labels and the word
counts of the sparse signal, and sends the sums back.  For a question (:func:`rank_graph`) it asks every shard for
its query nodes' best cosines (``groundedkg``) and sends their maxima, then for each signal's best value and
positive values in scope, and sends each shard its :class:`~kgcore.query.propagation.Scales`
(:func:`collection_scales`): the best over the collection, and for each of the shard's values how many in the
collection are larger, so a shard's reciprocal ranks are the collection's:

>>> first = ({"dense": 0.9}, {"dense": np.array([0.9, 0.5])})
>>> second = ({"dense": 0.7}, {"dense": np.array([0.7, 0.5])})
>>> [(s.tops["dense"], s.better["dense"].tolist()) for s in collection_scales([first, second])]
[(0.9, [0, 2]), (0.9, [1, 2])]

(0.5 is in both shards: the same value, the same rank, as :func:`~kgcore.query.propagation.rank_scaled` gives
ties.)  Then every shard ranks and the driver pages through the rankings (``ShardedEngine._walk``) and budgets as
one process budgets.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import Match, SelectedSentence
from kgcore.index.store.partial import whole_of
from kgcore.query.context import budget_positions
from kgcore.query.global_bm25 import collection_bm25
from kgcore.query.propagation import Scales
from kgcore.query.shard import Item
from kgcore.query.sharded_fusion import collection_ranks
from kgcore.query.sharded_walk import PageTable, collection_matches, page_table, walk_head

Measured = tuple[dict[str, float], dict[str, np.ndarray]]


def start(engine: Any) -> PageTable:
    """Give every shard the collection's counts: its sentences and action labels, then the sparse signal's
    word counts over its sentences and its chunks; the collection's entity pages, for the driver's walk."""
    whole = whole_of(engine.ask_all("use_whole"))
    counts = engine.ask_all("use_whole", whole)
    engine.ask_all("use_text_counts", collection_bm25([c[0] for c in counts]),
                   collection_bm25([c[1] for c in counts]))
    return page_table(engine)


def exact(options: RetrievalOptions) -> bool:
    """Whether ``options`` ask a ranking the shards score with the collection's statistics: ``lesegr``, and
    ``groundedkg``'s fused ranking under a budget (its paper union and graph-score ranking run per shard)."""
    budgeted = bool(options.budget_words or options.budget_sentences)
    return options.method == "lesegr" or (options.method == "groundedkg" and options.ranking == "fused"
                                          and budgeted)


def collection_scales(measured: Sequence[Measured]) -> list[Scales]:
    """Each shard's :class:`Scales` from every shard's measures (see the module docstring)."""
    tops: dict[str, float] = {}
    for shard_tops, _ in measured:
        for name, value in shard_tops.items():
            tops[name] = max(tops.get(name, 0.0), value)
    names = {name for _, values in measured for name in values}
    merged = {name: np.sort(np.concatenate([v[name] for _, v in measured if name in v])) for name in names}
    return [Scales(tops, {name: len(merged[name]) - np.searchsorted(merged[name], v, side="right")
                          for name, v in values.items()}) for _, values in measured]


def rank_graph(engine: Any, question: str, options: RetrievalOptions
               ) -> tuple[list[SelectedSentence], int, list[Match]]:
    """``lesegr`` or ``groundedkg``'s fused ranking (and multi-hop walk) over the shards, scored with the
    collection's statistics and budgeted as one process budgets; the candidates; the collection's top-K matches
    of the query nodes (``groundedkg``)."""
    best, matches = None, list[Match]()
    mine: list[list[Match] | None] = [None] * len(engine.parts)
    if options.method == "groundedkg":
        found = engine.ask_all("graph_best", question, options)
        bests = [f[0] for f in found if f is not None]
        best = np.max(np.stack(bests), axis=0) if bests else None
        matches, shares = collection_matches([f[1] if f is not None else None for f in found], options.k)
        mine = list(shares)
    scales = collection_scales(engine.gather([(n, engine.call(n, "graph_measure", question, options, best, m))
                                              for n, m in enumerate(mine)]))
    candidates = sum(engine.gather([(n, engine.call(n, "graph_rank", scales[n], options))
                                    for n in range(len(scales))]))
    if not (options.budget_words or options.budget_sentences):
        options = dataclasses.replace(options, budget_sentences=options.k)  # lesegr without a budget: its k best
    head, walk, view = walk_head(engine, engine.pages, question, matches) if best is not None else ([], None, None)
    words = view.words if view is not None else {}
    places = budget_positions([words[row] for row in head], options.budget_sentences, options.budget_words)
    walked = [head[p] for p in places]
    rest = engine._walk("fused", options, frozenset(head), len(walked), sum(words[row] for row in walked))
    ranks = [p + 1 for p in places] + _ranks(engine, rest, head, view.finals if view is not None else {})
    wanted = [(engine.pages.shard_of_row(row), row) for row in walked] + [(n, item[1]) for n, item in rest]
    out = []
    for sentence, rank in zip(_selected(engine, wanted), ranks):
        if walk is not None and sentence.position in walk.paths:
            sentence.signals["path"] = walk.paths[sentence.position]
        out.append(dataclasses.replace(sentence, rank=rank))
    return out, candidates, matches


def _ranks(engine: Any, rest: list[tuple[int, Item]], head: list[int], finals: dict[int, float]) -> list[int]:
    """The ranks of ``rest`` (the fused order's sentences after the walk's ``head``): after the head, each
    counts the better sentences of every shard's fused order that the head did not take."""
    ahead = sorted((-finals[row], row) for row in head if finals.get(row, 0.0) > 0)  # the head's, in the order
    ranks = collection_ranks(engine, "fused", [(item[0], item[1]) for _, item in rest])
    return [len(head) + rank - bisect.bisect_left(ahead, (-item[0], item[1])) for (_, item), rank in zip(rest, ranks)]


def _selected(engine: Any, wanted: list[tuple[int, int]]) -> list[SelectedSentence]:
    """The sentences of ``wanted`` (shard, row in the collection), explained by their shards, in order."""
    asks: dict[int, list[int]] = {}
    for n, (shard, _) in enumerate(wanted):
        asks.setdefault(shard, []).append(n)
    found = engine.gather([(shard, engine.call(shard, "graph_selected", [wanted[n][1] for n in ns]))
                           for shard, ns in asks.items()])
    out: list[SelectedSentence] = [None] * len(wanted)  # type: ignore[list-item]
    for ns, sentences in zip(asks.values(), found):
        for n, sentence in zip(ns, sentences):
            out[n] = sentence
    return out
