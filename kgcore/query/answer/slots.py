"""Whether a span stands where the question's wh-phrase stands: the answer fills the question's gap.

A question's wh-phrase has a place in its parse: the object of a preposition ("*for which task* did BM25 work
better", "*by what factor* does it cut TTFT", "on top *of which engine* is it implemented"), or the subject or
object of a verb ("what technique does GFS *use*").  A sentence answers it most directly when a span of the
expected kind stands in the same place: "*For FEVER*, BM25 performs best", "reduces TTFT *by 2.2-3.3×*",
"we implement CacheBlend on top *of vLLM*", "we *use* standard copy-on-write *techniques*".  A sentence that
only repeats the question's words ("we replace RAG's retriever with a fixed BM25 system") holds its spans
elsewhere.  :func:`slot_match` scores that for the answer pick (:mod:`~kgcore.query.answer.weights`, ``slot``).

A question asking the size of something ("How large is the corpus?", "What chunk size is used?") is answered by
the span that says *that thing's* size: "the corpus *of about 100 million sentences*", not "the training set *of
0.6 million events*" (:mod:`~kgcore.query.answer.measured`); such a span fills the slot too, and the verdict
counts it (:data:`~kgcore.query.answer.verdict.MEASURED`).

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> gap = question_gap(nlp("For which task did a fixed BM25 retriever work better?"))
>>> gap
Gap(head='task', preposition='for', governor='', role='nsubj', measured=None)
>>> doc = nlp("For FEVER, BM25 performs best.")
>>> slot_match(doc, [(4, 9)], gap)
0.5
>>> gap = question_gap(nlp("On top of which LLM serving engine is CacheBlend implemented?"))
>>> slot_match(nlp("We implement CacheBlend on top of vLLM."), [(34, 38)], gap)
1.0
>>> gap = question_gap(nlp("What crime was Matthew Maule accused of?"))
>>> slot_match(nlp("He was executed for the crime of witchcraft."), [(33, 43)], gap)
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.index.qa.base import WH_WORDS
from kgcore.query.answer.measured import Measured, measured_noun, says_size
from kgcore.query.answer.span_tokens import of_apposition
from kgcore.query.answer.words import LIGHT_VERBS, stem

#: Roles of a verb's own arguments, compared with the governor's lemma.
_ARGUMENTS = frozenset(("nsubj", "nsubjpass", "dobj", "attr", "oprd", "dative"))
#: Prepositions so common that standing under one says little by itself.
_WEAK_PREPOSITIONS = frozenset(("of",))


@dataclass(frozen=True)
class Gap:
    """Where a question's wh-phrase stands: its head noun (``head``, lower-cased lemma; the wh-word itself when
    it stands alone), the preposition it is the object of (``preposition``, "" when none), the stem of the verb it
    hangs on (``governor``, "" when none) and its dependency ``role``."""

    head: str
    preposition: str
    governor: str
    role: str
    #: The thing whose size the question asks ("how large is *the corpus*", "what *chunk* size"; None when it asks
    #: none: :func:`~kgcore.query.answer.measured.measured_noun`).
    measured: Measured | None = None


def question_gap(q_doc) -> Gap | None:
    """The :class:`Gap` of the question's first wh-word (None without one or without a parse).  Read mostly from
    the words, since the small parser often misreads questions ("For which task did ... work": *did* the root,
    *work* a noun): the preposition right before the wh-word or stranded at the end, the last noun of the words
    after it ("which LLM serving *engine*", "how many *reviews*"), the first verb that is not a light one ("be",
    "do", ...)."""
    tokens = list(q_doc)
    at = next((k for k, t in enumerate(tokens) if t.lower_ in WH_WORDS), None)
    if at is None or not tokens[at].dep_:
        return None
    words = [t for t in tokens if not t.is_punct]
    if at and tokens[at - 1].pos_ == "ADP":
        preposition = tokens[at - 1].lower_
    else:  # stranded: "what were the embeddings trained *on*?"
        preposition = words[-1].lower_ if words and words[-1].pos_ == "ADP" else ""
    head = None
    for t in tokens[at + 1:]:
        if t.pos_ in ("NOUN", "PROPN"):
            head = t
        elif not (t.pos_ == "ADJ" or t.dep_ in ("amod", "compound", "npadvmod") or t.text == "-"):
            break
    verb = next((t for t in tokens if t.pos_ == "VERB" and t.dep_ != "amod"
                 and t.lemma_.lower() not in LIGHT_VERBS), None)
    return Gap(head.lemma_.lower() if head is not None else "", preposition,
               stem(verb.lemma_.lower()) if verb is not None else "", head.dep_ if head is not None else "",
               measured_noun(q_doc))


def _verb_above(token):
    """The nearest verb at or above ``token``'s head (None at the root without one)."""
    node = token
    while node.head.i != node.i:
        node = node.head
        if node.pos_ in ("VERB", "AUX"):
            return node
    return None


def slot_match(doc, spans: Sequence[tuple[int, int]], gap: Gap | None) -> float:
    """How well some span (character offsets into ``doc``) fills ``gap``: 1 when a span token stands under the
    same preposition and verb as the wh-phrase, is the same argument of the same verb, or is headed by the
    wh-phrase's own noun ("1,006 fake *reviews*" for "how many reviews", "the crime *of witchcraft*" for "what
    crime"); 0.5 under the same preposition (not
    "of") below another verb; else 0."""
    if gap is None or not spans:
        return 0.0
    if any(says_size(doc, span, gap.measured) for span in spans):
        return 1.0
    best = 0.0
    for token in doc:
        if not any(a <= token.idx < b for a, b in spans):
            continue
        best = max(best, _token_fit(token, gap))
    return best


def _token_fit(token, gap: Gap) -> float:
    verb = _verb_above(token)
    same_verb = bool(gap.governor) and verb is not None and stem(verb.lemma_.lower()) == gap.governor
    if gap.preposition and token.dep_ in ("pobj", "pcomp") and token.head.lower_ == gap.preposition:
        if same_verb or gap.preposition not in _WEAK_PREPOSITIONS:
            return 1.0 if same_verb else 0.5
        return 1.0 if _names_asked_noun(token, gap) else 0.0
    if gap.role in _ARGUMENTS and token.dep_ == gap.role and same_verb and token.head.i == verb.i:
        return 1.0
    if gap.head and gap.head not in WH_WORDS and token.pos_ == "NOUN" and token.lemma_.lower() == gap.head \
            and token.dep_ != "compound" and any(c.dep_ in ("nummod", "amod", "compound") for c in token.children):
        return 1.0
    return 1.0 if _names_asked_noun(token, gap) else 0.0


def _names_asked_noun(token, gap: Gap) -> bool:
    """Whether the token names the wh-phrase's noun through "of": "the crime *of witchcraft*" for "what crime"."""
    return bool(gap.head) and gap.head not in WH_WORDS and of_apposition(token) \
        and token.head.head.lemma_.lower() == gap.head
