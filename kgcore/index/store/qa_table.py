"""A document's QA pairs and their vectors, as stored in its shard (both files optional on read).

``qa_pairs.jsonl``   one :class:`~kgcore.index.qa.base.QAPair` per line, with ``q_row``/``a_row``: the rows of
                     its question and its answer in ``qa_vectors.npy``
``qa_vectors.npy``   one vector per distinct question or answer text (an answer shared by many pairs,
                     "Peter", is embedded once)

Shards written before QA pairs existed have neither file: :func:`read_qa` returns None and the query layer
generates the pairs from the stored frames when it first needs them.

>>> import tempfile
>>> from kgcore.core.qa_pair import QAPair
>>> class Toy:
...     name, dim = "toy", 2
...     def encode(self, texts, max_tokens=None):
...         return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)
>>> table = embed_pairs([QAPair("d/text_0-0#q0", "Who ran?", "Peter", "d/text_0-0", "who", "person")], Toy())
>>> folder = Path(tempfile.mkdtemp())
>>> write_qa(folder, table)
>>> back = read_qa(folder)
>>> back.pairs[0].answer, back.vectors.shape, back.q_rows.tolist(), back.a_rows.tolist()
('Peter', (2, 2), [0], [1])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.errors import DamagedIndexError
from kgcore.core.qa_pair import QAPair
from kgcore.index.store.integrity import READ_ERRORS, parse_jsonl, parse_npy, read_verified

QA_PAIRS = "qa_pairs.jsonl"
QA_VECTORS = "qa_vectors.npy"


@dataclass
class QATable:
    """Pairs with the vector rows of their questions and answers."""

    pairs: list[QAPair]
    q_rows: np.ndarray
    a_rows: np.ndarray
    vectors: np.ndarray

    @property
    def question_vectors(self) -> np.ndarray:
        return self.vectors[self.q_rows] if len(self.pairs) else self.vectors[:0]

    @property
    def answer_vectors(self) -> np.ndarray:
        return self.vectors[self.a_rows] if len(self.pairs) else self.vectors[:0]


def embed_pairs(pairs: Sequence[QAPair], embedder: Embedder) -> QATable:
    """Embed each distinct question and answer text once."""
    texts = list(dict.fromkeys([p.question for p in pairs] + [p.answer for p in pairs]))
    row = {t: i for i, t in enumerate(texts)}
    vectors = embedder.encode(texts) if texts else np.zeros((0, embedder.dim), dtype=np.float32)
    return QATable(list(pairs), np.array([row[p.question] for p in pairs], dtype=np.int64),
                   np.array([row[p.answer] for p in pairs], dtype=np.int64), np.asarray(vectors, dtype=np.float32))


def write_qa(folder: Path, table: QATable) -> None:
    """Write the two files into the shard folder ``folder``."""
    with (folder / QA_PAIRS).open("w", encoding="utf-8") as fh:
        for pair, q, a in zip(table.pairs, table.q_rows.tolist(), table.a_rows.tolist()):
            fh.write(json.dumps({**pair.to_dict(), "q_row": q, "a_row": a}, ensure_ascii=False) + "\n")
    np.save(folder / QA_VECTORS, np.asarray(table.vectors, dtype=np.float32))


def read_qa(folder: Path) -> QATable | None:
    """The shard's pairs and vectors, or None when it has none (indexed before QA pairs existed)."""
    if not (folder / QA_PAIRS).is_file() or not (folder / QA_VECTORS).is_file():
        return None
    path = folder / QA_PAIRS
    rows = parse_jsonl(path, read_verified(path))
    vectors = parse_npy(folder / QA_VECTORS, read_verified(folder / QA_VECTORS))
    try:
        pairs = [QAPair.from_dict(r) for r in rows]
        q_rows = np.array([int(r["q_row"]) for r in rows], dtype=np.int64)
        a_rows = np.array([int(r["a_row"]) for r in rows], dtype=np.int64)
    except READ_ERRORS as exc:
        raise DamagedIndexError(path, f"unexpected content ({type(exc).__name__}: {exc})") from None
    if vectors.ndim != 2 or (len(rows) and max(q_rows.max(), a_rows.max()) >= len(vectors)):
        raise DamagedIndexError(folder / QA_VECTORS, "does not hold a vector for every question and answer")
    return QATable(pairs, q_rows, a_rows, vectors)
