"""Embedding: the Embedder protocol, its backend and the paper's node embeddings (section 3.3).

:mod:`~kgcore.index.embed.base` declares :class:`Embedder`;
:mod:`~kgcore.index.embed.sbert` is the sentence-transformers backend (the
bundled all-MiniLM-L6-v2 by default); :mod:`~kgcore.index.embed.nodes`
turns graph and query nodes into vectors (``basic``, ``neighbor``,
``attention``).
"""

from __future__ import annotations

import functools

from kgcore.core.settings import Settings
from kgcore.index.embed.base import Embedder
from kgcore.index.embed.nodes import (
    contextualize,
    embed_graph_nodes,
    embed_query_nodes,
    embed_texts_of,
    normalize,
)
from kgcore.index.embed.sbert import SentenceTransformerEmbedder, embedding_model_name

__all__ = [
    "Embedder", "SentenceTransformerEmbedder", "contextualize", "embed_graph_nodes", "embed_query_nodes",
    "embed_texts_of", "embedder_for", "embedding_model_name", "get_embedder", "normalize",
]


@functools.lru_cache(maxsize=4)
def get_embedder(model_path: str = "", device: str = "cpu") -> SentenceTransformerEmbedder:
    """The sentence-transformers embedder for ``model_path`` (empty: bundled MiniLM), loaded once per process."""
    return SentenceTransformerEmbedder(model_path, device=device)


def embedder_for(settings: Settings) -> Embedder:
    """The embedder ``settings`` configure (shared with every other caller asking for the same model)."""
    return get_embedder(settings.embedding_model, settings.device)
