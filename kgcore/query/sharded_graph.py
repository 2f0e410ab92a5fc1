"""The driver's side of the ranked graph methods over shards (:mod:`kgcore.query.shard_graph` is the shards').

When the engine starts (:func:`start`) the driver adds up every shard's sentences, action labels and the word
counts of the sparse signal, and sends the sums back, and keeps the collection's entity pages for the multi-hop
walk (:mod:`kgcore.query.sharded_walk`).  For a question (:func:`rank_graph`) it asks every shard for its query
nodes' best cosines and pools of candidates (``groundedkg``) and sends the maxima and each shard's share of the
collection's top-K matches, then for each signal's best value and
positive values in scope, and sends each shard its :class:`~kgcore.query.propagation.Scales`
(:func:`collection_scales`): the best over the collection, and for each of the shard's values how many in the
collection are larger, so a shard's reciprocal ranks are the collection's:

>>> first = ({"dense": 0.9}, {"dense": np.array([0.9, 0.5])})
>>> second = ({"dense": 0.7}, {"dense": np.array([0.7, 0.5])})
>>> [(s.tops["dense"], s.better["dense"].tolist()) for s in collection_scales([first, second])]
[(0.9, [0, 2]), (0.9, [1, 2])]

(0.5 is in both shards: the same value, the same rank, as :func:`~kgcore.query.propagation.rank_scaled` gives
ties.)  Then every shard ranks; the driver walks the entity pages, pages through the rankings
(``ShardedEngine._walk``), in two stages over :data:`~kgcore.query.fused.GRAPH_HEAD_WORDS` words, and budgets as
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
from kgcore.index.store.partial import Whole, whole_of
from kgcore.query import asked_kind, fused, multihop
from kgcore.query.context import budget_positions
from kgcore.query.global_bm25 import collection_bm25
from kgcore.query.methods.groundedkg import asked_kind as asked_kind_of
from kgcore.query.methods.groundedkg import fused_budgeted
from kgcore.query.propagation import Scales
from kgcore.query.shard import Item
from kgcore.query.shard_graph import text_keys
from kgcore.query.sharded_fusion import collection_ranks
from kgcore.query.sharded_links import trade
from kgcore.query.sharded_walk import PageTable, ShardedCollection, collection_matches, page_table, walk_head

Measured = tuple[dict[str, float], dict[str, np.ndarray]]


def start(engine: Any) -> tuple[PageTable, Whole]:
    """Give every shard the collection's counts: its sentences and action labels, then the sparse signal's
    word counts over its sentences and its chunks; the collection's entity pages, for the driver's walk, and the
    collection's counts (their ``nodes``: the nodes grounded in documents of several shards)."""
    whole = whole_of(engine.ask_all("use_whole"))
    counts = engine.ask_all("use_whole", whole)
    engine.ask_all("use_text_counts", collection_bm25([c[0] for c in counts]),
                   collection_bm25([c[1] for c in counts]))
    return page_table(engine), whole


def exact(options: RetrievalOptions) -> bool:
    """Whether ``options`` ask a ranking the shards score with the collection's statistics: ``lesegr``, and
    ``groundedkg``'s fused ranking under a budget (its paper union and graph-score ranking run per shard)."""
    return options.method == "lesegr" or (options.method == "groundedkg" and fused_budgeted(options))


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
        bests = [f[0] for f in found if f[0] is not None]
        best = np.max(np.stack(bests), axis=0) if bests else None
        matches, shares = collection_matches([f[1] for f in found], options.k)
        mine = list(shares)
    scales = collection_scales(engine.gather([(n, engine.call(n, "graph_measure", question, options, best, m))
                                              for n, m in enumerate(mine)]))
    weight = names_weight(engine, question, options, matches)
    traded = engine.ghosts is not None and any(len(g) for g in engine.ghosts)
    heard = trade(engine, engine.ghosts, scales, options, weight) if traded else None
    ranked = engine.gather([(n, engine.call(n, "graph_rank", scales[n], options, weight,
                                            heard[n] if heard is not None else None))
                            for n in range(len(scales))])
    two_stages = (options.method == "groundedkg" and options.budget_words > fused.GRAPH_HEAD_WORDS
                  and any(graph for _, graph in ranked))
    asked = asked_kind_of(question, engine.engine.models().nlp, engine.bm25.sentences) if (
        options.method == "groundedkg" and multihop.plan_over(engine.pages.pages, question, matches) is None) else None
    if asked is not None:
        raise_asked(engine, ("fused", "text") if two_stages else ("fused",), str(asked.expected.kind))
    if not (options.budget_words or options.budget_sentences):
        options = dataclasses.replace(options, budget_sentences=options.k)  # lesegr without a budget: its k best
    walked = walk_head(engine, engine.pages, question, matches) if best is not None else None
    chosen = (_two_stages if two_stages else _one_stage)(engine, options, walked[0] if walked else [],
                                                         walked[2] if walked else None)
    out = []
    for sentence, (_, _, rank, _) in zip(_selected(engine, chosen, two_stages), chosen):
        if walked and walked[1] is not None and sentence.position in walked[1].paths:
            sentence.signals["path"] = walked[1].paths[sentence.position]
        out.append(dataclasses.replace(sentence, rank=rank))
    return out, sum(n for n, _ in ranked), matches


