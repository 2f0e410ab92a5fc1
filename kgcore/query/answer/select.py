"""Which context sentences answer a question: the sentence scorer both offline answerers share.

Every context sentence is a candidate (the retrieval's rank is one feature among others: its three best
sentences, the former candidates, held the evidence for fewer design questions than the whole context).  Each
gets the features of :mod:`~kgcore.query.answer.weights` and is scored with its
:data:`~kgcore.query.answer.weights.RULES`:

* the question's content lemmas it holds (its written or coref-resolved text, compared by Porter stem),
  weighted as :func:`~kgcore.query.answer.words.question_term_weights` says and, in ``rare_overlap``, by how few
  candidates hold each (:func:`distinctive`); the words that only say what kind of answer is wanted are left out
  (:func:`asked_terms`: "which *engine*", "*roughly how large*");
* whether it holds a span of the kind the question asks for (:mod:`~kgcore.query.answer.expected`,
  :mod:`~kgcore.query.answer.spans`; for "what happened to X" only in a sentence that mentions X,
  :func:`action_focus`) and how closely that span hangs on the question's words (:func:`span_nearness`);
* its cosine to the question: the retrieval's own (``SelectedSentence.similarity``, the same embedder on the
  sentence's own words) when every sentence carries one, raised to the cosine of the coref-resolved text where
  that differs and is closer (a narrator's "I was born in 1632" says nothing of Crusoe until resolved); else
  the sentences are embedded here (a context longer than :data:`MAX_EMBEDDED`, e.g. a whole book from the "full"
  method, is first cut by word overlap);
* the retrieval's rank and signals.

Of the candidates, the :data:`SHORTLIST` best by cosine plus plain word overlap are parsed with spaCy.  The
extractive answerer quotes the best sentence's clause that holds its span (:mod:`~kgcore.query.answer.extractive`);
the ``qa-kg`` answerer adds each sentence's score to the score of the question–answer pairs grounded in it
(:mod:`~kgcore.query.answer.short`); the verdict checks the sentence an answer cites the same way
(:mod:`~kgcore.query.answer.verdict`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.types import SelectedSentence
from kgcore.query.answer.expected import KIND_WORDS, NAME_NOUNS, Expected, expected_answer
from kgcore.query.answer.people import OCCUPATION_WORDS, RELATION_WORDS
from kgcore.query.answer.roles import Frame, question_frame
from kgcore.query.answer.slots import Gap, question_gap, slot_match
from kgcore.query.answer.times import GRAINS
from kgcore.query.answer.typed import typed_spans
from kgcore.query.answer.weights import SHORT_WORDS, SIGNALS, Weights, current, sentence_features
from kgcore.query.answer.words import (
    STOPWORDS,
    content_words,
    question_term_weights,
    stem,
    stem_terms,
    stem_tokens,
    weighted_overlap,
)

#: The weight of the question-word overlap in the support score (:mod:`~kgcore.query.answer.calibration`) and in
#: the cheap first ranking of the candidates.
W_OVERLAP = 0.5
#: Sentences parsed with spaCy per question (after a cheap first ranking).
SHORTLIST = 80
#: Sentences embedded per question; longer contexts are cut by word overlap first.
MAX_EMBEDDED = 512
#: When every context sentence carries its retrieval rank, the answer is chosen among this many best-ranked
#: sentences (0: among all of them).  All: the rank is one feature among others (:mod:`~kgcore.query.answer.weights`);
#: the three best held the evidence for fewer questions than the whole context (bench/verdict_bench.py).
TOP_RANKED = 0


@dataclass(frozen=True)
class Question:
    """A parsed question: its spaCy doc, weighted content lemmas and expected answer."""

    doc: object
    terms: dict[str, float]
    qtype: str | None
    #: For an action question, whom the action concerns (:func:`action_focus`).
    focus: frozenset[str] = frozenset()
    #: The expected answer's kind and the noun it asks about (:mod:`~kgcore.query.answer.expected`).
    expected: Expected = Expected(None)
    #: Where the wh-phrase stands (:mod:`~kgcore.query.answer.slots`).
    gap: Gap | None = None
    #: Its role relative to the question's verb (:mod:`~kgcore.query.answer.roles`), which the verdict checks.
    frame: Frame | None = None

    @classmethod
    def parse(cls, question: str, nlp) -> Question:
        doc = nlp(question)
        expected = expected_answer(doc)
        focus = action_focus(doc) if expected.kind == "action" else frozenset()
        # no answer says "related"; a yes/no question's wh-word is inside a clause ("Are X robust to *where* ...?")
        frame = None if expected.kind in ("relation", "yes/no") else question_frame(doc)
        return cls(doc, asked_terms(doc, expected), expected.kind, focus, expected, question_gap(doc), frame)


#: Per asked kind, the question's words that only say what is asked, which the answer need not repeat ("how are
#: they *related*", "what is her *job*").
KIND_SAYING = {"relation": RELATION_WORDS, "occupation": OCCUPATION_WORDS}
#: Words that hedge a quantity ("roughly how large"): they say how exact the answer is, not what it is about.
HEDGES = frozenset("roughly approximately about around nearly almost exactly typically usually".split())


def asked_terms(q_doc, expected: Expected) -> dict[str, float]:
    """The question's weighted content lemmas (:func:`~kgcore.query.answer.words.question_term_weights`) without
    the words that say what kind of answer is wanted, which the answering sentence need not repeat: the asked
    noun of a name or quantity question ("which *engine*", "what chunk *size*"), the calendar unit of a time
    question ("in what *month*"), the adjective of "how large / long / many", a hedge ("*roughly* how large"), a
    word that frames the asked noun (:func:`framing_words`: "what *type* of pet", "the *name* of the school") and
    the words that ask for a relation or an occupation ("how are they *related*", "what is her *job*") -- when
    some word is left, or whatever is left for those two kinds (the span decides "what was his job?")."""
    terms = question_term_weights(q_doc)
    words = [t.lower_ for t in q_doc]
    if expected.kind not in ("name", "number"):
        said = framing_words(words) | KIND_SAYING.get(expected.kind or "", set()) | (
            {expected.noun} if expected.kind == "time" and expected.noun in GRAINS else set())  # "in what *month*"
        kept = {t: w for t, w in terms.items() if t not in said}
        return kept if kept or expected.kind in KIND_SAYING else terms  # "what was his job?": the span decides
    after_how = {words[i + 1] for i, w in enumerate(words[:-1]) if w == "how"}
    kind_words = {expected.noun} | after_how | HEDGES | framing_words(words)
    kept = {t: w for t, w in terms.items() if t not in kind_words}
    return kept or terms


def framing_words(words: Sequence[str]) -> set[str]:
    """The words that frame a question's asked noun: a kind or name word followed by "of" ("what *type* of pet",
    "the *name* of the school"), not the same word used for itself ("which *word* embeddings").

    >>> sorted(framing_words("what type of pet does he keep".split())), framing_words("which word embeddings".split())
    (['type'], set())
    """
    return {w for w, after in zip(words, [*words[1:], ""]) if after == "of" and w in KIND_WORDS | NAME_NOUNS}


@dataclass(frozen=True)
class ScoredSentence:
    """One context sentence's score for a question, with its parts."""

    sentence: SelectedSentence
    score: float
    cosine: float
    overlap: float
    type_match: bool
    #: Character spans of the sentence's written text that hold the expected answer (:func:`typed_spans`).
    spans: tuple[tuple[int, int], ...] = ()
    #: Per span, the words coreference puts in its place when only the resolved text names the answer ("Tomas"
    #: for "He"); "" for a span of the written text.
    referents: tuple[str, ...] = ()
    #: Per span, whether it is only a plain noun phrase the sentence introduces, not one it names as the asked thing
    #: (:func:`~kgcore.query.answer.spans.found_spans`).
    plain: tuple[bool, ...] = ()
    #: The question's content lemmas found in the sentence (written or resolved text).
    matched: tuple[str, ...] = ()
    #: The features the score weighs (:data:`~kgcore.query.answer.weights.FEATURES`).
    features: dict[str, float] = field(default_factory=dict)


