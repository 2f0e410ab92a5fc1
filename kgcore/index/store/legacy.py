"""Stores written by kgcore 0.1: one folder per document, read as collections of one and migrated on write.

A 0.1 index folder holds ``manifest.json``, ``sentences.jsonl``, ``graph.json``,
``parses.jsonl``, ``node_ids.json``, ``node_vectors.npy`` and
``sentence_vectors.npy`` directly, with the paper's bare sentence ids
(``text_0-3``) and node ids (``give_12``, ``father``).  Reading converts ids
in memory to the collection form (``peter-rabbit/text_0-3``,
``peter-rabbit/give_12``, ``peter-rabbit/father``; proper names keep their
key); nothing is written.  The first write to such a collection (adding or
removing a document) first turns the folder into a shard of the new layout
(:func:`migrate`), under the collection's lock.

>>> from kgcore.core.types import Edge, Node
>>> g = GroundedGraph({"give_0": Node("give_0", "give", ["gave"], "action", ["text_0-0"]),
...                    "peter": Node("peter", "Peter", ["Peter"], "entity", ["text_0-0"])},
...                   [Edge("give_0", "peter", "ARG2", "action-entity", ["text_0-0"])])
>>> c = convert_graph(g, "pr")
>>> sorted(c.nodes), c.edges[0].source, c.nodes["peter"].grounded_texts
(['peter', 'pr/give_0'], 'pr/give_0', ['pr/text_0-0'])
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np

from kgcore.core.errors import DamagedIndexError
from kgcore.core.graph import GroundedGraph, is_proper_name, scoped_id
from kgcore.core.types import Edge, Node, Sentence, sentence_id, split_sentence_id
from kgcore.index.store.collection import CollectionCounts, CollectionManifest, DocumentEntry
from kgcore.index.store.integrity import READ_ERRORS, parse_json, parse_jsonl, parse_npy, read_verified
from kgcore.index.store.manifest import Manifest

LEGACY_FILES = ("manifest.json", "sentences.jsonl", "graph.json", "parses.jsonl", "node_ids.json",
                "node_vectors.npy", "sentence_vectors.npy")
#: The folder name a legacy document has in its collection manifest: the collection folder itself.
IN_PLACE = ""


def is_legacy(folder: Path) -> bool:
    """Whether ``folder`` is a kgcore 0.1 index (a manifest and no collection manifest)."""
    return (folder / "manifest.json").is_file() and not (folder / "collection.json").exists()


def global_sentence_id(doc_id: str, sid: str) -> str:
    """``sid`` behind ``doc_id`` unless it already names a document.

    >>> global_sentence_id("pr", "text_0-3"), global_sentence_id("pr", "pr/text_0-3")
    ('pr/text_0-3', 'pr/text_0-3')
    """
    return sid if split_sentence_id(sid)[0] else f"{doc_id}/{sid}"


def node_id_map(graph: GroundedGraph, doc_id: str) -> dict[str, str]:
    """Old node id -> collection node id (actions and common nouns scoped to the document)."""
    return {i: scoped_id(doc_id, i, n.node_type == "entity" and is_proper_name(n.label))
            for i, n in graph.nodes.items()}


def convert_graph(graph: GroundedGraph, doc_id: str) -> GroundedGraph:
    """The graph with collection ids (see the module docstring)."""
    ids = node_id_map(graph, doc_id)
    nodes = {ids[i]: Node(ids[i], n.label, list(n.texts), n.node_type,
                          [global_sentence_id(doc_id, s) for s in n.grounded_texts]) for i, n in graph.nodes.items()}
    edges = [Edge(ids[e.source], ids[e.target], e.edge_role, e.edge_type,
                  [global_sentence_id(doc_id, s) for s in e.grounded_texts]) for e in graph.edges]
    return GroundedGraph(nodes, edges)


def convert_sentence(sentence: Sentence, doc_id: str) -> Sentence:
    return dataclasses.replace(sentence, id=sentence_id(sentence.chunk, sentence.index, doc_id), doc_id=doc_id)


def read(folder: Path, manifest: Manifest) -> tuple[list[Sentence], GroundedGraph, list[str], np.ndarray, np.ndarray]:
    """(sentences, graph, node ids, node vectors, sentence vectors) of a 0.1 index, with collection ids; a
    damaged file is a :class:`~kgcore.core.errors.DamagedIndexError` naming it."""
    doc_id = manifest.doc_id
    rows = parse_jsonl(folder / "sentences.jsonl", read_verified(folder / "sentences.jsonl"))
    try:
        sentences = [convert_sentence(Sentence.from_dict(row), doc_id) for row in rows]
        graph = GroundedGraph.from_node_link(parse_json(folder / "graph.json", read_verified(folder / "graph.json")))
        ids = node_id_map(graph, doc_id)
        old_ids = parse_json(folder / "node_ids.json", read_verified(folder / "node_ids.json"))
        node_ids = [ids[i] for i in old_ids]
    except READ_ERRORS as exc:
        raise DamagedIndexError(folder, f"unexpected content ({type(exc).__name__}: {exc})") from None
    vectors = [parse_npy(folder / name, read_verified(folder / name))
               for name in ("node_vectors.npy", "sentence_vectors.npy")]
    return sentences, convert_graph(graph, doc_id), node_ids, vectors[0], vectors[1]


def read_analyses(folder: Path, doc_id: str) -> dict[str, dict]:
    path = folder / "parses.jsonl"
    if not path.exists():
        return {}
    rows = parse_jsonl(path, read_verified(path))
    try:
        return {global_sentence_id(doc_id, r["sentence_id"]): r["analysis"] for r in rows}
    except READ_ERRORS as exc:
        raise DamagedIndexError(path, f"unexpected content ({type(exc).__name__}: {exc})") from None


def as_collection(manifest: Manifest) -> CollectionManifest:
    """The collection of one a 0.1 index stands for (its counts are the document's)."""
    c = manifest.counts
    return CollectionManifest(
        manifest.doc_id, (DocumentEntry(manifest, IN_PLACE),), manifest.options, manifest.models,
        CollectionCounts(1, c.sentences, c.words, c.nodes, c.entities, c.actions, c.edges, 0),
        manifest.kgcore_version, manifest.created_at, manifest.created_at, generation=0, format=1,
    )


def remove_legacy_files(folder: Path) -> None:
    """Delete a migrated folder's 0.1 files (after the new collection manifest is committed)."""
    for name in LEGACY_FILES:
        (folder / name).unlink(missing_ok=True)
    shutil.rmtree(folder / "chroma-0.1", ignore_errors=True)  # kgcore.index.store.writer.LEGACY_CHROMA
