"""Embedding: the Embedder protocol, its backends and the paper's node embeddings (section 3.3).

:mod:`~kgcore.core.embed.base` declares :class:`Embedder` and the helpers
backends share; :mod:`~kgcore.core.embed.onnx` runs the model with ONNX
Runtime (the default when installed), :mod:`~kgcore.core.embed.sbert` with
sentence-transformers on torch (the bundled all-MiniLM-L6-v2 by default,
either way); :mod:`~kgcore.core.embed.nodes` turns graph and query nodes
into vectors (``basic``, ``neighbor``, ``attention``).
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import weakref

from kgcore.core.embed.base import Embedder, model_name
from kgcore.core.embed.cache import CachedEmbedder
from kgcore.core.embed.nodes import (
    contextualize,
    embed_graph_nodes,
    embed_query_nodes,
    embed_texts_of,
    normalize,
)
from kgcore.core.embed.onnx import OnnxEmbedder
from kgcore.core.embed.sbert import SentenceTransformerEmbedder
from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.nlp import MODEL_LOADING
from kgcore.core.once import once
from kgcore.core.settings import EMBEDDING_BACKENDS, Settings

log = logging.getLogger(__name__)

__all__ = [
    "CachedEmbedder", "Embedder", "OnnxEmbedder", "SentenceTransformerEmbedder", "backend_for", "contextualize",
    "embed_graph_nodes", "embed_query_nodes", "embed_texts_of", "embedder_for", "embedder_loads",
    "embedding_model_name", "get_embedder", "node_embedder", "normalize", "query_embedder",
]

embedding_model_name = model_name


def backend_for(backend: str, device: str = "cpu") -> str:
    """The backend ``auto`` stands for here: ``onnx`` on CPU when onnxruntime is installed, else ``torch``.

    >>> backend_for("torch"), backend_for("auto", device="cuda")
    ('torch', 'torch')
    >>> backend_for("tensorflow")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_EMBEDDING_BACKEND: unknown value 'tensorflow' (choose one of auto, onnx, ...
    """
    if backend not in EMBEDDING_BACKENDS:
        raise InputError("KGCORE_EMBEDDING_BACKEND",
                         f"unknown value {backend!r} (choose one of {', '.join(EMBEDDING_BACKENDS)})")
    if backend != "auto":
        return backend
    return "onnx" if device == "cpu" and importlib.util.find_spec("onnxruntime") else "torch"


def get_embedder(model_path: str = "", device: str = "cpu", backend: str = "auto", cache_dir: str = "") -> Embedder:
    """The embedder for ``model_path`` (empty: bundled MiniLM) on ``backend``, loaded once per process, also
    when several threads ask at the same time (they share one load, and one export of the ONNX model).

    ``auto`` falls back to torch, with a warning, when the ONNX export of a model fails; naming ``onnx``
    raises instead.
    """
    return once(_EMBEDDERS, (model_path, device, backend, cache_dir),
                lambda: _load(model_path, device, backend, cache_dir), MODEL_LOADING)


def embedder_loads() -> int:
    """How many embedders this process has loaded."""
    return len(_EMBEDDERS)


def _load(model_path: str, device: str, backend: str, cache_dir: str) -> Embedder:
    chosen = backend_for(backend, device)
    if chosen.startswith("onnx"):
        try:
            return OnnxEmbedder(model_path, cache_dir or None, int8=chosen == "onnx-int8")
        except ModelUnavailableError as exc:
            if backend != "auto":
                raise
            log.warning("onnx embedding backend unavailable, using torch: %s", exc)
    return SentenceTransformerEmbedder(model_path, device=device)


def embedder_for(settings: Settings) -> Embedder:
    """The embedder ``settings`` configure (shared with every other caller asking for the same model)."""
    return get_embedder(settings.embedding_model, settings.device, settings.embedding_backend, settings.model_cache)


def query_embedder(settings: Settings) -> CachedEmbedder:
    """:func:`embedder_for` behind the process's cache of encoded strings: what questions and answers encode with."""
    return _cache_of(_CACHES, embedder_for(settings))


def node_embedder(settings: Settings) -> CachedEmbedder:
    """:func:`embedder_for` behind a cache for indexing's node strings: many small documents share names and
    mentions ("Christine", "said", "the Opera": half of the node strings of 1,000 novel paragraphs repeat another
    paragraph's), and each is encoded once per process instead of once per document.  A call of over
    :data:`NODE_MAX_CALL` strings (a long document's, already distinct) bypasses it.  ONNX Runtime gives a string
    the same vector bit for bit whatever it is batched with, so the index does not depend on the order documents
    came in."""
    return _cache_of(_NODE_CACHES, embedder_for(settings), NODE_MAX_CALL)


def _cache_of(caches: weakref.WeakKeyDictionary[Embedder, CachedEmbedder], inner: Embedder,
              max_call: int | None = None) -> CachedEmbedder:
    """``inner``'s cache in ``caches``: one per loaded model, living exactly as long as the model does."""
    with _CACHES_LOCK:
        cached = caches.get(inner)
        if cached is None:
            cached = caches[inner] = CachedEmbedder(inner, max_call=max_call)
    return cached


#: Most node strings of one document that :func:`node_embedder` looks up in its cache.
NODE_MAX_CALL = 5_000
_CACHES: weakref.WeakKeyDictionary[Embedder, CachedEmbedder] = weakref.WeakKeyDictionary()
_NODE_CACHES: weakref.WeakKeyDictionary[Embedder, CachedEmbedder] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()
_EMBEDDERS: dict[tuple[str, str, str, str], Embedder] = {}
