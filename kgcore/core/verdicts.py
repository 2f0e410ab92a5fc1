"""The verdict on an answer and the evidence behind it, claim by claim (what
:mod:`kgcore.query.answer.verdict` decides and every answer carries as ``Answer.verdict``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

#: The states of a verdict on an answer (:class:`Verdict`).
VERDICT_STATES = ("supported", "not supported", "unsure")


@dataclass
class ClaimCheck:
    """One claim of an answer (an answer sentence, or the extractive answerer's quote) checked against the
    context sentence it cites that best answers the question (:mod:`kgcore.query.answer.verdict`).

    >>> ClaimCheck("It uses joint consensus.", "raft/text_0-9", "Raft uses joint consensus.", ["raft"],
    ...            span="joint consensus", span_start=10, span_end=25).to_dict()["span"]
    'joint consensus'
    """

    claim: str
    #: The cited sentence judged (None when the claim cites no retrieved sentence) and its text.
    sentence_id: str | None = None
    sentence: str = ""
    #: The question's content words found in that sentence (written or coref-resolved), and those not found.
    matched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: What the question asks for, in words ("a quantity (a number, size, share or range)").
    expected: str = ""
    #: The span of the sentence holding what the question asks for ("" when none) and its character offsets in
    #: ``sentence`` (-1 when none).
    span: str = ""
    span_start: int = -1
    span_end: int = -1
    #: For a generated claim: the share of its content words found in the sentences it cites (None for a quote).
    grounded: float | None = None
    #: The question the sentence answers (generated from its frames) that is closest to the asked one, and their
    #: cosine ("" and None when its frames give none).
    answers_question: str = ""
    question_cosine: float | None = None
    #: This claim's own state (one of :data:`VERDICT_STATES`) and the strength of its evidence (the sentence's
    #: answer score plus ``question_cosine``), which the state's thresholds apply to.
    state: str = "unsure"
    strength: float | None = None
    #: Where the question's wh-phrase stands relative to its verb ("the object of “marry”"), when the sentence
    #: holds no span in that role ("" when it does or nothing was checked: :mod:`kgcore.query.answer.roles`).
    unfilled_role: str = ""
    #: The thing whose size the question asks ("corpus" for "How large is the corpus?"), when the span says it
    #: ("the corpus of about 100 million sentences"); "" otherwise (:func:`kgcore.query.answer.measured.says_size`).
    measured: str = ""
    #: The words coreference puts in the span's place when only the sentence's coref-resolved text names the answer
    #: ("Tomas" for the span "He"); "" for a span that names it itself.
    span_refers: str = ""
    #: Of ``matched``, the words the sentence writes in another form (matched by stem: "reside" -> "resident").
    written_as: dict[str, str] = field(default_factory=dict)
    #: Of ``matched``, the words only the sentence's coref-resolved text holds ("anne" where it says "she").
    through_coreference: list[str] = field(default_factory=list)
    #: The character spans (``[start, end]``) of ``sentence`` holding the other matched words, in any form.
    word_spans: list[list[int]] = field(default_factory=list)
    #: For a question asking for a name or term: whether ``span`` is only a plain noun phrase the sentence introduces
    #: ("ruinous little structure" for "what rumors"), not one it names as the asked thing (a proper name, a
    #: technical term, "the crime of witchcraft", "standard copy-on-write techniques").
    span_introduced: bool = False
    #: When the sentence holds no span of the asked kind stated as fact: one it holds only inside what someone
    #: believes ("in the tool-shed" of "McGregor was sure that Peter was in the tool-shed"), which answers nothing;
    #: "" otherwise (:mod:`kgcore.query.answer.beliefs`).
    believed: str = ""
    #: A word of the question restricting its act to one occasion ("originally", "again", "eventually") that the
    #: sentence does not say, which keeps a strong answer unsure; "" otherwise (:mod:`kgcore.query.answer.occasion`).
    occasion: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Alternative:
    """A context sentence the offline answer pick ranked next after the one it quoted: where a reviewer looks
    first when the answer is wrong (the right sentence is often in the context, a few places down).

    >>> Alternative("gfs/text_0-41", "we use standard copy-on-write techniques", 1.9, "copy-on-write", 16, 29).span
    'copy-on-write'
    """

    sentence_id: str
    #: What the answer would have quoted from it: the clause holding its span of the asked kind (else its best).
    quote: str
    #: Its answer score (:mod:`kgcore.query.answer.weights`): the pick's order, best first.
    score: float
    #: Its span of the kind the question asks for ("" when none) and the span's offsets in ``quote`` (-1: none).
    span: str = ""
    span_start: int = -1
    span_end: int = -1
    #: The words coreference puts in the span's place when only the sentence's coref-resolved text names the answer
    #: ("Tomas" for the span "He"); "" for a span that names it itself.
    span_refers: str = ""


@dataclass
class Verdict:
    """Whether an answer is supported by the document as an answer to its question: ``state`` (one of
    :data:`VERDICT_STATES`), the ``reason`` in words, and the ``evidence`` checked, claim by claim."""

    state: str
    reason: str
    evidence: list[ClaimCheck] = field(default_factory=list)
    #: The strength of the best claim's evidence (:attr:`ClaimCheck.strength`).
    score: float | None = None
    #: How the state was decided (the thresholds, in words).
    method: str = ""
    #: The offline answer pick's next best sentences (:class:`Alternative`), best first; empty for other answerers.
    alternatives: list[Alternative] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.state not in VERDICT_STATES:
            raise ValueError(f"verdict state {self.state!r} is not one of {', '.join(VERDICT_STATES)}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        """A verdict from its :meth:`to_dict` (unknown keys ignored).

        >>> v = Verdict("unsure", "Why.", [ClaimCheck("A claim.", span="x")], 2.3, "strength 2.15 .. 2.45",
        ...             [Alternative("s2", "Another clause.", 1.2)])
        >>> Verdict.from_dict(v.to_dict()) == v
        True
        """
        evidence = [_known(ClaimCheck, c) for c in data.get("evidence", [])]
        alternatives = [_known(Alternative, a) for a in data.get("alternatives", [])]
        return cls(data["state"], data.get("reason", ""), evidence, data.get("score"), data.get("method", ""),
                   alternatives)


def _known(kind, data: dict):
    """A ``kind`` dataclass from the keys of ``data`` it knows (a newer store's extra keys ignored)."""
    names = {f.name for f in fields(kind)}
    return kind(**{k: v for k, v in data.items() if k in names})
