"""Node embeddings (paper section 3.3) from any :class:`~kgcore.core.embed.base.Embedder`.

Three variants, every vector L2-normalised after each step as the paper does:

* ``basic``:      Embed(v) = α·f(name) + (1-α)·mean_i f(text_i)
* ``neighbor``:   β·Embed(v) + (1-β)·mean_j Embed(v_j)
* ``attention``:  β·Embed(v) + (1-β)·Σ_j softmax_j(Embed(v)·Embed(v_j))·Embed(v_j)

All distinct strings of all nodes are encoded in one batched call; nodes
never trigger one model call each.

>>> import numpy as np
>>> class Toy:  # a 2-d fake embedder for the example
...     name, dim = "toy", 2
...     def encode(self, texts, max_tokens=None):
...         return np.array([[1.0, 0.0] if "tea" in t else [0.0, 1.0] for t in texts], dtype=np.float32)
>>> vecs = embed_texts_of([("tea", ["tea", "camomile tea"]), ("give", ["gave"])], Toy(), alpha=0.5)
>>> np.round(vecs, 3).tolist()
[[1.0, 0.0], [0.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from kgcore.core.embed.base import Embedder
from kgcore.core.errors import InputError
from kgcore.core.settings import EMBEDDING_VARIANTS

#: Cap on the texts averaged per node: a hero entity can collect hundreds of
#: surface forms and its vector must not be dominated by rare ones.
MAX_TEXTS_PER_NODE = 24


#: Node labels and mentions are short: truncating them at this many tokens bounds the cost of
#: the rare run-on mention without changing the vector of any ordinary one.
SHORT_MAX_TOKENS = 64


def normalize(matrix: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalisation (zero rows stay zero).

    >>> normalize(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _node_texts(label: str, texts: Iterable[str]) -> list[str]:
    unique = list(dict.fromkeys(t for t in texts if t and t.strip()))
    return unique[:MAX_TEXTS_PER_NODE] or [label]


def embed_texts_of(items: Sequence[tuple[str, Sequence[str]]], embedder: Embedder, alpha: float = 0.5) -> np.ndarray:
    """Basic node embeddings for (label, texts) pairs, encoded in one batch."""
    per_node = [(label or "", _node_texts(label, texts)) for label, texts in items]
    vocabulary = list(dict.fromkeys(s for label, texts in per_node for s in [label, *texts]))
    if not vocabulary:
        return np.zeros((len(items), embedder.dim), dtype=np.float32)
    row = {s: i for i, s in enumerate(vocabulary)}
    encoded = embedder.encode(vocabulary, max_tokens=SHORT_MAX_TOKENS)
    out = np.empty((len(per_node), encoded.shape[1]), dtype=np.float32)
    for i, (label, texts) in enumerate(per_node):
        mean_text = normalize(encoded[[row[t] for t in texts]].mean(axis=0, keepdims=True))[0]
        out[i] = alpha * encoded[row[label]] + (1 - alpha) * mean_text
    return normalize(out)


def contextualize(
    base: np.ndarray,
    neighbors_of: Callable[[int], Sequence[int]],
    variant: str,
    beta: float = 0.8,
) -> np.ndarray:
    """Mix each row of ``base`` with its graph neighbours' rows (``neighbor``/``attention``).

    >>> base = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> np.round(contextualize(base, lambda i: [1 - i], "neighbor", beta=0.5).astype(float), 3).tolist()
    [[0.707, 0.707], [0.707, 0.707]]
    """
    if variant not in EMBEDDING_VARIANTS:
        raise InputError("embedding", f"unknown variant {variant!r} (choose one of {', '.join(EMBEDDING_VARIANTS)})")
    if variant == "basic":
        return base
    out = base.copy()
    for i in range(base.shape[0]):
        idx = list(neighbors_of(i))
        if not idx:
            continue
        neigh = base[idx]
        if variant == "neighbor":
            context = neigh.mean(axis=0)
        else:
            logits = neigh @ base[i]
            weights = np.exp(logits - logits.max())
            context = (weights / weights.sum()) @ neigh
        context = context / (np.linalg.norm(context) or 1.0)
        out[i] = beta * base[i] + (1 - beta) * context
    return normalize(out)


def embed_graph_nodes(graph, embedder: Embedder, variant: str = "basic", alpha: float = 0.5, beta: float = 0.8):
    """(node_ids, matrix) for every node of a :class:`~kgcore.core.graph.GroundedGraph`."""
    ids = list(graph.nodes)
    base = embed_texts_of([(graph.nodes[i].label, graph.nodes[i].texts) for i in ids], embedder, alpha)
    position = {node_id: k for k, node_id in enumerate(ids)}
    vectors = contextualize(base, lambda k: [position[n] for n in graph.neighbors(ids[k])], variant, beta)
    return ids, vectors


#: A query node's texts longer than this many words are left out of its vector; 0 leaves out every text, so a query
#: node's vector is its label's (``math.inf`` keeps every text, as the graph's own nodes are embedded). The texts are an
#: action's words as written ("Could provide", "happened to the young rabbits' father") and the mentions of an entity
#: ("the ADGM"); they repeat the question, whose own vector is the dense signal.  Chosen on the dev sets (fused ranking,
#: mean answer-token or passage recall over peter, crusoe, phantom, qasper and obliqa dev at 200 / 500 / 1,000 / 2,000
#: words).  With the sentence fixes not yet made: every text 0.7643, 8 words 0.7635, 5 words 0.7647, 4 words 0.7647, 3
#: words 0.7638.  After them: 5 words 0.7626, 2 words 0.7636, 1 word 0.7619, none 0.7626 -- flat -- while the strings
#: encoded per ObliQA question fall from 19.4 to 10.6 and their encoding from 31.7 to 16.8 ms (p50 over 150 questions).
#: The per-set cells move both ways (Phantom +0.042 at 200 words, Crusoe +0.031 at 500, QASPER -0.040 at 500, ObliQA
#: -0.002 to -0.004): the texts carry no signal the label and the question's vector lack.
QUERY_TEXT_WORDS: float = 0


def query_texts(texts: Sequence[str], limit: float | None = None) -> list[str]:
    """The texts of a query node its vector reads besides its label: those of at most ``limit`` (default
    :data:`QUERY_TEXT_WORDS`) words, or the shortest when every one is longer; none when ``limit`` is 0.

    >>> query_texts(["happened", "happened to the young rabbits' father"], limit=5)
    ['happened']
    >>> query_texts(["went through the wood to the baker's"], limit=3)
    ["went through the wood to the baker's"]
    >>> query_texts(["a b c d e f g"], limit=float("inf"))
    ['a b c d e f g']
    >>> query_texts(["the ADGM", "adgm"])
    []
    """
    limit = QUERY_TEXT_WORDS if limit is None else limit
    if limit <= 0:
        return []
    kept = [t for t in texts if len(t.split()) <= limit]
    return kept or sorted(texts, key=lambda t: len(t.split()))[:1]


def embed_query_nodes(query_graph, embedder: Embedder, variant: str = "basic", alpha: float = 0.5, beta: float = 0.8):
    """(node keys, matrix) for the nodes of a query :class:`~kgcore.core.types.SentenceGraph`: as the graph's
    nodes, from each node's label and the texts :func:`query_texts` keeps (by default none: the label alone)."""
    keys = [n.key for n in query_graph.nodes]
    base = embed_texts_of([(n.label, query_texts(n.texts)) for n in query_graph.nodes], embedder, alpha)
    position = {k: i for i, k in enumerate(keys)}
    adjacency: dict[int, set[int]] = {i: set() for i in range(len(keys))}
    for e in query_graph.edges:
        if e.source in position and e.target in position:
            adjacency[position[e.source]].add(position[e.target])
            adjacency[position[e.target]].add(position[e.source])
    return keys, contextualize(base, lambda i: sorted(adjacency[i]), variant, beta)
