"""The ``cross-encoder`` reranker: a local sentence-transformers ``CrossEncoder`` over the offline ranking.

The QA-pair graph method reranks with BAAI/bge-reranker-large.  Here any CrossEncoder folder given in
``KGCORE_RERANKER_MODEL`` (for instance ``cross-encoder/ms-marco-MiniLM-L-6-v2`` or ``BAAI/bge-reranker-base``
downloaded with ``huggingface-cli download NAME --local-dir DIR``) scores (question, generated question +
answer) for the :data:`TOP_N` best candidates of the offline scorer; its sigmoid, weighted by
:data:`W_CROSS`, is added to the offline score.  A missing folder is a :class:`ModelUnavailableError` that
says what to download and where to point the variable.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgcore.core.errors import ModelUnavailableError
from kgcore.core.nlp import MODEL_LOADING
from kgcore.query.rerank.base import Candidate, by_score
from kgcore.query.rerank.offline import OfflineReranker

TOP_N = 50
W_CROSS = 1.0


class CrossEncoderReranker:
    """The offline ranking, then a cross-encoder over its top :data:`TOP_N`."""

    name = "cross-encoder"

    def __init__(self, path: str, device: str = "cpu"):
        folder = Path(path).expanduser()
        if not folder.is_dir() or not (folder / "config.json").is_file():
            raise ModelUnavailableError(
                f"KGCORE_RERANKER_MODEL={path!r} is not a model folder (no config.json there). Download a "
                "sentence-transformers CrossEncoder, e.g. `huggingface-cli download "
                "cross-encoder/ms-marco-MiniLM-L-6-v2 --local-dir models/reranker`, and set "
                "KGCORE_RERANKER_MODEL to that folder; unset it to rerank with the offline scorer.")
        with MODEL_LOADING:  # never beside spaCy's first import, which hides torch meanwhile
            self.model = _cross_encoder(folder, device)
        self.path = str(folder)
        self.offline = OfflineReranker()

    def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        ranked = self.offline.rerank(question, candidates)
        head = ranked[:TOP_N]
        if not head:
            return ranked
        logits = np.asarray(self.model.predict([(question, f"{c.pair.question} {c.pair.answer}") for c in head],
                                               show_progress_bar=False), dtype=np.float64).reshape(len(head), -1)[:, -1]
        for c, logit in zip(head, logits):
            c.features["cross_encoder"] = float(1 / (1 + np.exp(-logit)))
            c.score += W_CROSS * c.features["cross_encoder"]
        return by_score(head) + ranked[TOP_N:]


def _cross_encoder(folder: Path, device: str):
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as exc:
        raise ModelUnavailableError("sentence-transformers is missing: pip install sentence-transformers") from exc
    try:
        return CrossEncoder(str(folder), device=device)
    except (OSError, ValueError) as exc:
        raise ModelUnavailableError(f"cannot load the cross-encoder in {folder}: {exc}") from exc
