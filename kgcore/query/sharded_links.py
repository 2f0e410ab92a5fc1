"""The driver's side of the links between shards: the collection's contextual graph stored once, and the messages
that cross shards traded layer by layer (:mod:`kgcore.query.shard_links` is the shards' side).

When the engine starts (:func:`start_links`) the collection's contextual graph must be stored for its generation
(:func:`ensure_stored`: one process builds it once, as one process links the collection's graph when it is
written); every shard takes its part of it, and says which nodes of other shards it hears and which of its own
it sends; the driver hands each shard the names of the nodes it hears.  Per question (:func:`trade`), after every
shard has its signals, once per propagation layer the driver gathers what each shard sends and hands each shard
what it hears (:func:`route`), so the ranking is one process's:

>>> sent = [Exported(np.array([7]), np.array([0.5]), [np.array([1.2])]),
...         Exported(np.array([2, 9]), np.array([1.0, 0.3]), [np.array([0.8, 0.4])])]
>>> heard = [Heard.closed(2), Heard.closed(1)]
>>> route(sent, [np.array([2, 9]), np.array([5])], heard, 0)
>>> heard[0].gate.tolist(), [v.tolist() for v in heard[0].values[0]], heard[1].gate.tolist()
([1.0, 0.3], [[0.8, 0.4]], [0.0])

(Node 5 sent nothing: its gate is closed, so the shard hearing it hears no message.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kgcore.core.heap import release_free_memory
from kgcore.core.settings import RetrievalOptions
from kgcore.index.store.disk import Store
from kgcore.index.views.context_store import is_stored
from kgcore.index.views.contextual import context_graph
from kgcore.query.fused import stage_layers
from kgcore.query.shard_links import Exported, Heard

#: The note a ranking carries when the links between shards are cut (:func:`start_links` gave None).
CUT = ("the links between shards are cut (a shard found no stored contextual graph for the collection's "
       "generation: it changed as the shards started, or the store could not be written); this ranking may "
       "differ from one process's: start the sharded engine again")


def ensure_stored(store: Store, name: str) -> None:
    """Store collection ``name``'s contextual graph for its generation unless it is: the collection loaded in
    this process once (its memory given back after), as one process links it when it is written."""
    if is_stored(store.doc_path(name), store.manifest(name)):
        return
    index = store.load(name)
    context_graph(index)  # built and stored in the collection's linked folder
    del index
    release_free_memory()


def start_links(engine: Any) -> list[np.ndarray] | None:
    """Each shard's ghosts (the collection's nodes it hears; none anywhere: nothing to trade), every shard told
    their names; None when some shard has no part of the collection's stored graph, or the shards took parts of
    different generations (the collection changed as they started): the links between shards are then cut, as
    with graphs of the shards' own documents, and a ranking says so (:data:`CUT`)."""
    ends = engine.ask_all("graph_link_ends")
    stamps = {stamp for stamp, _, _, _ in ends}
    if None in stamps or len(stamps) > 1:
        return None
    named = {int(node): text for _, _, sent, names in ends for node, text in zip(sent.tolist(), names)}
    engine.gather([(n, engine.call(n, "graph_name_ghosts", [named[int(node)] for node in ghosts.tolist()]))
                   for n, (_, ghosts, _, _) in enumerate(ends) if len(ghosts)])
    return [ghosts for _, ghosts, _, _ in ends]


def route(sent: Sequence[Exported | None], ghosts: Sequence[np.ndarray], heard: Sequence[Heard], layer: int
          ) -> None:
    """Add to each shard's ``heard`` what its ``ghosts`` sent for ``layer`` (and, at layer 0, their gates)."""
    parts = [s for s in sent if s is not None and len(s.ids)]
    stages = max((len(s.values) for s in sent if s is not None), default=0)
    ids = np.concatenate([s.ids for s in parts]) if parts else np.zeros(0, np.int64)
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    gates = np.concatenate([s.gate for s in parts])[order] if parts else np.zeros(0)
    columns = [np.concatenate([s.values[k] for s in parts]) if parts else np.zeros(0) for k in range(stages)]
    columns = [c[order] if len(c) == len(order) else c for c in columns]  # a stage without this layer: empty
    for mine, h in zip(ghosts, heard):
        at = np.searchsorted(ids, mine).clip(0, max(len(ids) - 1, 0))
        found = (ids[at] == mine) if len(ids) else np.zeros(len(mine), dtype=bool)
        if layer == 0:
            h.gate = np.where(found, gates[at], 0.0) if len(ids) else np.zeros(len(mine))
        h.values += [[] for _ in range(stages - len(h.values))]
        for k, column in enumerate(columns):
            if len(column) == len(ids):  # else the stage has no such layer
                h.values[k].append(np.where(found, column[at], 0.0) if len(ids) else np.zeros(len(mine)))


def trade(engine: Any, ghosts: list[np.ndarray], scales: Sequence[Any], options: RetrievalOptions,
          weight: float) -> list[Heard]:
    """What every shard hears from the others for this question, every layer of every stage: the shards make
    their signals (``scales``, the names ``weight``), then send and hear once per layer."""
    depth = max(stage_layers(options, options.method == "groundedkg"))
    heard = [Heard.closed(len(g)) for g in ghosts]
    sent = engine.gather([(n, engine.call(n, "graph_signals", scales[n], options, weight))
                          for n in range(len(scales))])
    asked = [n for n, s in enumerate(sent) if s is not None]  # a shard out of the question's documents sends none
    for layer in range(depth):
        route(sent, ghosts, heard, layer)
        if layer + 1 < depth:
            answers = engine.gather([(n, engine.call(n, "graph_export", layer + 1, heard[n])) for n in asked])
            sent = [None] * len(heard)
            for n, answer in zip(asked, answers):
                sent[n] = answer
    return heard
