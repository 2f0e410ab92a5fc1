"""A question–answer pair generated from one sentence, as the index stores it and the ``qa-kg`` method reads it.

The pairs are made at indexing (:mod:`kgcore.index.qa`: one atomic fact of one sentence asked as a question, the
answer a span of the coreference-resolved sentence) and kept with the document's shard
(:mod:`kgcore.index.store.disk.qa_table`).

>>> pair = QAPair("p1", "Who lost a shoe?", "Peter", "text_0-3", "who", "person", entities=[("shoe", "shoe")])
>>> QAPair.from_dict(pair.to_dict()) == pair
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class QAPair:
    """One generated question–answer pair, grounded in one sentence.

    ``wh`` is the question word, ``role`` the answer's semantic role (``ARG0``, ``ARGM-LOC``, ... or ``llm``),
    ``predicate`` the frame's predicate, ``statement`` the frame realised as a clause (the answer sentence
    shown to users), ``entities`` and ``answer_entities`` the (key, label) of the graph entities the question
    and the answer mention, ``source`` the backend that made it.
    """

    id: str
    question: str
    answer: str
    sentence_id: str
    wh: str
    answer_type: str
    role: str = ""
    predicate: str = ""
    statement: str = ""
    entities: list[tuple[str, str]] = field(default_factory=list)
    answer_entities: list[tuple[str, str]] = field(default_factory=list)
    source: str = "frames"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> QAPair:
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for name in ("entities", "answer_entities"):
            values[name] = [(str(k), str(label)) for k, label in values.get(name, ())]
        return cls(**values)
