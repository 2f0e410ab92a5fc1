"""Adding documents to a linked graph without writing it again: append generations.

A full link (:func:`kgcore.index.store.link.link`) merges every document's graph and
writes the whole linked graph, which for 24 papers is a 40 MB file.  Adding one
document need not: only proper-name nodes can be shared by two documents
(actions and common nouns are scoped to theirs, :func:`kgcore.core.graph.scoped_id`),
so the new linked graph is the previous one with the new document's graph
merged on top, and only the proper-name nodes it touches change.

An *append* generation ``linked-<n>/`` therefore holds

* ``graph.json``, ``node_ids.json``, ``node_vectors.npy``: the *base*, hard links
  to the previous generation's files (copies where the file system has none);
* ``layers.json``: the documents appended since the base, in collection order,
  and the ids of the nodes whose vectors changed; ``overrides.npy`` their vectors;
* ``proper.json``: the proper-name part of the whole linked graph and which of its
  nodes are shared, the only thing the next commit reads of this generation.

Reading (:func:`apply_layers`) merges the appended documents' shard graphs onto
the base and gives exactly what a full link writes: the same nodes in the same
order, the same edges and the same vectors (for the ``basic`` embedding; the
contextual variants mix every node with its neighbours, so they always link in
full, as do removals, re-indexing and more than :data:`MAX_LAYERS` layers).

>>> proper_id("friday"), proper_id("crusoe/goat")
(True, False)
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.errors import DamagedIndexError, KgcoreError
from kgcore.core.graph import GroundedGraph, merge_into
from kgcore.core.types import Node
from kgcore.index.store import shard
from kgcore.index.store.collection import FORMAT, CollectionManifest, DocumentEntry
from kgcore.index.store.in_memory import DOCUMENTS_DIR
from kgcore.index.store.integrity import Digest, digest_of, npy_bytes, parse_json, parse_npy, read_verified
from kgcore.index.store.link import shared_key, shared_vectors
from kgcore.index.store.recovery import linked_folder

__all__ = ["BASE_FILES", "LAYERS", "MAX_LAYERS", "OVERRIDES", "PROPER", "Appended", "Layers", "ProperPart", "append",
           "apply_layers", "proper_id", "proper_part", "read_layers", "read_proper", "vector_map", "vectors_for"]

LAYERS = "layers.json"
OVERRIDES = "overrides.npy"
PROPER = "proper.json"
BASE_FILES = ("graph.json", "node_ids.json", "node_vectors.npy")
#: Appended documents after which a commit links in full again (reading merges each layer's shard graph).
MAX_LAYERS = 8
#: Appended sentences, as a share of the base's, after which a commit links in full again.
MAX_LAYER_SHARE = 0.5


def proper_id(node_id: str) -> bool:
    """Whether a node id is a proper name's, the only ids two documents can share (see the module docstring)."""
    return "/" not in node_id


