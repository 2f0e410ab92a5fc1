"""The kind of answer a question asks for, as a ranking signal: among the fused order's best candidates, a sentence
that holds a span of that kind -- a place for "where", a person for "who", a date for "when", a figure for "how
many" -- ranks higher.

People ask about what a book says in their own words (NarrativeQA's questions were written from plot summaries),
so a sentence that shares the question's names and topic but holds no answer ("Louisa was much the same.") ranks
as high as the one that answers it ("Louisa was to marry Captain Benwick.").  The answer pick already knows which
sentences hold an answer of the asked kind (:func:`kgcore.query.answer.spans.answer_spans`, the spans it marks);
the ranking asks the same finders of its first :data:`CANDIDATES` sentences and multiplies the score of each that
holds one by ``1 +`` :data:`WEIGHT`.  When more than :data:`SELECTIVE` of them hold one (a kind most sentences
hold, such as a new verb for "what did she do?") the order is left as it is: the signal would only say that the
sentences are sentences.

A worked example: for "Who does Louisa become engaged to?" the expected answer is a person, so among the
candidates the sentence "Louisa was to marry Captain Benwick" (a person the question does not name) rises past
"Louisa was much the same" (no person but Louisa herself, whom the question names).

The finders read the question's words and its asked noun ("what colour", "which dataset"), so the candidates are
parsed at query time, through the process's parse cache and the store's parse store
(:mod:`kgcore.query.answer.parse_store`): the answer pick parses the same sentences of the context afterwards.
Decided on people's questions, the NarrativeQA design books (``bench/experiments/narrativeqa_answer_type.py``;
``docs/evaluation.md``): answer-token recall of the context against the ranking without it, paired, at 200 / 500 /
1,000 / 2,000 words:

* weight 1, as first adopted: +0.016 / +0.016 / +0.020 / +0.013; with colleges counted as places, as now (the
  same run as the other weights): +0.027 / +0.016 / +0.020 / +0.013; weight 0.5: +0.017 / +0.012 / +0.023 / +0.003;
* weight 2, 3 and 5: +0.034 / +0.028 / +0.023-0.037 / +0.013 -- a plateau: past a factor of 3 the raised
  candidates come first and only their own order is left to the score; :data:`WEIGHT` is its middle, 3;
* raising every kind with spans (weight 1) gave +0.012 / +0.010 / +0.010 / +0.012: manner questions lost
  0.09-0.12 at 500 and 1,000 words.

The held-out books, looked at once per decision: weight 1, +0.027 / +0.019 / +0.015 / +0.000; weight 3 (with
colleges counted as places), +0.011 / +0.025 / +0.027 / +0.011.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgcore.query.answer.base import STORE_FILL_LIMIT
from kgcore.query.answer.expected import Expected, expected_answer
from kgcore.query.answer.spans import FINDERS, answer_spans

#: How much higher a candidate holding a span of the asked kind scores (its score times 1 + this; 0: off).
WEIGHT = 3.0
#: How many of the fused order's first sentences are parsed and may be raised.
CANDIDATES = 200
#: The largest share of the candidates that may hold a span for the signal to count (above it, nothing changes).
SELECTIVE = 0.5
#: The asked kinds that raise candidates: those whose answer is a span -- a figure, a time, a person, a place, a
#: name, a relation, an occupation (on the design books a tie with them or without).  A clause kind (a reason, a
#: manner, an action, an object) is found in many sentences that do not answer.
KINDS = frozenset(("number", "time", "person", "place", "name", "relation", "occupation"))
#: The asked kinds a candidate may hold in its coref-resolved text when its written text lacks one ("she lit the
#: lamp" holds the person "Mara lit the lamp" names), as the answer pick reads persons and names.  None: on the
#: design books persons and names read so gave +0.013 / +0.012 / +0.013 / +0.007 against the written text's
#: +0.013 / +0.016 / +0.020 / +0.013 (a pronoun resolved to a character makes restatements hold a person too).
RESOLVED_KINDS: frozenset[str] = frozenset()
#: The largest collection (in sentences) whose candidates are raised: one whose parse file the app fills ahead of the
#: questions (:data:`~kgcore.query.answer.base.STORE_FILL_LIMIT` texts, a sentence's written and resolved text
#: each; with an OpenAI-compatible answerer, the written texts this signal reads).  Past it
#: every question would parse its candidates itself: ObliQA's 40 rulebooks (29,880 sentences), 150 questions each
#: asked once, p95 63 -> 2,039 ms; and the signal was decided on novels of 1,700-5,700 sentences.
MAX_SENTENCES = STORE_FILL_LIMIT // 2


@dataclass
class AskedKind:
    """What a question asks for and how to read the candidates: its :class:`~kgcore.query.answer.expected.Expected`
    answer, its parse, and ``parse`` (texts -> spaCy docs, in order)."""

    expected: Expected
    question: Any
    parse: Callable[[list[str]], list]
    weight: float = WEIGHT
    candidates: int = CANDIDATES
    selective: float = SELECTIVE
    #: Per stage (0: the fused order, 1: the order without the graph signal), the rows :meth:`raised` raised, for
    #: the sentences' ``signals["asked"]``.
    rows: dict[int, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, question: str, parse: Callable[[list[str]], list], sentences: int = 0) -> AskedKind | None:
        """The asked kind of ``question`` with this module's :data:`WEIGHT`, :data:`CANDIDATES` and
        :data:`SELECTIVE`; None when its kind has no spans to find (a definition, yes/no, a question with no
        wh-word), the weight is 0 or the collection's ``sentences`` are more than :data:`MAX_SENTENCES`."""
        if not applies(sentences):
            return None
        doc = parse([question])[0]
        expected = expected_answer(doc)
        if expected.kind not in FINDERS or expected.kind not in KINDS:
            return None
        return cls(expected, doc, parse, WEIGHT, CANDIDATES, SELECTIVE)

    def holds(self, texts: Sequence[tuple[str, str]]) -> np.ndarray:
        """Per (written, resolved) text, whether it holds a span of the asked kind (not made of the question's own
        words); for :data:`RESOLVED_KINDS`, in its resolved text ("" when coreference changed nothing) when the
        written one holds none."""
        held = [self._spans(doc) for doc in self.parse([written for written, _ in texts])]
        if self.expected.kind in RESOLVED_KINDS:
            redo = [i for i, (written, resolved) in enumerate(texts) if not held[i] and resolved not in ("", written)]
            for i, doc in zip(redo, self.parse([texts[i][1] for i in redo])):
                held[i] = self._spans(doc)
        return np.array(held, dtype=bool)

    def _spans(self, doc) -> bool:
        """Whether ``doc`` holds a span of the asked kind, one stated as someone's belief included: the ranking
        looks for sentences that may hold the answer ("Mr. McGregor was quite sure that Peter was somewhere in
        the tool-shed, perhaps hidden *underneath a flower-pot*"), the verdict judges whether they state it.  For
        a person, a name: words for a person ("the man", "his mother") stand in so many of a novel's sentences
        that the raise, selective by :data:`SELECTIVE`, applied to 11 of the 35 design "who" questions with them
        and to 20 without (design books against them, 200 / 500 / 1,000 / 2,000 words: +0.012 [+0.000, +0.029]
        / +0.013 [-0.003, +0.034] / +0.000 / -0.007 [-0.020, +0.000])."""
        tokens = list(doc)
        spans = answer_spans(tokens, self.expected, self.question, beliefs=True)
        if self.expected.kind == "person":  # a name, not "the man" or "his mother", which half a novel holds
            spans = [(a, b) for a, b in spans if any(t.pos_ == "PROPN" or t.ent_type_ == "PERSON" for t in tokens[a:b])]
        return bool(spans)

    def raised(self, order: np.ndarray, final: np.ndarray, texts: Callable[[np.ndarray], list[tuple[str, str]]],
               stage: int = 0) -> np.ndarray:
        """``order`` (stage ``stage``'s rows, best first by ``final``, repeated texts left out) with its first
        :attr:`candidates` rows reordered by their score times 1 + :attr:`weight` where the row's text
        (``texts(rows)``: written and resolved) holds a span of the asked kind -- unless more than
        :attr:`selective` of them do; equal scores keep the earlier row first, as the ranking does.  The rest of
        the order is kept.

        >>> kind = AskedKind(None, None, parse=lambda texts: texts, candidates=3)
        >>> kind.holds = lambda texts: np.array(["Benwick" in written for written, _ in texts])
        >>> texts = ["Louisa was much the same.", "Louisa was to marry Captain Benwick.", "Louisa fell.", "Anne."]
        >>> order, final = np.array([0, 2, 1, 3]), np.array([0.9, 0.6, 0.8, 0.1])
        >>> kind.raised(order, final, lambda rows: [(texts[r], "") for r in rows]).tolist(), kind.rows  # 0.6x4 > 0.9
        ([1, 0, 2, 3], {0: {1}})
        """
        if self.weight <= 0 or len(order) < 2:
            return order
        head = order[: self.candidates]
        held = self.holds(texts(head))
        if held.mean() > self.selective:
            return order
        self.rows.setdefault(stage, set()).update(int(r) for r in head[held])
        scores = final[head] * (1 + self.weight * held)
        return np.r_[head[np.lexsort((head, -scores))], order[self.candidates:]]  # ties: the earlier row first


def applies(sentences: int) -> bool:
    """Whether the asked kind raises candidates in a collection of ``sentences`` sentences (:data:`MAX_SENTENCES`).

    >>> applies(6_000), applies(30_000)
    (True, False)
    """
    return WEIGHT > 0 and sentences <= MAX_SENTENCES


def resolved_pair(sentence) -> tuple[str, str]:
    """A sentence's written text and its coref-resolved text ("" when coreference changed nothing), as
    :meth:`AskedKind.holds` reads them.

    >>> from types import SimpleNamespace as S
    >>> resolved_pair(S(original="She lit it.", normalized="She lit it.", resolved="Mara lit the lamp."))
    ('She lit it.', 'Mara lit the lamp.')
    >>> resolved_pair(S(original="“Go.”", normalized='"Go."', resolved='"Go."'))
    ('“Go.”', '')
    """
    changed = sentence.resolved and sentence.resolved != sentence.normalized
    return sentence.original, sentence.resolved if changed else ""