def score_sentences(question: str, parsed: Question, context: Sequence[SelectedSentence], nlp,
                    embedder: Embedder, weights: Weights | None = None,
                    must: Collection[str] = ()) -> list[ScoredSentence]:
    """The candidate sentences of ``context`` scored for ``question`` with ``weights`` (default
    :func:`~kgcore.query.answer.weights.current`), best first (ties: earlier in the context): the
    :data:`TOP_RANKED` best-ranked when the retrieval ranked them all (all with 0), of which the
    :data:`SHORTLIST` best by cosine plus plain word overlap are parsed, and the sentences whose ids are in
    ``must`` (those an answer cites, for its verdict).  ``context`` must not be empty."""
    weights = weights or current()
    ranked = best_ranked(context, TOP_RANKED)
    ranked += [s for s in context if s.id in must and s not in ranked]
    candidates = _cheap_cut(question, ranked, MAX_EMBEDDED, must)
    cos = cosines(question, candidates, embedder)
    cheap = [float(c) + W_OVERLAP * _word_recall(question, s) + (10.0 if s.id in must else 0.0)
             for c, s in zip(cos, candidates)]
    shortlist = np.argsort(-np.asarray(cheap), kind="stable")[:max(SHORTLIST, len(must))]
    if retrieval_cosines(candidates):  # of the sentences' own words; else ``cosines`` embedded the resolved texts
        cos = with_resolved(question, candidates, cos, shortlist, embedder)
    texts = [t for i in shortlist for t in (candidates[i].text, candidates[i].resolved or candidates[i].text)]
    docs = list(nlp.pipe(texts))
    founds = [set(stem_tokens(docs[2 * k])) | set(stem_tokens(docs[2 * k + 1])) for k in range(len(shortlist))]
    terms = stem_terms(parsed.terms)
    rare = distinctive(terms, founds)
    rows = []
    for k, i in enumerate(shortlist):
        original, resolved, found = docs[2 * k], docs[2 * k + 1], founds[k]
        named = typed_spans(original, resolved, parsed.expected, parsed.doc)
        spans = nearest_first(original, tuple(named), terms)
        typed = bool(spans) and not {stem(f) for f in parsed.focus} - found
        rows.append((candidates[i], float(cos[i]), weighted_overlap(terms, found),
                     weighted_overlap(rare, found), typed, (spans, tuple(named[x][0] for x in spans),
                                                           tuple(named[x][1] for x in spans)),
                     tuple(t for t in parsed.terms if stem(t) in found),
                     is_heading(original), span_nearness(original, spans[:1], terms) if typed else 0.0,
                     slot_match(original, spans, parsed.gap) if typed else 0.0))
    best_cos, best_overlap = max(r[1] for r in rows), max(r[2] for r in rows)
    scored = []
    for sentence, cosine, overlap, rare_overlap, typed, (spans, referents, plain), matched, heading, near, slot \
            in rows:
        features = sentence_features(parsed.qtype, cosine, overlap, rare_overlap, typed, sentence.rank, heading,
                                     best_cos, best_overlap)
        features.update(near=near, slot=slot, **{k: float(sentence.signals.get(k, 0.0)) for k in SIGNALS})
        scored.append(ScoredSentence(sentence, weights.score(features), cosine, overlap, typed, spans, referents,
                                     plain, matched, features))
    return sorted(scored, key=lambda s: (-s.score, s.sentence.position))


