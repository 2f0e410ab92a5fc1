"""The support check's threshold for one collection, measured on questions the collection answers by construction.

The support of an answer (:mod:`~kgcore.query.answer.support`) is a cosine plus a word overlap, and the
cosine's scale depends on the text: a question and the sentence that answers it have a cosine of about 0.6
in Peter Rabbit's short sentences, about 0.35 in Robinson Crusoe's long ones.  So the threshold is measured
on each collection, without labels:

1. up to :data:`MAX_SENTENCES` of its retrievable sentences, evenly spaced through it (:func:`evenly`);
2. the wh-questions the offline QA generator writes from their SRL frames (:mod:`kgcore.index.qa.frames`;
   the frames stored at indexing, parsed here for sentences indexed without them): each is answered by the
   sentence it was made from;
3. up to :data:`MAX_QUESTIONS` of those questions, evenly spaced, embedded; a question's support is its cosine
   with its sentence's stored vector (what retrieval compares) plus ``W_OVERLAP``: it is made of its
   sentence's words, so all of its content words are found there;
4. the threshold is the ``QUANTILE`` quantile of those supports (:func:`~kgcore.query.answer.support.calibrate`).

It is deterministic (no random sampling) and built once per loaded collection, in ``index.cache``: the
query engine reloads an index whose stamp changed, so a changed collection is measured again.  About a
second for a novel (the questions' embeddings), nothing for later questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.types import Sentence
from kgcore.index.qa import FrameQAGenerator
from kgcore.index.qa.frames import frame_analyses
from kgcore.index.store.in_memory import CacheKey, Index
from kgcore.query.answer.select import W_OVERLAP
from kgcore.query.answer.support import Calibration, calibrate

#: Sentences questions are generated from (evenly spaced through the collection).
MAX_SENTENCES = 400
#: Generated questions embedded and scored (evenly spaced among those generated).
MAX_QUESTIONS = 400

SUPPORT_CALIBRATION: CacheKey[Calibration] = CacheKey("support-calibration")


def evenly(n: int, k: int) -> list[int]:
    """``min(n, k)`` indices spread evenly over ``range(n)``, the first and the last included.

    >>> evenly(10, 4), evenly(3, 5), evenly(0, 5)
    ([0, 3, 6, 9], [0, 1, 2], [])
    """
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)}) if k > 1 else [0]


def collection_calibration(index: Index, nlp, embedder: Embedder) -> Calibration:
    """The support threshold of ``index``'s collection, measured on first use and kept in ``index.cache``."""
    return index.cache.get(SUPPORT_CALIBRATION, lambda: calibrate(collection_supports(index, nlp, embedder),
                                                                  f"collection {index.collection!r}"))


def collection_supports(index: Index, nlp, embedder: Embedder) -> list[float]:
    """The supports of the questions generated from ``index``'s sentences (steps 1-3 of the module doc)."""
    scope = index.sentence_scope()
    rows = np.arange(len(index.sentences)) if scope is None else np.flatnonzero(scope)
    rows = rows[evenly(len(rows), MAX_SENTENCES)]
    sentences = [index.sentences[int(r)] for r in rows]
    return question_supports(sentences, index.sentence_vectors[rows], index.analyses(), nlp, embedder)


def question_supports(sentences: Sequence[Sentence], vectors: np.ndarray, stored: Mapping[str, dict], nlp,
                      embedder: Embedder) -> list[float]:
    """The support of the questions generated from ``sentences`` against their own sentence (row of ``vectors``).

    ``stored`` holds the analyses written at indexing; a sentence without frames there is parsed with ``nlp``.
    """
    pairs = FrameQAGenerator().generate(sentences, frame_analyses(sentences, stored, nlp))
    pairs = [pairs[i] for i in evenly(len(pairs), MAX_QUESTIONS)]
    if not pairs:
        return []
    row = {s.id: i for i, s in enumerate(sentences)}
    questions = embedder.encode([p.question for p in pairs])
    cosines = np.einsum("ij,ij->i", questions, vectors[[row[p.sentence_id] for p in pairs]])
    return [float(c) + W_OVERLAP for c in cosines]
