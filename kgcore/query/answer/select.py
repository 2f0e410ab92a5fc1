"""Which context sentences answer a question: the sentence scorer both offline answerers share.

Context sentences are ranked by

    score = cosine(question, sentence) + W_OVERLAP · overlap + W_TYPE · type_match

where ``overlap`` is the weighted share of the question's content lemmas
found in the sentence (its original or coref-resolved text; see
:func:`~kgcore.query.answer.words.question_term_weights` for the weights) and
``type_match`` is 1 when the sentence holds what the question asks for
(:func:`answer_type`): a person not named in the question for *who*, a
locative phrase for *where*, a date or time word for *when*, a reason for
*why*, a number for *how many*, the question's verb with an object for
*what did X buy*, a new verb for *what did X do / what happened to X* in a sentence that mentions X
(:func:`action_focus`).

The cosine is the retrieval's own (``SelectedSentence.similarity``, computed
with the same embedder on the sentence's own words) when every sentence carries one, raised to the cosine of the
coref-resolved text where that differs and is closer (a narrator's "I was born in 1632" says nothing of Crusoe
until resolved; on the dev sets, groundedkg at 1,000 words, extractive Crusoe EM / ROUGE-L 15.6 / 9.8 -> 17.8 /
12.0, Peter Rabbit and Phantom unchanged; qa-kg Crusoe ROUGE-L 22.5 -> 21.9, EM unchanged); otherwise the
sentences are embedded here (a context longer than :data:`MAX_EMBEDDED`,
e.g. a whole book from the "full" method, is first cut by word overlap).
When every sentence carries its retrieval rank, only the :data:`TOP_RANKED`
best-ranked are scored; of the rest, the :data:`SHORTLIST` with the best cosine
plus plain word overlap are parsed with spaCy for lemmas and answer types.

The extractive answerer quotes the best sentence's best clause
(:mod:`~kgcore.query.answer.extractive`); the ``qa-kg`` answerer adds each
sentence's score to the score of the question–answer pairs grounded in it
(:mod:`~kgcore.query.answer.short`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.types import SelectedSentence
from kgcore.index.qa.base import WH_WORDS, asked_for, asks_action
from kgcore.query.answer.words import LIGHT_VERBS, content_words, lemmas, question_term_weights, weighted_overlap

W_OVERLAP = 0.5
W_TYPE = 0.25
#: Sentences parsed with spaCy per question (after a cheap first ranking).
SHORTLIST = 12
#: Sentences embedded per question; longer contexts are cut by word overlap first.
MAX_EMBEDDED = 512
#: When every context sentence carries its retrieval rank, the answer is chosen among this many best-ranked
#: sentences.  The retrieval ranked them with more evidence than the answerer's own score (graph alignment,
#: propagation): on the dev sets its first sentence held the evidence more often than the answerer's choice
#: among all (Crusoe dev 15 against 11 of 45).  Chosen on dev among all / 3 / 5 / 8: Crusoe dev EM 11.1 -> 13.3,
#: ROUGE-L 9.0 -> 9.8; Peter Rabbit dev EM 42.9 -> 50.0, ROUGE-L 42.2 -> 46.2 (groundedkg, 1,000 words).
TOP_RANKED = 3

LOCATIVE_PREPS = frozenset(
    """in on under underneath among amongst into onto at near beside behind inside outside over through across
    beneath above below between by to toward towards from within upon around round along against""".split()
)
PLACE_WORDS = frozenset("home abroad upstairs downstairs indoors outdoors".split())
TIME_WORDS = frozenset(
    """morning evening night day week fortnight month year yesterday today tomorrow afternoon noon midnight hour
    minute moment presently soon later afterwards then when while after before until since once time spring summer
    autumn winter christmas dawn dusk sunset sunrise age""".split()
)
REASON_WORDS = frozenset("because since therefore thus so as why".split())
TIME_ENTITIES = frozenset(("DATE", "TIME"))
PLACE_ENTITIES = frozenset(("GPE", "LOC", "FAC"))
NUMBER_ENTITIES = frozenset(("CARDINAL", "QUANTITY", "MONEY", "PERCENT"))
#: Answer types a sentence's coref-resolved text can hold when its written text does not (:func:`holds_answer_type`).
RESOLVED_TYPES = frozenset(("person", "name"))


@dataclass(frozen=True)
class Question:
    """A parsed question: its spaCy doc, weighted content lemmas and expected answer type."""

    doc: object
    terms: dict[str, float]
    qtype: str | None
    #: For an action question, whom the action concerns (:func:`action_focus`).
    focus: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, question: str, nlp) -> Question:
        doc = nlp(question)
        qtype = answer_type(doc)
        return cls(doc, question_term_weights(doc), qtype, action_focus(doc) if qtype == "action" else frozenset())


@dataclass(frozen=True)
class ScoredSentence:
    """One context sentence's score for a question, with its parts."""

    sentence: SelectedSentence
    score: float
    cosine: float
    overlap: float
    type_match: bool