def raise_asked(engine: Any, signals: Sequence[str], kind: str) -> None:
    """Raise, in each of the ``signals`` rankings, the collection's first candidates that hold an answer of the
    question's asked ``kind``, as one process raises them (:meth:`kgcore.query.asked_kind.AskedKind.raised`): the
    first :data:`~kgcore.query.asked_kind.CANDIDATES` of the merged ranking, each shard reading its own; nothing
    when more than :data:`~kgcore.query.asked_kind.SELECTIVE` of them hold one."""
    for signal in signals:
        head = merged_head(engine, signal, asked_kind.CANDIDATES)
        if not head:
            continue
        asks: dict[int, list[int]] = {}
        for shard, row in head:
            asks.setdefault(shard, []).append(row)
        found = engine.gather([(shard, engine.call(shard, "graph_holds", rows)) for shard, rows in asks.items()])
        raised = {shard: [row for row, held in zip(rows, holds) if held]
                  for (shard, rows), holds in zip(asks.items(), found)}
        if sum(map(len, raised.values())) > asked_kind.SELECTIVE * len(head):
            continue
        engine.gather([(shard, engine.call(shard, "graph_raise", signal, rows, 1 + asked_kind.WEIGHT, kind))
                       for shard, rows in raised.items() if rows])


def merged_head(engine: Any, signal: str, count: int) -> list[tuple[int, int]]:
    """The first ``count`` (shard, row) of the ``signal`` ranking merged over the shards by key, a text another
    shard ranked better left out (as one process leaves its repeats out before it raises); each shard is paged
    further while the distinct rows fall short and it has more."""
    fetched = count
    while True:
        pages = engine.gather([(n, engine.call(n, "page", signal, 0, fetched, None))
                               for n in range(len(engine.parts))])
        items = sorted((-item[0], item[1], n, item[4]) for n, (page, _) in enumerate(pages) for item in page)
        met: set[int] = set()
        out: list[tuple[int, int]] = []
        for _, row, n, text in items:
            if not (text and text in met):
                met.add(text)
                out.append((n, row))
        if len(out) >= count or all(len(page) < fetched for page, _ in pages):
            return out[:count]
        fetched *= 2


def names_weight(engine: Any, question: str, options: RetrievalOptions, matches: list[Match]) -> float:
    """The weight of the question's names, as one process gives it: the fused ranking's
    (:func:`~kgcore.query.fused.name_weight_for` the budget) unless the multi-hop walk runs, which weighs none;
    LeSeGR weighs none."""
    if options.method != "groundedkg" or multihop.plan_over(engine.pages.pages, question, matches) is not None:
        return 0.0
    return fused.name_weight_for(options.budget_words)


#: A kept sentence: its shard, its row in the collection, its rank, whether the second stage ranked it.
Chosen = tuple[int, int, int, bool]


