"""The shared models: the spaCy pipeline, the sentence embedder and the chat endpoint's configuration.
"""

from __future__ import annotations

from kgcore.core.chat import check_configured
from kgcore.core.embed import embedder_for, get_embedder, query_embedder
from kgcore.core.embed.base import Embedder
from kgcore.core.embed.nodes import SHORT_MAX_TOKENS
from kgcore.core.nlp import load_spacy

__all__ = ["Embedder", "SHORT_MAX_TOKENS", "check_configured", "embedder_for", "get_embedder", "load_spacy",
           "query_embedder"]
