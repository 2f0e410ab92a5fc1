"""Node embedding variants (paper 3.3) with the real MiniLM model."""

import math

import numpy as np
import pytest

from kgcore.core.embed import embed_graph_nodes, embed_texts_of, get_embedder
from kgcore.core.types import LocalEdge, LocalNode, SentenceGraph
from kgcore.index.graph import build_graph


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


def test_encode_is_batched_normalised_and_semantic(embedder):
    vecs = embedder.encode(["the rabbits' father", "father", "a pie", "cabbage"])
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[3]


def test_basic_embedding_weights_name_and_texts(embedder):
    only_name = embed_texts_of([("tea", ["cabbage"])], embedder, alpha=1.0)[0]
    only_text = embed_texts_of([("tea", ["cabbage"])], embedder, alpha=0.0)[0]
    tea, cabbage = embedder.encode(["tea", "cabbage"])
    assert np.allclose(only_name, tea, atol=1e-5) and np.allclose(only_text, cabbage, atol=1e-5)
    mixed = embed_texts_of([("tea", ["cabbage"])], embedder, alpha=0.5)[0]
    assert abs(np.linalg.norm(mixed) - 1) < 1e-5 and mixed @ tea > cabbage @ tea


def test_encoder_called_once_for_all_nodes(embedder):
    calls = []

    class Counting:
        name, dim = embedder.name, embedder.dim

        def encode(self, texts, max_tokens=None):
            calls.append(len(texts))
            return embedder.encode(texts, max_tokens=max_tokens)

    embed_texts_of([(f"node {i}", [f"text {i}", "shared"]) for i in range(50)], Counting())
    assert len(calls) == 1 and calls[0] == 101  # 50 labels + 50 texts + 1 shared, deduplicated


def test_neighbour_variants_move_towards_neighbours(embedder):
    sg = SentenceGraph("s", (
        LocalNode("g", "give", ("gave",), "action", order=0),
        LocalNode("t", "tea", ("camomile tea",), "entity", "tea", 1),
        LocalNode("p", "Peter", ("Peter",), "entity", "peter", 2),
    ), (LocalEdge("g", "t", "ARG1", "action-entity"), LocalEdge("g", "p", "ARG2", "action-entity")))
    graph = build_graph([sg])
    ids, basic = embed_graph_nodes(graph, embedder, "basic")
    _, neigh = embed_graph_nodes(graph, embedder, "neighbor", beta=0.5)
    _, attn = embed_graph_nodes(graph, embedder, "attention", beta=0.5)
    g, t = ids.index("give_0"), ids.index("tea")
    for variant in (neigh, attn):
        assert np.allclose(np.linalg.norm(variant, axis=1), 1.0, atol=1e-5)
        assert variant[g] @ basic[t] > basic[g] @ basic[t]
    assert not np.allclose(neigh[g], attn[g])


def test_numpy_blas_uses_one_thread_beside_torch(embedder, monkeypatch):
    """OpenBLAS threads spinning after a numpy product slowed the next encode tenfold on 2 cores."""
    from threadpoolctl import threadpool_info

    from kgcore.core.embed.base import one_blas_thread

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    one_blas_thread()
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)


def test_query_node_vectors_leave_out_long_texts(embedder, monkeypatch):
    from kgcore.core.embed import nodes

    phrase = "happened to the young rabbits' father"
    mention = ("the young rabbits' father", "father")
    query = SentenceGraph("q", (LocalNode("a", "happen", ("happened", phrase), "action", order=0),
                                LocalNode("f", "father", mention, "entity", "father", 1)),
                          (LocalEdge("a", "f", "ARG2", "action-entity"),))
    keys, labels = nodes.embed_query_nodes(query, embedder)  # by default the labels alone
    assert keys == ["a", "f"]
    assert np.array_equal(labels, embed_texts_of([("happen", ["happen"]), ("father", ["father"])], embedder))
    monkeypatch.setattr(nodes, "QUERY_TEXT_WORDS", 5)
    _, vectors = nodes.embed_query_nodes(query, embedder)
    # the verb phrase (6 words) is left out; the 4-word mention stays
    expected = embed_texts_of([("happen", ["happened"]), ("father", ["the young rabbits' father", "father"])], embedder)
    assert np.array_equal(vectors, expected) and not np.allclose(vectors[1], labels[1], atol=1e-3)
    monkeypatch.setattr(nodes, "QUERY_TEXT_WORDS", math.inf)  # every text, as the graph's own nodes are embedded
    _, every = nodes.embed_query_nodes(query, embedder)
    assert np.array_equal(every[1], vectors[1]) and not np.allclose(every[0], vectors[0], atol=1e-3)