def _one_stage(engine: Any, options: RetrievalOptions, head: list[int], view: ShardedCollection | None
               ) -> list[Chosen]:
    """The walk's sentences (``head``), then the merged fused ranking, budgeted as one process budgets."""
    words = view.words if view is not None else {}
    places = budget_positions([words[row] for row in head], options.budget_sentences, options.budget_words)
    walked = [head[p] for p in places]
    rest = engine._walk("fused", options, frozenset(head), len(walked), sum(words[row] for row in walked))
    finals = view.finals if view is not None else {}
    ahead = [(finals[row], row) for row in head if finals.get(row, 0.0) > 0]  # the head's, in the fused order
    ranks = _ranks(engine, "fused", rest, len(head), ahead)
    return ([(engine.pages.shard_of_row(row), row, p + 1, False) for p, row in zip(places, walked)]
            + [(n, item[1], rank, False) for (n, item), rank in zip(rest, ranks)])


def _two_stages(engine: Any, options: RetrievalOptions, head: list[int], view: ShardedCollection | None
                ) -> list[Chosen]:
    """Over :data:`~kgcore.query.fused.GRAPH_HEAD_WORDS` words: the first that many words of the walk and the
    fused ranking (the graph head), then the merged ranking without the graph signal, budgeted as one process
    budgets."""
    words = view.words if view is not None else {}
    places = budget_positions([words[row] for row in head], 0, fused.GRAPH_HEAD_WORDS)
    walked = [head[p] for p in places]
    cut = dataclasses.replace(options, budget_words=fused.GRAPH_HEAD_WORDS, budget_sentences=0)
    rest = engine._walk("fused", cut, frozenset(head), 0, sum(words[row] for row in walked))
    texts = text_keys([view.sentence(row)[1] for row in walked]).tolist() if view is not None else []
    graph = ([(engine.pages.shard_of_row(row), row, words[row], t) for row, t in zip(walked, texts)]
             + [(n, item[1], item[2], item[4]) for n, item in rest])
    kept = graph[: options.budget_sentences] if options.budget_sentences else graph
    tail = engine._walk("text", options, frozenset(row for _, row, _, _ in graph), len(kept),
                        sum(w for _, _, w, _ in kept), frozenset(t for *_, t in graph))
    asks: dict[int, list[int]] = {}
    for shard, row, _, _ in graph:
        asks.setdefault(shard, []).append(row)
    keys = engine.gather([(shard, engine.call(shard, "graph_keys", "text", rows)) for shard, rows in asks.items()])
    ahead = [(key, row) for rows, found in zip(asks.values(), keys) for row, key in zip(rows, found)
             if key is not None]
    ranks = _ranks(engine, "text", tail, len(graph), ahead)
    return ([(shard, row, n + 1, False) for n, (shard, row, _, _) in enumerate(kept)]
            + [(n, item[1], rank, True) for (n, item), rank in zip(tail, ranks)])


def _ranks(engine: Any, signal: str, rest: list[tuple[int, Item]], before: int, ahead: list[tuple[float, int]]
           ) -> list[int]:
    """The ranks of ``rest`` (the ``signal`` ranking's sentences after ``before`` placed first, of which
    ``ahead`` (key, row) are in that ranking): after those, each counts the better sentences of every shard's
    ranking that were not placed first."""
    placed = sorted((-key, row) for key, row in ahead)
    ranks = collection_ranks(engine, signal, [(item[0], item[1]) for _, item in rest])
    return [before + rank - bisect.bisect_left(placed, (-item[0], item[1])) for (_, item), rank in zip(rest, ranks)]


def _selected(engine: Any, chosen: list[Chosen], two_stages: bool) -> list[SelectedSentence]:
    """The ``chosen`` sentences, explained by their shards, in order."""
    asks: dict[int, list[int]] = {}
    for n, (shard, _, _, _) in enumerate(chosen):
        asks.setdefault(shard, []).append(n)
    found = engine.gather([(shard, engine.call(shard, "graph_selected", [chosen[n][1] for n in ns],
                                               [chosen[n][1] for n in ns if chosen[n][3]], two_stages))
                           for shard, ns in asks.items()])
    out: list[SelectedSentence] = [None] * len(chosen)  # type: ignore[list-item]
    for ns, sentences in zip(asks.values(), found):
        for n, sentence in zip(ns, sentences):
            out[n] = sentence
    return out
