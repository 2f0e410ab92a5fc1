"""A tiny collection for the fused ranking's unit tests (importable as ``story_index``: ``tests/`` is on
``sys.path`` via its conftest): one paragraph per sentence, no graph, and sentence vectors whose cosine to the
question's vector [1, 0] is given, so that dense relevance is set by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Sentence
from kgcore.index.store.collection import CollectionManifest
from kgcore.index.store.disk import Index
from kgcore.query.align import Alignment, GraphMatch


def story_index(story: list[tuple[str, str | None, float]]) -> Index:
    """(written text, coref-resolved text or None, cosine to the question) per sentence."""
    sentences = [Sentence(f"story/text_0-{i}", 0, i, i, text, text, resolved or text, paragraph=i)
                 for i, (text, resolved, _) in enumerate(story)]
    cosines = np.array([c for _, _, c in story], dtype=np.float32)
    vectors = np.c_[cosines, np.sqrt(1 - cosines**2)].astype(np.float32)
    return Index("story", Path("."), CollectionManifest("story", format=1), sentences, GroundedGraph({}, []), [],
                 np.zeros((0, 2), dtype=np.float32), vectors)


def plain_match(index: Index) -> GraphMatch:
    """The question matched with no graph evidence: its vector [1, 0] and each sentence's cosine."""
    n = len(index.sentences)
    alignment = Alignment(np.zeros((0, 0)), np.zeros((0, n)), np.zeros(n), np.zeros(n))
    return GraphMatch(None, [], alignment, [], [], np.array([1.0, 0.0], dtype=np.float32),  # type: ignore[arg-type]
                      index.sentence_vectors[:, 0].astype(np.float64), None, {}, [])