def score_sentences(question: str, parsed: Question, context: Sequence[SelectedSentence], nlp,
                    embedder: Embedder) -> list[ScoredSentence]:
    """The candidate sentences of ``context`` scored for ``question``, best first (ties: earlier in the context):
    the :data:`TOP_RANKED` best-ranked when the retrieval ranked them all, else the :data:`SHORTLIST` best by
    cosine plus plain word overlap.  ``context`` must not be empty."""
    candidates = _cheap_cut(question, best_ranked(context, TOP_RANKED), MAX_EMBEDDED)
    cos = cosines(question, candidates, embedder)
    cheap = [float(c) + W_OVERLAP * _word_recall(question, s) for c, s in zip(cos, candidates)]
    shortlist = np.argsort(-np.asarray(cheap), kind="stable")[:SHORTLIST]
    if retrieval_cosines(candidates):  # of the sentences' own words; else ``cosines`` embedded the resolved texts
        cos = with_resolved(question, candidates, cos, shortlist, embedder)
    texts = [t for i in shortlist for t in (candidates[i].text, candidates[i].resolved or candidates[i].text)]
    docs = list(nlp.pipe(texts))
    scored = []
    for k, i in enumerate(shortlist):
        original, resolved = docs[2 * k], docs[2 * k + 1]
        found = lemmas(original) | lemmas(resolved)
        overlap = weighted_overlap(parsed.terms, found)
        typed = has_answer_type(list(original), parsed.qtype, parsed.doc) and not parsed.focus - found
        score = float(cos[i]) + W_OVERLAP * overlap + W_TYPE * typed
        scored.append(ScoredSentence(candidates[i], score, float(cos[i]), overlap, typed))
    return sorted(scored, key=lambda s: (-s.score, s.sentence.position))


def cosines(question: str, sentences: list[SelectedSentence], embedder: Embedder) -> np.ndarray:
    """Question-sentence cosines: the retrieval's own (``similarity``) when every sentence has one."""
    if retrieval_cosines(sentences):
        return np.array([s.similarity for s in sentences], dtype=np.float64)
    vectors = embedder.encode([question] + [s.resolved or s.text for s in sentences])
    return vectors[1:] @ vectors[0]


def retrieval_cosines(sentences: Sequence[SelectedSentence]) -> bool:
    """Whether every sentence carries the retrieval's cosine to the question (``similarity``)."""
    return all(s.similarity for s in sentences)


def with_resolved(question: str, sentences: list[SelectedSentence], cos: np.ndarray, rows, embedder: Embedder
                  ) -> np.ndarray:
    """``cos`` with each of ``rows`` raised to its coref-resolved text's cosine when that is higher."""
    rows = [int(i) for i in rows if sentences[i].resolved and sentences[i].resolved != sentences[i].text]
    if not rows:
        return cos
    vectors = embedder.encode([question] + [sentences[i].resolved for i in rows])
    out = np.array(cos, dtype=np.float64)
    out[rows] = np.maximum(out[rows], vectors[1:] @ vectors[0])
    return out


# -- the question -----------------------------------------------------------------
def answer_type(q_doc) -> str | None:
    """What the question asks for: person, place, time, reason, number, name, object, action or None."""
    words = [t.lower_ for t in q_doc]
    if not words:
        return None
    asked = asked_for(words)
    if asked is not None:
        return asked
    wh = next((w for w in words if w in WH_WORDS), None)
    if wh in ("what", "which"):
        if asks_action(words):
            return "action"
        if _main_verb(q_doc) is not None:
            return "object"
    return None


