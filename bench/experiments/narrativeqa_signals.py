"""New signals tried on people's questions (bench/experiments/narrativeqa_ablations.py runs them): chunks embedded
from their own text, messages gated by dense relevance too, Rocchio feedback on the dense signal.  None helped
on the NarrativeQA design books (docs/evaluation.md, the ablation table); nor did taking the fused order
round-robin over passages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from protocol import setting

from kgcore.index.store.in_memory import Index
from kgcore.index.views.contextual import context_graph
from kgcore.query import fused
from kgcore.query import propagation as lesegr
from kgcore.query.align import GraphMatch

#: How an ablation changes a question's whole match (vector and cosines) before the ranking reads it; each takes
#: the question's case (its ``index`` and ``match``).
MATCH_TRANSFORMS: list[Callable[[Any], GraphMatch]] = []


@contextmanager
def dense_gates() -> Iterator[None]:
    """Messages gated by the larger of the sender's BM25 (divided by the best) and its dense relevance (rank-scaled),
    not by BM25 alone: a paragraph that means what the question asks in other words passes its relevance on."""
    original = lesegr.signals

    def patched(*args, **kwargs) -> lesegr.Signals:
        sig = original(*args, **kwargs)
        gates = sig.gates if sig.gates is not None else sig.sparse
        return replace(sig, gates=np.maximum(gates, sig.dense))

    with setting(lesegr, "signals", patched):
        yield


CHUNK_CACHE = Path("/tmp/kgcore-chunk-vectors")


def embedded_chunks(index: Index, cg) -> np.ndarray:
    """Every chunk's text embedded by the collection's embedder (cached on disk under /tmp by book and chunk count)."""
    from kgcore.core.embed import embedder_for
    from kgcore.core.settings import Settings

    path = CHUNK_CACHE / f"{index.manifest.name}-{len(cg.chunk_spans)}.npy"
    if path.exists():
        return np.load(path)
    texts = [" ".join(s.original for s in index.sentences[lo:hi]) for lo, hi in cg.chunk_spans]
    vectors = np.asarray(embedder_for(Settings.from_env()).encode(texts), dtype=np.float32)
    CHUNK_CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


@contextmanager
def chunks_embedded(how: str = "text") -> Iterator[None]:
    """The chunks' dense relevance from their embedded text (``text``) or the better of it and the mean of their
    sentences' vectors (``max``), instead of the mean alone; and, with ``spread``, each sentence's dense signal the
    better of its own and its chunk's."""
    original = lesegr.signals

    def patched(index, cg, question, vector, *args, **kwargs) -> lesegr.Signals:
        sig = original(index, cg, question, vector, *args, **kwargs)
        n = cg.n_sentences
        cos = embedded_chunks(index, cg) @ vector
        if how != "text":
            cos = np.maximum(cos, cg.chunk_vectors @ vector)
        chunk = lesegr.rank_scaled(cos, sig.scope[n:])
        dense = np.r_[sig.dense[:n], chunk]
        if how == "spread":
            dense[:n] = np.maximum(dense[:n], 0.5 * chunk[cg.chunk_of[:n]])
        return replace(sig, dense=dense)

    with setting(lesegr, "signals", patched):
        yield


@contextmanager
def dense_feedback(k: int, beta: float) -> Iterator[None]:
    """Rocchio pseudo-relevance feedback on the dense signal: the question's vector moved toward the mean of its
    ``k`` most similar sentences (weight ``beta``), re-normalised, and every sentence's and chunk's cosine read
    from it."""
    def transform(case: Any) -> GraphMatch:
        match = case.match
        vectors = np.asarray(case.index.sentence_vectors, dtype=np.float32)
        sims = np.where(match.scope, match.sims, -np.inf) if match.scope is not None else match.sims
        top = np.argsort(-sims)[:k]
        moved = match.vector + beta * vectors[top].mean(axis=0)
        moved = (moved / np.linalg.norm(moved)).astype(np.float32)
        return replace(match, vector=moved, sims=vectors @ moved)

    MATCH_TRANSFORMS.append(transform)
    try:
        yield
    finally:
        MATCH_TRANSFORMS.pop()


@contextmanager
def passages_first(per_passage: int) -> Iterator[None]:
    """The fused order taken round-robin over passages (contextual-graph chunks): every passage's best
    ``per_passage`` sentences first, in the fused order, then each passage's next ``per_passage``, and so on.  At
    200 words the fused ranking spends its budget on 8 passages, half its sentences next to another selected one
    (propagation lifts a relevant sentence's neighbours), where text retrieval reads 16-19 passages."""
    original = fused._deduped

    def patched(index: Index, order: np.ndarray) -> np.ndarray:
        order = original(index, order)
        chunk = context_graph(index).chunk_of[order]
        by_chunk = np.argsort(chunk, kind="stable")  # each chunk's rows together, in the fused order
        starts = np.r_[0, np.flatnonzero(np.diff(chunk[by_chunk])) + 1]
        place = np.empty(len(order), dtype=np.int64)
        place[by_chunk] = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        return order[np.argsort(place // per_passage, kind="stable")]

    with setting(fused, "_deduped", patched):
        yield
