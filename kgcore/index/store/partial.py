"""Part of a collection: some of its documents' sentences and sentence vectors, without the linked graph.

What one shard of a sharded query engine (:mod:`kgcore.query.sharded`) holds: a process serving documents
``doc_ids`` reads only their files, so its memory follows its share of the collection, not the whole.  Each row
knows its row in the whole collection (:attr:`Part.rows`), so rankings from several parts merge into the order
one process would give.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.core.errors import InputError
from kgcore.core.graph import GroundedGraph
from kgcore.index.store.disk import Store, read_sentences_of
from kgcore.index.store.in_memory import Index


@dataclass
class Part:
    """An :class:`Index` over some documents (no graph, no node vectors) and each row's row in the collection."""

    index: Index
    rows: np.ndarray


def load_part(store: Store, name: str, doc_ids: Sequence[str]) -> Part:
    """Documents ``doc_ids`` of collection ``name``, loaded; an unknown id is an :class:`InputError`."""
    manifest = store.manifest(name)
    if manifest.format == 1:
        raise InputError(name, "a collection of kgcore 0.1 has no documents to split; index it again")
    known = set(manifest.doc_ids)
    unknown = [d for d in doc_ids if d not in known]
    if unknown:
        raise InputError("documents", f"{unknown[0]!r} is not a document of {name!r}")
    wanted, offsets, start = set(doc_ids), {}, 0
    for entry in manifest.documents:
        offsets[entry.doc_id] = start
        start += entry.manifest.counts.sentences
    part = dataclasses.replace(manifest, documents=tuple(d for d in manifest.documents if d.doc_id in wanted))
    sentences, vectors = read_sentences_of(store.doc_path(name), part)
    rows: list[int] = []
    seen: dict[str, int] = {}
    for s in sentences:
        seen[s.doc_id] = seen.get(s.doc_id, -1) + 1
        rows.append(offsets[s.doc_id] + seen[s.doc_id])
    dim = vectors.shape[1] if vectors.ndim == 2 else 0
    index = Index(name, store.doc_path(name), part, sentences, GroundedGraph(), [],
                  np.zeros((0, dim), dtype=np.float32), vectors)
    return Part(index, np.asarray(rows, dtype=np.int64))
