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
0.6 million events*" (:func:`measured_noun`, :func:`measures_asked`); such a span fills the slot too, and the
verdict counts it (:data:`~kgcore.query.answer.verdict.MEASURED`).

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> gap = question_gap(nlp("For which task did a fixed BM25 retriever work better?"))
>>> gap
Gap(head='task', preposition='for', governor='', role='nsubj', measured='')
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
    #: The lemma of the thing whose size the question asks ("how large is *the corpus*", "what *chunk* size",
    #: "the length *of the chunks*"; :func:`measured_noun`), "" when it asks none.
    measured: str = ""


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
               measured_noun(tokens, at))


#: Nouns that name a measure of a thing: "the *size* of the chunks", "the chunk *length*".
MEASURES = frozenset("size length number amount count width height depth weight volume capacity".split())


def measured_noun(tokens: list, at: int) -> str:
    """The lemma of the noun whose measure a question asks (``at``: its wh-word): the subject of "be" after "how"
    and an adjective ("How large is *raw corpus* used for training?"; not when "be" says where or when: "how
    long was Clifford *in jail*" asks the stay's length), or what a measure noun (:data:`MEASURES`)
    measures -- its compound ("what *chunk* size") or the object of its "of" ("the size *of the chunks*"); ""
    when the question asks none.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [measured_noun(list(nlp(q)), 0) for q in ("How big is the Japanese data?", "What chunk size is used?",
    ...  "What is the maximum size of the chunks?", "How many reviews are there?", "How long was Clifford in jail?")]
    ['datum', 'chunk', 'chunk', '', '']
    """
    wh = tokens[at]
    if wh.lower_ == "how" and at + 2 < len(tokens) and tokens[at + 1].pos_ in ("ADJ", "ADV") \
            and tokens[at + 1].lower_ not in ("many", "much") and tokens[at + 2].lemma_.lower() == "be":
        be = tokens[at + 2]
        subject = [c for c in be.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")]
        if not subject or any(c.dep_ == "prep" for c in be.children):  # "how long was Clifford *in jail*"
            return ""
        return subject[0].lemma_.lower()
    for t in tokens[at + 1:]:
        if t.pos_ == "NOUN" and t.lemma_.lower() in MEASURES:
            measured = [c for c in t.children if c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN")]
            measured += [o for p in t.children if p.lower_ == "of" for o in p.children if o.dep_ == "pobj"]
            return measured[0].lemma_.lower() if measured else ""
    return ""


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
    best = 0.0
    for token in doc:
        if not any(a <= token.idx < b for a, b in spans):
            continue
        best = max(best, _token_fit(token, gap), float(_measures(token, gap.measured, spans)))
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


def measures_asked(doc, span: tuple[int, int], gap: Gap | None) -> bool:
    """Whether the span (character offsets into ``doc``) says the size of the thing the question measures
    (``gap.measured``: "*100 million sentences*" in "the corpus of about 100 million sentences" for "How large is
    the corpus?")."""
    start, end = span
    return gap is not None and any(_measures(t, gap.measured, [span]) for t in doc if start <= t.idx < end)


def _measures(token, measured: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether the token says the size of the ``measured`` thing: it is in that noun's phrase ("the corpus *of
    about 100 million sentences*", "chunks, each consisting *of 256 tokens*") or across a verb from it ("each
    tablet *is* approximately *100-200 MB*", "the corpus *holds* 2M words"); not another thing's size ("the
    training set *of 0.6 million events*"), nor a count of it inside the span ("*two sisters*" for "how old was the
    sister?").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("We split the corpus into chunks, each consisting of 256 tokens, and the set of 9 files.")
    >>> spans = [(52, 62), (79, 86)]  # "256 tokens", "9 files"
    >>> _measures(doc[10], "chunk", spans), _measures(doc[10], "corpus", spans)
    (True, False)
    >>> _measures(doc[17], "chunk", spans), _measures(doc[17], "file", spans)  # a conjunct's; a count of files
    (False, False)
    """
    if not measured:
        return False
    node = token
    for _ in range(8):
        if node.head.i == node.i or node.dep_ in ("relcl", "conj"):  # a clause or a conjunct of its own
            break
        node = node.head
        if node.lemma_.lower() == measured and not any(a <= node.idx < b for a, b in spans):
            return True
        if node.pos_ in ("VERB", "AUX") and node.dep_ != "acl":
            return any(c.dep_ in ("nsubj", "nsubjpass") and _refers_to(c, measured) for c in node.children)
    return False


#: Pronouns that stand for the noun they follow ("chunks, *each* consisting of 256 tokens").
DISTRIBUTIVE = frozenset(("each", "both", "all"))


def _refers_to(subject, measured: str) -> bool:
    """Whether a verb's subject is the measured noun, or a :data:`DISTRIBUTIVE` pronoun right after it."""
    if subject.lemma_.lower() == measured:
        return True
    if subject.lower_ not in DISTRIBUTIVE:
        return False
    before = [t for t in subject.doc[max(subject.i - 2, 0):subject.i] if not t.is_punct]
    return bool(before) and before[-1].lemma_.lower() == measured


def _names_asked_noun(token, gap: Gap) -> bool:
    """Whether the token names the wh-phrase's noun through "of": "the crime *of witchcraft*" for "what crime"."""
    return bool(gap.head) and gap.head not in WH_WORDS and of_apposition(token) \
        and token.head.head.lemma_.lower() == gap.head