def action_focus(q_doc) -> frozenset[str]:
    """Whom an action question is about, as lemmas: X of "what happened to X?" or "what did X do?" (empty when
    that is a pronoun or absent).  A sentence answers such a question only if it mentions X (or its resolved
    text does): any new verb is an action, but not one that happened to X.
    """
    for t in q_doc:
        lemma = t.lemma_.lower()
        if lemma == "happen":
            heads = [o for p in t.children if p.lower_ == "to" for o in p.children if o.dep_ == "pobj"]
        elif lemma == "do" and t.dep_ != "aux":
            heads = [c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")]
        else:
            continue
        return frozenset(h.lemma_.lower() for h in heads if h.pos_ in ("NOUN", "PROPN"))
    return frozenset()


def _main_verb(q_doc):
    verbs = [t for t in q_doc if t.pos_ == "VERB" and t.lemma_.lower() not in LIGHT_VERBS]
    return verbs[0] if verbs else None


def holds_answer_type(original, resolved, qtype: str | None, q_doc) -> bool:
    """Whether a sentence (its parsed written and coref-resolved texts) holds what a ``qtype`` question asks for:
    a person or name in either text, anything else in the written one.  Coreference puts people's names in place
    of pronouns ("He rowed out and rescued them" is "Tomas rowed out and rescued the fishermen"), not places, times
    or numbers, and the tagger misreads a name moved into a new context ("Daae's father's wife died": Daae a place).
    """
    docs = (original, resolved) if qtype in RESOLVED_TYPES else (original,)
    return any(has_answer_type(list(doc), qtype, q_doc) for doc in docs)


def has_answer_type(tokens, qtype: str | None, q_doc) -> bool:
    """Whether ``tokens`` (one sentence or clause) hold what a ``qtype`` question asks for."""
    if qtype is None:
        return False
    asked = {t.lower_ for t in q_doc} | {t.lemma_.lower() for t in q_doc}
    if qtype == "person":
        return any((t.ent_type_ == "PERSON" or t.pos_ == "PROPN") and t.lower_ not in asked for t in tokens)
    if qtype == "place":
        return any(_is_locative(t) for t in tokens)
    if qtype == "time":
        return any(t.ent_type_ in TIME_ENTITIES or t.lower_ in TIME_WORDS for t in tokens)
    if qtype == "reason":
        return any(_is_reason(t) for t in tokens)
    if qtype == "number":
        return any((t.like_num or t.ent_type_ in NUMBER_ENTITIES) and t.lower_ not in asked for t in tokens)
    if qtype == "name":
        return any(t.pos_ == "PROPN" and t.lower_ not in asked for t in tokens)
    if qtype == "object":
        verb = _main_verb(q_doc)
        return any(t.lemma_.lower() == verb.lemma_.lower() and _has_new_object(t, asked) for t in tokens)
    return any(t.pos_ == "VERB" and t.lemma_.lower() not in asked | LIGHT_VERBS for t in tokens)


def _is_locative(token) -> bool:
    if token.ent_type_ in PLACE_ENTITIES or (
            token.lower_ in PLACE_WORDS and token.dep_ in ("advmod", "npadvmod", "dobj")):
        return True
    if token.dep_ != "prep" or token.lower_ not in LOCATIVE_PREPS:
        return False
    objects = [c for c in token.children if c.dep_ == "pobj"]
    return any(o.lower_ not in TIME_WORDS and o.ent_type_ not in TIME_ENTITIES for o in objects)


def _is_reason(token) -> bool:
    if token.lower_ in REASON_WORDS and token.dep_ in ("mark", "cc", "advmod"):
        return True
    # A purpose infinitive: "sat down to rest".
    return token.lower_ == "to" and token.dep_ == "aux" and token.head.dep_ in ("advcl", "xcomp")


def _has_new_object(verb, asked: set[str]) -> bool:
    return any(c.dep_ in ("dobj", "attr", "dative", "oprd") and c.lemma_.lower() not in asked for c in verb.children)


# -- choosing candidates ------------------------------------------------------------------------
def best_ranked(context: Sequence[SelectedSentence], top: int) -> list[SelectedSentence]:
    """The ``top`` best-ranked sentences of ``context`` when each carries a retrieval rank, else all of them.

    >>> from kgcore.core.types import SelectedSentence
    >>> ss = [SelectedSentence(str(i), i, "t", "t", rank=r) for i, r in enumerate([3, 1, 2])]
    >>> [s.id for s in best_ranked(ss, 2)], len(best_ranked(ss[:1] + [SelectedSentence("x", 9, "t", "t")], 1))
    (['1', '2'], 2)
    """
    if top <= 0 or not context or any(not s.rank for s in context):  # rank 0: not ranked
        return list(context)
    return sorted(context, key=lambda s: s.rank)[:top]


def _word_recall(question: str, sentence: SelectedSentence) -> float:
    asked = content_words(question)
    return len(asked & content_words(f"{sentence.text} {sentence.resolved}")) / len(asked) if asked else 0.0


def _cheap_cut(question: str, context: list[SelectedSentence], limit: int) -> list[SelectedSentence]:
    """At most ``limit`` sentences, those sharing the most words with the question (order kept)."""
    if len(context) <= limit:
        return context
    recall = [_word_recall(question, s) for s in context]
    keep = set(np.argsort(-np.asarray(recall), kind="stable")[:limit].tolist())
    return [s for i, s in enumerate(context) if i in keep]
