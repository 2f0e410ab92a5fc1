"""kgcore.core.embed.matmul: the node product through ONNX Runtime equals numpy's, and numpy stands in without it."""

from __future__ import annotations

import numpy as np
import pytest

from kgcore.core.embed import matmul as product


@pytest.fixture
def vectors() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    tall = rng.standard_normal((product.MIN_ROWS * 3, 384)).astype(np.float32)
    skinny = rng.standard_normal((12, 384)).astype(np.float32)
    return tall / np.linalg.norm(tall, axis=1, keepdims=True), skinny / np.linalg.norm(skinny, axis=1, keepdims=True)


def test_a_tall_product_runs_in_onnx_runtime_and_equals_numpys(vectors):
    tall, skinny = vectors
    got = product.tall_product(tall, skinny)
    assert product._SESSIONS.get("matmul") is not None  # the ONNX Runtime path, not the fallback
    assert got.shape == (len(tall), len(skinny)) and got.dtype == np.float32
    np.testing.assert_allclose(got, tall @ skinny.T, rtol=0, atol=2e-6)
    # a strided view of the query rows (match.py passes ``vectors[wanted]``, others may pass a slice)
    np.testing.assert_allclose(product.tall_product(tall, skinny[::2]), tall @ skinny[::2].T, rtol=0, atol=2e-6)


def test_without_onnx_runtime_numpy_does_the_product(vectors, monkeypatch):
    tall, skinny = vectors
    monkeypatch.setitem(product._SESSIONS, "matmul", None)  # what _session() gives when onnxruntime is missing
    np.testing.assert_array_equal(product.tall_product(tall, skinny), tall @ skinny.T)


def test_small_or_float64_inputs_stay_with_numpy(monkeypatch):
    monkeypatch.setattr(product, "_session", lambda: pytest.fail("ONNX Runtime used for a small product"))
    monkeypatch.setattr(product, "_SESSIONS", {})
    small = np.ones((10, 4), dtype=np.float32)
    assert product.tall_product(small, small[:2]).tolist() == (small @ small[:2].T).tolist()
    wide = np.ones((product.MIN_ROWS, 4))
    assert product.tall_product(wide, wide[:1]).dtype == np.float64


def test_sessions_share_the_product_from_several_threads(vectors):
    """The app's sessions are threads of one process and share the one ONNX Runtime session."""
    from concurrent.futures import ThreadPoolExecutor

    tall, skinny = vectors
    queries = [skinny[i:i + 4] for i in range(0, 12, 2)]
    with ThreadPoolExecutor(max_workers=len(queries)) as pool:
        got = list(pool.map(lambda q: product.tall_product(tall, q), queries * 3))
    for q, result in zip(queries * 3, got):
        np.testing.assert_allclose(result, tall @ q.T, rtol=0, atol=2e-6)
