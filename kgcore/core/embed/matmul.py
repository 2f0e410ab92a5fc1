"""Tall-by-skinny float32 products: every stored vector (tens of thousands of rows) times a question's few.

Node matching multiplies every graph node's vector by each query node's (ObliQA: 77,309 distinct node vectors
of 384 floats, 118 MB, times about 12 query vectors).  OpenBLAS handles that shape poorly: it packs the tall
operand for the product, so ``tall @ skinny.T`` took 16-23 ms on 2 cores while a matrix-vector product reads
the same 118 MB in 8 ms.  ONNX Runtime's MLAS kernel packs the skinny operand and streams the tall one: 8.9 ms
for the same product, with the same float32 results (bitwise equal on 150 ObliQA questions' query vectors).
ONNX Runtime and onnx are already installed for the default embedder; without them numpy does the product.

>>> tall = np.arange(12, dtype=np.float32).reshape(4, 3); skinny = np.eye(3, dtype=np.float32)[:2]
>>> tall_product(tall, skinny).tolist() == (tall @ skinny.T).tolist()
True
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from kgcore.core.embed.base import thread_share
from kgcore.core.once import once

log = logging.getLogger(__name__)

#: Below this many rows numpy's product is as fast and the ONNX Runtime call is not worth its overhead.
MIN_ROWS = 4096
_SESSIONS: dict[str, Any] = {}
_BUILDING = threading.Lock()


def tall_product(tall: np.ndarray, skinny: np.ndarray) -> np.ndarray:
    """``tall @ skinny.T`` (tall rows × skinny rows) for C-ordered float32 matrices of the same width."""
    if len(tall) < MIN_ROWS or tall.dtype != np.float32 or skinny.dtype != np.float32:
        return tall @ skinny.T
    session = once(_SESSIONS, "matmul", _session, _BUILDING)
    if session is None:
        return tall @ skinny.T
    return session.run(None, {"tall": np.ascontiguousarray(tall), "skinny_t": np.ascontiguousarray(skinny.T)})[0]


def _session() -> Any:
    """An ONNX Runtime session of one MatMul over dynamic shapes, or None when onnxruntime or onnx is missing."""
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        log.info("onnxruntime or onnx is missing: node products use numpy (slower on large collections)")
        return None
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["tall", "skinny_t"], ["product"])], "tall_product",
        [helper.make_tensor_value_info("tall", TensorProto.FLOAT, ["rows", "width"]),
         helper.make_tensor_value_info("skinny_t", TensorProto.FLOAT, ["width", "queries"])],
        [helper.make_tensor_value_info("product", TensorProto.FLOAT, ["rows", "queries"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # read by every onnxruntime >= 1.14
    onnx.checker.check_model(model)
    options = ort.SessionOptions()
    options.intra_op_num_threads = thread_share()
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as the embedder's (onnx.py)
    try:
        return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own kinds (a build without this opset, ...); numpy is exact
        log.warning("node products use numpy: ONNX Runtime could not run a MatMul (%s: %s)", type(exc).__name__, exc)
        return None