def is_heading(doc) -> bool:
    """Whether a parsed sentence reads as a heading or a label: at most :data:`SHORT_WORDS` tokens and no verb
    ("Results and Discussion", "Table 2"); a short sentence with a verb ("It is painted blue.") is a statement,
    which the ``short`` feature (:mod:`~kgcore.query.answer.weights`) must not hold back.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> is_heading(nlp("Results and Discussion")), is_heading(nlp("It is painted blue."))
    (True, False)
    """
    return len(doc) <= SHORT_WORDS and not any(t.pos_ in ("VERB", "AUX") for t in doc)


def distinctive(terms: dict[str, float], founds: Sequence[set[str]]) -> dict[str, float]:
    """The question's term weights times each term's inverse frequency among the candidate sentences
    (``log((n + 1) / (df + 0.5))``): a word of the question every context sentence holds (the paper's subject)
    tells them apart less than one only the answer's sentence holds.

    >>> w = distinctive({"chunk": 1.0, "realm": 1.0}, [{"realm", "chunk"}, {"realm"}, {"realm"}])
    >>> w["chunk"] > w["realm"]
    True
    """
    n = len(founds)
    return {t: w * float(np.log((n + 1) / (sum(t in f for f in founds) + 0.5))) for t, w in terms.items()}


def nearest_first(doc, spans: tuple[tuple[int, int], ...], stems: Collection[str]) -> tuple[tuple[int, int], ...]:
    """The spans, the one hanging most closely on the question's words first (:func:`span_nearness`): "standard
    copy-on-write techniques" before "AFS" for "What technique does GFS use for snapshots?".  Between spans that
    hang as closely on their nearest word, the one more of the question's words are attached to comes first
    (:func:`attached_words`; then their order): "187 surges" before "214 surges" in "We found 214 surges at
    Anstruther and 187 surges at Crail." for "How many surges were found at Crail?"."""
    if len(spans) < 2:
        return spans
    return tuple(sorted(spans, key=lambda span: (-span_nearness(doc, [span], stems),
                                                 -len(attached_words(doc, span) & set(stems)))))


