"""The value types of an answer: its text with the citations linking each answer sentence to the context
sentences that support it, and its verdict.  :mod:`kgcore.core.types` re-exports them.

>>> Citation("Peter ran.", ["peter-rabbit/text_0-1"], [1.0]).documents
['peter-rabbit']
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from kgcore.core.sentence_ids import split_sentence_id
from kgcore.core.verdicts import Verdict


@dataclass
class Citation:
    """Links one answer sentence to the context sentences that support it.

    >>> Citation("He ran.", ["peter/text_0-1", "peter/text_0-2"]).to_dict()["documents"]
    ['peter']
    """

    answer_sentence: str
    sentence_ids: list[str]
    scores: list[float] = field(default_factory=list)

    @property
    def documents(self) -> list[str]:
        """The documents of the cited sentences, in citation order."""
        return list(dict.fromkeys(split_sentence_id(s)[0] for s in self.sentence_ids if "/" in s))

    def to_dict(self) -> dict:
        return {**asdict(self), "documents": self.documents}


@dataclass
class Answer:
    """A generated or extracted answer with its citations and provenance."""

    text: str
    generator: str
    model: str
    citations: list[Citation] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    prompt: str = ""
    notes: list[str] = field(default_factory=list)
    #: ``qa-kg``: the ranked short answers (text, sentence ids, score, the pair behind each) and a confidence.
    short_answers: list[dict] = field(default_factory=list)
    confidence: float | None = None
    #: Whether a retrieved sentence supports the answer (:mod:`kgcore.query.answer.support`); None: not checked.
    supported: bool | None = None
    #: Why (or why not), in words, with the support score and the threshold.
    support_reason: str = ""
    support_score: float | None = None
    #: The verdict (supported / not supported / unsure) with its reason and evidence; None: not judged.
    verdict: Verdict | None = None

    def to_dict(self) -> dict:
        return asdict(self)
