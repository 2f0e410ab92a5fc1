"""Indexing pipeline: the stages in order, with timings and progress.

    load -> coref -> parse -> graph -> embed -> store

``progress(stage, done, total)`` is called as stages advance, so the CLI
can draw a bar and the app a progress widget.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from . import __version__
from .coref import get_resolver
from .backends.embed_st import embedding_model_name
from .embed import embed_graph_nodes, embedder_for
from .errors import KgcoreError
from .graph import build_graph
from .ingest import load_document, split_sentences
from .narrator import narrator_for, resolve_narrator
from .nlp import load_spacy
from .parsing import get_parser
from .settings import IndexOptions, Settings
from .store import Store, manifest_hash
from .types import Document

STAGES = ("load", "coref", "parse", "graph", "embed", "store")
StageProgress = Callable[[str, int, int], None]


@dataclass
class _Timer:
    progress: StageProgress | None
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str):
        self.report(name, 0, 1)
        start = time.perf_counter()
        yield
        self.seconds[name] = round(time.perf_counter() - start, 3)
        self.report(name, 1, 1)

    def report(self, stage: str, done: int, total: int) -> None:
        if self.progress:
            self.progress(stage, done, total)


def index_file(
    path: str | Path,
    store: Store,
    options: IndexOptions = IndexOptions(),
    settings: Settings | None = None,
    name: str | None = None,
    force: bool = False,
    progress: StageProgress | None = None,
) -> dict:
    """Index the file at ``path`` into ``store``; returns the manifest.

    If the document is already indexed from the same bytes with the same
    options and embedding model, nothing is rebuilt and the existing
    manifest is returned with ``"reused": True`` (unless ``force``).
    """
    settings = settings or Settings.from_env()
    timer = _Timer(progress)
    with timer.stage("load"):
        document = load_document(path, settings, name=name)
    return index_document(document, store, options, settings, force, timer)


def index_document(
    document: Document,
    store: Store,
    options: IndexOptions = IndexOptions(),
    settings: Settings | None = None,
    force: bool = False,
    timer: _Timer | StageProgress | None = None,
    parser=None,
) -> dict:
    """Index an already loaded :class:`Document` (see :func:`index_file`).

    ``parser`` overrides the backend named by ``options.parser`` (for
    instance a :class:`kgcore.amr.PenmanParser` over pre-parsed graphs); its
    ``name`` must equal ``options.parser`` so the manifest stays truthful.
    """
    settings = settings or Settings.from_env()
    if not isinstance(timer, _Timer):
        timer = _Timer(timer)
    reused = None if force else _reusable_manifest(store, document, options, settings)
    if reused:
        return {**reused, "reused": True}
    started = time.perf_counter() - sum(timer.seconds.values())
    with timer.stage("load"):
        sentences = split_sentences(document, load_spacy(settings.spacy_model), settings.chunk_tokens)
    if not sentences:
        raise KgcoreError(f"{document.name}: no sentences found after cleaning")
    with timer.stage("coref"):
        sentences = get_resolver(options.coref, settings).resolve(sentences)
        sentences, narrator = _resolve_narrator(sentences, options)
    with timer.stage("parse"):
        parser = parser or get_parser(options.parser, settings)
        if parser.name != options.parser:
            raise KgcoreError(f"parser {parser.name!r} given for an index declared as {options.parser!r}")
        sentence_graphs = parser.parse(sentences, progress=lambda d, t: timer.report("parse", d, t))
    with timer.stage("graph"):
        graph = build_graph(sentence_graphs)
        problems = graph.invariant_problems(s.id for s in sentences)
        if problems:
            raise KgcoreError(f"internal error: graph grounding invariant violated: {problems[:3]}")
    with timer.stage("embed"):
        embedder = embedder_for(settings)
        node_ids, node_vectors = embed_graph_nodes(graph, embedder, options.embedding, options.alpha, options.beta)
        sentence_vectors = embedder.encode([s.normalized for s in sentences])
    manifest = _manifest(document, options, settings, embedder, sentences, graph)
    manifest["narrator"] = narrator.to_dict() if narrator else None
    with timer.stage("store"):
        analyses = ((sg.sentence_id, sg.analysis) for sg in sentence_graphs)
        manifest["timings_s"] = dict(timer.seconds)
        manifest["seconds"] = round(time.perf_counter() - started, 3)
        store.write(document.name, manifest, sentences, graph, node_ids, node_vectors, sentence_vectors, analyses)
    return {**manifest, "reused": False, "manifest_hash": manifest_hash(manifest)}


def _resolve_narrator(sentences, options: IndexOptions):
    """The narrator pass of the coref stage; ``auto`` only runs together with a coreference backend."""
    if options.narrator == "auto" and options.coref == "none":
        return sentences, None
    narrator = narrator_for(sentences, options.narrator)
    if narrator is None:
        return sentences, None
    return resolve_narrator(sentences, narrator)


def model_fingerprint(settings: Settings, embedder_name: str | None = None) -> dict:
    """What the index depends on besides its options (checked on reuse and at query time)."""
    return {
        "spacy": settings.spacy_model,
        "embedding": embedder_name or embedding_model_name(settings.embedding_model),
    }


def _reusable_manifest(store: Store, document: Document, options: IndexOptions, settings: Settings) -> dict | None:
    if not store.exists(document.name):
        return None
    manifest = store.manifest(document.name)
    same = (
        manifest.get("source_sha256") == document.source_sha256
        and manifest.get("options") == options.to_dict()
        and manifest.get("models", {}).get("embedding") == model_fingerprint(settings)["embedding"]
    )
    return manifest if same and document.source_sha256 else None


def _manifest(document, options, settings, embedder, sentences, graph) -> dict:
    node_types = [n.node_type for n in graph.nodes.values()]
    return {
        "kgcore_version": __version__,
        "doc_id": document.name,
        "source_file": Path(document.source_path).name if document.source_path else document.name,
        "source_sha256": document.source_sha256,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "options": options.to_dict(),
        "models": {**model_fingerprint(settings, embedder.name), "embedding_dim": embedder.dim},
        "counts": {
            "sentences": len(sentences),
            "chunks": len({s.chunk for s in sentences}),
            "words": sum(len(s.original.split()) for s in sentences),
            "nodes": len(graph.nodes),
            "entities": node_types.count("entity"),
            "actions": node_types.count("action"),
            "edges": len(graph.edges),
        },
    }