def attached_words(doc, span: tuple[int, int]) -> set[str]:
    """The stems of the words a span is said with: its phrase's own modifiers (the subtree of its head token, not
    into a conjoined phrase), the verb it hangs on (climbing through conjoined phrases, which share it) and, when
    the span is that verb's own argument, the verb's other modifiers ("*in 1923* nine boats sank").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("We found 214 surges at Anstruther and 187 surges at Crail.")
    >>> sorted(attached_words(doc, (9, 19))), sorted(attached_words(doc, (38, 48)))
    (['anstruth', 'find'], ['crail', 'find'])
    >>> boats = load_spacy()("In 1922 four boats sank, and in 1923 nine boats sank.")
    >>> sorted(attached_words(boats, (8, 18))), sorted(attached_words(boats, (37, 47)))
    (['1922', 'sink'], ['1923', 'sink'])
    """
    inside = [t for t in doc if span[0] <= t.idx < span[1]]
    heads = [t for t in inside if t.head not in inside or t.head.i == t.i]
    if not heads:
        return set()
    head = heads[0]
    words = _phrase(head)
    node, crossed = head, False
    while node.head.i != node.i and node.pos_ not in ("VERB", "AUX"):
        crossed, node = crossed or node.dep_ == "conj", node.head
    if node is not head and node.pos_ in ("VERB", "AUX"):
        words.add(node)
        if not crossed:  # the verb's own modifiers, when the span is its argument, not a conjunct of one
            for child in node.children:
                if child.dep_ not in ("conj", "cc") and head not in child.subtree:
                    words |= {child} | _phrase(child)
    return {stem(t.lemma_.lower()) for t in words if t not in inside and not t.is_punct and t.lower_ not in STOPWORDS}


def _phrase(token) -> set:
    """The tokens below ``token``, not into a conjoined phrase."""
    words, stack = set(), [c for c in token.children if c.dep_ not in ("conj", "cc")]
    while stack:
        child = stack.pop()
        words.add(child)
        stack.extend(c for c in child.children if c.dep_ not in ("conj", "cc"))
    return words


def span_nearness(doc, spans: Sequence[tuple[int, int]], stems: Collection[str]) -> float:
    """How closely a span of the expected answer hangs on the question's words in the sentence's parse:
    ``1 / (1 + d)`` for the shortest dependency path ``d`` between a span token and a token whose
    stem is a question term, within the span too (0 without either).  "each consisting of 256 tokens" hangs on
    "chunks" (d = 3); "Poll" in "named the parrot Poll" on "parrot" (d = 1)."""
    asked = [t for t in doc if not t.is_punct and stem(t.lemma_.lower()) in stems]
    inside = [t for t in doc if any(a <= t.idx < b for a, b in spans) and t not in asked]
    if not inside or not asked:
        return 0.0
    return max(1.0 / (1.0 + _tree_distance(a, b)) for a in inside[:12] for b in asked[:12])


def _tree_distance(a, b) -> int:
    up = {a.i: 0}
    node, depth = a, 0
    while node.head.i != node.i:
        node, depth = node.head, depth + 1
        up[node.i] = depth
    node, depth = b, 0
    while node.i not in up and node.head.i != node.i:
        node, depth = node.head, depth + 1
    return depth + up.get(node.i, len(up))


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
    """What the question asks for (:func:`~kgcore.query.answer.expected.expected_answer`'s kind)."""
    return expected_answer(q_doc).kind


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


def _cheap_cut(question: str, context: list[SelectedSentence], limit: int, must: Collection[str] = ()
               ) -> list[SelectedSentence]:
    """At most ``limit`` sentences, those in ``must`` and those sharing the most words with the question (order
    kept)."""
    if len(context) <= limit:
        return context
    recall = [_word_recall(question, s) + (10.0 if s.id in must else 0.0) for s in context]
    keep = set(np.argsort(-np.asarray(recall), kind="stable")[:limit].tolist())
    return [s for i, s in enumerate(context) if i in keep]