@dataclass(frozen=True)
class Layers:
    """What an append generation adds to its base (``layers.json``)."""

    #: Documents whose shard graphs are merged onto the base, in collection order.
    appended: tuple[str, ...] = ()
    #: Nodes whose vectors ``overrides.npy`` holds (row order), shared nodes the appended documents touched.
    override_ids: tuple[str, ...] = ()

    def to_json(self) -> bytes:
        return json.dumps({"appended": list(self.appended), "override_ids": list(self.override_ids)},
                          ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class ProperPart:
    """The proper-name nodes of a linked graph, the edges between them, and which are shared (``proper.json``)."""

    graph: GroundedGraph
    shared: frozenset[str]

    def to_json(self) -> bytes:
        data = {"graph": self.graph.to_node_link(), "shared": sorted(self.shared)}
        return json.dumps(data, ensure_ascii=False).encode("utf-8")


def proper_part(graph: GroundedGraph, shared: Sequence[str]) -> ProperPart:
    """The :class:`ProperPart` of a linked graph whose shared nodes are ``shared``.

    >>> from kgcore.core.types import Edge, Node
    >>> g = GroundedGraph({"peter": Node("peter", "Peter", ["Peter"], "entity", ["a/text_0-0"]),
    ...                    "a/eat_0": Node("a/eat_0", "eat", ["ate"], "action", ["a/text_0-0"])},
    ...                   [Edge("a/eat_0", "peter", "ARG0", "role", ["a/text_0-0"])])
    >>> part = proper_part(g, ["peter"])
    >>> list(part.graph.nodes), part.graph.edges, sorted(part.shared)
    (['peter'], [], ['peter'])
    """
    nodes = {i: n for i, n in graph.nodes.items() if proper_id(i)}
    edges = [e for e in graph.edges if e.source in nodes and e.target in nodes]
    return ProperPart(GroundedGraph(nodes, edges), frozenset(shared))


def read_proper(folder: Path, files: Mapping[str, Digest]) -> ProperPart | None:
    """The previous generation's :class:`ProperPart`; None when it has none (written before append
    generations) or it is damaged (the commit then links in full)."""
    if PROPER not in files:
        return None
    try:
        data = parse_json(folder / PROPER, read_verified(folder / PROPER, files[PROPER]))
        return ProperPart(GroundedGraph.from_node_link(data["graph"]), frozenset(data["shared"]))
    except (DamagedIndexError, KeyError, TypeError, ValueError):
        return None


def read_layers(folder: Path, files: Mapping[str, Digest]) -> tuple[Layers, np.ndarray]:
    """The generation's :class:`Layers` and override vectors (no layers: empty)."""
    if LAYERS not in files:
        return Layers(), np.zeros((0, 0), dtype=np.float32)
    data = parse_json(folder / LAYERS, read_verified(folder / LAYERS, files[LAYERS]))
    try:
        layers = Layers(tuple(map(str, data["appended"])), tuple(map(str, data["override_ids"])))
    except (KeyError, TypeError) as exc:
        raise DamagedIndexError(folder / LAYERS, f"unexpected content ({type(exc).__name__}: {exc})") from None
    vectors = parse_npy(folder / OVERRIDES, read_verified(folder / OVERRIDES, files.get(OVERRIDES)))
    shard.agree(folder / OVERRIDES, len(vectors), len(layers.override_ids), "override vectors")
    return layers, vectors


def apply_layers(path: Path, manifest: CollectionManifest, graph: GroundedGraph, node_ids: list[str],
                 vectors: np.ndarray) -> tuple[GroundedGraph, list[str], np.ndarray]:
    """The linked graph, node ids and vectors of the generation ``manifest`` names, from its base (see the
    module docstring); a generation without layers is returned as it is."""
    folder = path / linked_folder(manifest.generation)
    layers, overrides = read_layers(folder, manifest.linked_files)
    if not layers.appended:
        return graph, node_ids, vectors
    edge_index = {(e.source, e.target, e.edge_role): e for e in graph.edges}
    extra: dict[str, np.ndarray] = {}
    for entry in _appended_entries(folder, manifest, layers):
        shard_folder = path / DOCUMENTS_DIR / entry.folder
        added = merge_into(graph, shard.read_graph(shard_folder, entry.files), edge_index)
        ids, base = shard.read_base_vectors(shard_folder, entry.files)
        row = {node_id: i for i, node_id in enumerate(ids)}
        missing = [i for i in added if i not in row]
        if missing:
            raise DamagedIndexError(shard_folder / "node_ids.json", f"lacks node {missing[0]!r} of its graph")
        extra.update((i, base[row[i]]) for i in added)
    new_ids = [i for i in graph.nodes if i in extra]
    out = np.concatenate([vectors, np.stack([extra[i] for i in new_ids])]) if new_ids else vectors.copy()
    all_ids = node_ids + new_ids
    rows = {node_id: i for i, node_id in enumerate(all_ids)}
    for node_id, vector in zip(layers.override_ids, overrides):
        out[rows[node_id]] = vector
    return graph, all_ids, out


def vector_map(path: Path, manifest: CollectionManifest) -> dict[str, np.ndarray]:
    """Node id -> vector of the generation ``manifest`` names, as :func:`apply_layers` gives them, without reading
    or merging any graph (what a Chroma copy is compared with)."""
    folder, files = path / linked_folder(manifest.generation), manifest.linked_files
    node_ids, vectors = _linked_vectors(folder, files, shard.read_array)
    out = dict(zip(node_ids, vectors))
    for node_id, vector, replaces in _layer_vectors(path, manifest):
        if replaces:
            out[node_id] = vector
        else:
            out.setdefault(node_id, vector)
    return out


def vectors_for(path: Path, manifest: CollectionManifest, node_ids: Sequence[str]) -> np.ndarray:
    """The vectors of ``node_ids`` (distinct), one row each in that order, as :func:`vector_map` gives them: what
    a shard of a sharded engine takes of a large collection.  The linked node-vector file is mapped and only these
    rows are copied, a block at a time; no per-document vector file of the base is read.  A node the generation
    lacks is a :class:`DamagedIndexError`."""
    folder, files = path / linked_folder(manifest.generation), manifest.linked_files
    all_ids, mapped = _linked_vectors(folder, files, shard.map_array)
    at = {node_id: i for i, node_id in enumerate(node_ids)}
    if len(at) != len(node_ids):
        raise ValueError("vectors_for: node ids must be distinct")
    pairs = np.array([(j, at[n]) for j, n in enumerate(all_ids) if n in at], dtype=np.int64).reshape(-1, 2)
    out = np.zeros((len(node_ids), mapped.shape[1]), dtype=mapped.dtype)
    for block in range(0, len(pairs), 8192):  # a bounded copy out of the map, not one of every wanted row
        out[pairs[block:block + 8192, 1]] = mapped[pairs[block:block + 8192, 0]]
    filled = np.zeros(len(node_ids), dtype=bool)
    filled[pairs[:, 1]] = True
    for node_id, vector, replaces in _layer_vectors(path, manifest):
        i = at.get(node_id)
        if i is not None and (replaces or not filled[i]):
            out[i], filled[i] = vector, True
    if not filled.all():
        missing = node_ids[int(np.flatnonzero(~filled)[0])]
        raise DamagedIndexError(folder / "node_ids.json", f"has no vector for node {missing!r} of a document's graph")
    return out


def _layer_vectors(path: Path, manifest: CollectionManifest) -> Iterator[tuple[str, np.ndarray, bool]]:
    """What the layers of the generation ``manifest`` names add to its base's node vectors, as (node id, vector,
    whether it replaces one already there): each appended document's own vectors (a node first grounded there
    keeps the first it is given), then the overrides (a node the layers changed)."""
    folder = path / linked_folder(manifest.generation)
    layers, overrides = read_layers(folder, manifest.linked_files)
    for entry in _appended_entries(folder, manifest, layers):
        ids, base = shard.read_base_vectors(path / DOCUMENTS_DIR / entry.folder, entry.files)
        yield from ((node_id, vector, False) for node_id, vector in zip(ids, base))
    yield from ((node_id, vector, True) for node_id, vector in zip(layers.override_ids, overrides))


def _linked_vectors(folder: Path, files: Mapping[str, Digest], read) -> tuple[list[str], np.ndarray]:
    """The base generation's node ids and node vectors (``read``: :func:`~kgcore.index.store.shard.read_array`
    or its mapped form), checked to agree."""
    node_ids = parse_json(folder / "node_ids.json", read_verified(folder / "node_ids.json", files.get("node_ids.json")))
    vectors = read(folder, "node_vectors.npy", files)
    shard.agree(folder / "node_vectors.npy", len(vectors), len(node_ids), "vectors")
    return node_ids, vectors


def _appended_entries(folder: Path, manifest: CollectionManifest, layers: Layers) -> list[DocumentEntry]:
    """The entries of the documents ``layers`` appends, in order; one the collection lacks is damage."""
    entries = {d.doc_id: d for d in manifest.documents}
    missing = [d for d in layers.appended if d not in entries]
    if missing:
        raise DamagedIndexError(folder / LAYERS, f"names document {missing[0]!r}, which the collection lacks")
    return [entries[d] for d in layers.appended]


def write_base(source: Path, target: Path) -> None:
    """The previous generation's base files in ``target``: hard links, or copies where links fail."""
    for name in BASE_FILES:
        try:
            os.link(source / name, target / name)
        except OSError:
            shutil.copyfile(source / name, target / name)


@dataclass(frozen=True)
class Appended:
    """What :func:`append` wrote: the new generation's file digests and the linked graph's new sizes."""

    files: dict[str, Digest]
    nodes: int
    entities: int
    actions: int
    edges: int
    shared: int
    #: The shared nodes' basic vectors by key, for the next commit to reuse (``shared_vectors.npz``).
    shared_vectors: dict[str, np.ndarray]
    #: How many shared nodes were embedded (the rest were reused).
    embedded: int
    #: The nodes new to the linked graph or whose vector changed: (label, node type) and vector by id, what a
    #: Chroma copy kept in step at every commit must upsert.
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    changed_vectors: dict[str, np.ndarray] = field(default_factory=dict)


def append(path: Path, previous: CollectionManifest, documents: Sequence[DocumentEntry], embedder: Embedder,
           known: Mapping[str, np.ndarray], target: Path) -> Appended | None:
    """Write generation ``target`` as ``previous`` with the documents after its own appended (see the module
    docstring); None, writing nothing, when a full link is needed instead.  The appended documents' graphs are
    checked against their sentences (:class:`KgcoreError` when one breaks the grounding invariant)."""
    source = path / linked_folder(previous.generation)
    if not _extends(previous, documents) or (part := read_proper(source, previous.linked_files)) is None:
        return None
    try:
        layers, overrides = read_layers(source, previous.linked_files)
    except DamagedIndexError:
        return None
    new = documents[len(previous.documents):]
    appended = layers.appended + tuple(d.doc_id for d in new)
    if not _few_enough(documents, appended):
        return None
    grown = _grow(path, part, new, previous)
    vectors, embedded = shared_vectors(grown.part.graph, sorted(grown.touched), embedder,
                                       previous.options.alpha, known)
    changed = dict(zip(layers.override_ids, overrides))
    for node_id in grown.touched:
        node = grown.part.graph.nodes[node_id]
        changed[node_id] = vectors[shared_key(node.label, node.texts)]
    contents = {LAYERS: Layers(appended, tuple(changed)).to_json(),
                OVERRIDES: npy_bytes(_matrix(list(changed.values()), embedder.dim)),
                PROPER: grown.part.to_json()}
    target.mkdir(parents=True)
    write_base(source, target)
    for name, data in contents.items():
        (target / name).write_bytes(data)
    files = {**{n: previous.linked_files[n] for n in BASE_FILES}, **{n: digest_of(d) for n, d in contents.items()}}
    nodes, entities, actions, edges = grown.sizes
    moved = {**grown.fresh_vectors, **{i: changed[i] for i in grown.touched}}
    labels = {i: (n.label, str(n.node_type)) for i, n in {**grown.fresh, **grown.part.graph.nodes}.items()
              if i in moved}
    return Appended(files, nodes, entities, actions, edges, len(grown.part.shared), {**known, **vectors}, embedded,
                    labels, moved)


@dataclass
class _Grown:
    part: ProperPart
    touched: set[str]
    sizes: list[int]  # nodes, entities, actions, edges
    #: The nodes the new documents add to the linked graph, and their basic vectors.
    fresh: dict[str, Node] = field(default_factory=dict)
    fresh_vectors: dict[str, np.ndarray] = field(default_factory=dict)


def _grow(path: Path, part: ProperPart, new: Sequence[DocumentEntry], previous: CollectionManifest) -> _Grown:
    """Merge the new documents' proper-name parts into ``part``, counting what they add to the linked graph."""
    c = previous.counts
    sizes = [c.nodes, c.entities, c.actions, c.edges]
    graph, touched = part.graph, set[str]()
    edge_index = {(e.source, e.target, e.edge_role): e for e in graph.edges}
    grown = _Grown(part, touched, sizes)
    for entry in new:
        folder = path / DOCUMENTS_DIR / entry.folder
        g = shard.read_graph(folder, entry.files)
        problems = g.invariant_problems(s.id for s in shard.read_sentences(folder, entry.files))
        if problems:
            raise KgcoreError(f"internal error: document {entry.doc_id!r} would break the grounding invariant: "
                              f"{problems[:3]}")
        fresh = [n for i, n in g.nodes.items() if i not in graph.nodes]
        touched.update(i for i in g.nodes if i in graph.nodes)
        ids, base = shard.read_base_vectors(folder, entry.files)
        row = {node_id: r for r, node_id in enumerate(ids)}
        grown.fresh.update((n.node_id, n) for n in fresh)
        grown.fresh_vectors.update((n.node_id, base[row[n.node_id]]) for n in fresh if n.node_id in row)
        sizes[0] += len(fresh)
        sizes[1] += sum(n.node_type == "entity" for n in fresh)
        sizes[2] += sum(n.node_type == "action" for n in fresh)
        sizes[3] += len({(e.source, e.target, e.edge_role) for e in g.edges
                         if not (proper_id(e.source) and proper_id(e.target))})
        before = len(graph.edges)
        merge_into(graph, proper_part(g, ()).graph, edge_index)
        sizes[3] += len(graph.edges) - before
    grown.part = ProperPart(graph, part.shared | touched)
    return grown


def _extends(previous: CollectionManifest, documents: Sequence[DocumentEntry]) -> bool:
    """Whether ``documents`` are ``previous``'s, unchanged, with more after them, embedded ``basic``."""
    before = previous.documents
    return (previous.format == FORMAT and previous.options.embedding == "basic"
            and len(documents) > len(before) and tuple(documents[:len(before)]) == before)


def _few_enough(documents: Sequence[DocumentEntry], appended: Sequence[str]) -> bool:
    """At most :data:`MAX_LAYERS` layers, holding at most :data:`MAX_LAYER_SHARE` of the base's sentences."""
    layered = set(appended)
    base = sum(d.manifest.counts.sentences for d in documents if d.doc_id not in layered)
    added = sum(d.manifest.counts.sentences for d in documents if d.doc_id in layered)
    return len(appended) <= MAX_LAYERS and added <= MAX_LAYER_SHARE * base


def _matrix(rows: Sequence[np.ndarray], dim: int) -> np.ndarray:
    return np.asarray(np.stack(rows) if rows else np.zeros((0, dim)), dtype=np.float32)
