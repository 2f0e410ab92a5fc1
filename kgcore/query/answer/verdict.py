"""The verdict on an answer: supported, not supported or unsure, with the evidence checked and why.

Every answerer's answer is judged the same way, claim by claim: a claim is one answer sentence with the context
sentences it cites (the extractive answerer's quote is one claim citing the sentence it quotes; an LLM's answer
is split into sentences and each is linked to what it cites, :func:`~kgcore.query.answer.citations.cite`).

1. **Grounding** (generated claims only; a quote is its sentence's own words): the share of the claim's content
   words found in the sentences it cites.  Below :data:`GROUNDED_UNSURE` the claim says something the document
   does not, and the answer is *not supported*; below :data:`GROUNDED` it is at best *unsure*.
2. **Answering**: of the cited sentences, the one that best answers the question is checked as the offline
   answerers choose sentences (:mod:`~kgcore.query.answer.select`, :mod:`~kgcore.query.answer.weights`): which of
   the question's words it holds, weighted by how few other context sentences hold them, whether it holds a
   span of the kind the question asks for (:mod:`~kgcore.query.answer.expected`,
   :mod:`~kgcore.query.answer.spans`: a quantity for "how large", a name or term for "what technique") and how
   closely that span hangs on the question's words, its cosine and the retrieval's rank -- its *answer score*;
   and which question it answers: the questions generated from its frames (:mod:`kgcore.index.qa.frames`,
   each answered by the sentence by construction) are compared with the asked one, and the closest cosine
   counts (``question_cosine``).  For a generated claim the span must also be in the claim.
3. **State**: a claim whose sentence (for a generated claim: the claim itself) holds no span of the asked
   kind, when the question asks for a quantity, time, person, place, relation or occupation, is *not supported*;
   otherwise the claim's *strength* is its answer score plus that cosine, plus :data:`FIGURE` when a quantity,
   time or name question is answered by a span written in figures (:func:`figure_bonus`), plus :data:`MEASURED`
   when the span says the size of the thing the question measures ("How large is the corpus?" / "the corpus of
   about 100 million sentences": :func:`~kgcore.query.answer.measured.says_size`): *supported* at or above
   :data:`SUPPORTED_FROM`, *not supported* below :data:`REFUSED_BELOW`, *unsure* between.  A claim the
   strength would call supported is *unsure* when its sentence does not hold the answer in the role the
   question asks about (:mod:`~kgcore.query.answer.roles`: "He was more engaged with Louisa than with
   Henrietta" holds every word of "Who does Louisa become engaged to?" and a person, but not the one she is
   engaged *to*) -- unless the answer is such a figure: papers say the question's verb in other words
   ("cut the time by what factor?" / "reduces the time by 2.2-3.3x"), so the roles, read through that verb,
   are not found -- but not a figure said of another act of the question's own subject ("When did Margaret
   leave?" / "Margaret arrived ... on 14 March 1923": :func:`~kgcore.query.answer.roles.another_act`).  It is
   *unsure* too when the question restricts its act to one occasion the sentence does not say ("Who *originally*
   owned the house?" / "Judge Pyncheon, who owns the house": :mod:`~kgcore.query.answer.occasion`), and when a
   why-question's sentence gives no reason.  The answer's state is its best claim's, lowered by any claim that
   is not grounded.

The thresholds were chosen on the design questions of ``bench/verdict_bench.py`` (papers, QASPER, NarrativeQA
design books): the best worst-set balanced accuracy with at most 30 % unsure on every set.  Re-measured on a grid
(``bench/experiments/verdict_thresholds.py``), the band where the three sets' mean peaks (2.3 / 2.5) gained on
the design papers and QASPER but not on the held-out sets, so this one stays (``docs/verdict.md``).  The reason names
what was checked: the sentence, the question's words it holds, the span of the asked kind (or that there is
none), the closest question generated from its parse and the strength against the thresholds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from kgcore.core.types import Answer, Citation, SelectedSentence, Sentence
from kgcore.core.verdicts import ClaimCheck, Verdict
from kgcore.index.qa import FrameQAGenerator
from kgcore.index.qa.frames import frame_analyses
from kgcore.query.answer.authorship import authorship_check
from kgcore.query.answer.citations import strip_markers
from kgcore.query.answer.measured import says_size
from kgcore.query.answer.occasion import missing_occasion
from kgcore.query.answer.roles import another_act, fills_frame
from kgcore.query.answer.select import Question, ScoredSentence, score_sentences
from kgcore.query.answer.spans import answer_spans
from kgcore.query.answer.weights import SPECIFIC
from kgcore.query.answer.words import STOPWORDS, content_words
from kgcore.query.answer.written import found_words, how_written

SUPPORTED_FROM = 2.6
REFUSED_BELOW = 2.4
GROUNDED = 0.6
#: Added to the strength when a question asking for a quantity, a time or a name (:data:`FIGURED`) is answered by
#: a span holding figures ("288 BERT wordpieces", "2.2–3.3×", "September 26, 2023", "CoNLL-2003"): chosen on the
#: design questions (``docs/verdict.md``, *A figure of the asked kind*).
FIGURE = 0.75
FIGURED = frozenset(("number", "time", "name"))
#: Added to the strength when the span says the size of the very thing the question measures ("How large is the
#: corpus?" / "the corpus *of about 100 million sentences*": :func:`~kgcore.query.answer.measured.says_size`), which
#: the questions generated from the sentence's frames rarely ask ("What did each consist of?"); the answer pick's
#: ``slot`` weight, chosen on the design questions (``docs/verdict.md``, *The measured thing*).
MEASURED = 0.5
GROUNDED_UNSURE = 0.3
NOT_SUPPORTED = "Not supported by the document"
METHOD = (f"strength (answer score + cosine of the closest question the sentence answers): supported from "
          f"{SUPPORTED_FROM}, not supported below {REFUSED_BELOW}")
_ORDER = {"not supported": 0, "unsure": 1, "supported": 2}
_TOKEN = re.compile(r"[a-z0-9]+")
_DIGIT = re.compile(r"\d")


def judge(question: str, answer: Answer, context: Sequence[SelectedSentence], nlp, embedder,
          scored: Sequence[ScoredSentence] | None = None, quoted: bool = False, parsed: Question | None = None
          ) -> Verdict:
    """The verdict on ``answer`` to ``question`` over ``context``.  ``scored``: the context's sentences as the
    answerer scored them (scored here when missing or lacking a cited sentence); ``quoted``: the answer quotes
    its sentences (no grounding to check); ``parsed``: the question as the answerer parsed it (parsed here when
    None)."""
    if (authored := authorship_check(question, answer, context)) is not None:
        return authored  # who wrote the document: its author lines say so, or nothing does
    by_id = {s.id: s for s in context}
    claims = [c for c in answer.citations if strip_markers(c.answer_sentence).strip()]
    cited = list(dict.fromkeys(i for c in claims for i in c.sentence_ids if i in by_id))
    if not cited:
        checks = [ClaimCheck(strip_markers(c.answer_sentence), state="not supported") for c in claims]
        return Verdict("not supported", f"{NOT_SUPPORTED}: the answer cites no retrieved sentence.", checks,
                       method=METHOD)
    parsed = parsed if parsed is not None else Question.parse(question, nlp)
    found = {s.sentence.id: s for s in scored or []}
    if any(i not in found for i in cited):
        found.update({s.sentence.id: s for s in score_sentences(question, parsed, context, nlp, embedder,
                                                                must=set(cited))})
    matches = answered_questions(question, [by_id[i] for i in cited], nlp, embedder)
    checks = [check_claim(c, by_id, found, matches, parsed, quoted, nlp) for c in claims]
    return decide(checks, parsed)


def answered_questions(question: str, sentences: Sequence[SelectedSentence], nlp, embedder
                       ) -> dict[str, tuple[str, float]]:
    """Per sentence: the question generated from its frames that is closest to ``question``, and their cosine."""
    rows = [Sentence(s.id, 0, 0, s.position, s.text, s.text, s.resolved or s.text, s.document, role=s.role)
            for s in sentences]
    pairs = FrameQAGenerator().generate(rows, frame_analyses(rows, {}, nlp))
    if not pairs:
        return {}
    vectors = embedder.encode([question] + [p.question for p in pairs])
    cosines = vectors[1:] @ vectors[0]
    best: dict[str, tuple[str, float]] = {}
    for pair, cosine in zip(pairs, np.asarray(cosines, dtype=float)):
        if pair.sentence_id not in best or cosine > best[pair.sentence_id][1]:
            best[pair.sentence_id] = (pair.question, round(float(cosine), 3))
    return best


def check_claim(citation: Citation, by_id: dict[str, SelectedSentence], found: dict[str, ScoredSentence],
                matches: dict[str, tuple[str, float]], parsed: Question, quoted: bool, nlp) -> ClaimCheck:
    """One claim checked against the cited sentence that best answers the question."""
    claim = strip_markers(citation.answer_sentence)
    options = [found[i] for i in citation.sentence_ids if i in found]
    if not options:
        return ClaimCheck(claim, state="not supported")
    best = max(options, key=lambda s: s.score + matches.get(s.sentence.id, ("", 0.0))[1])
    text = best.sentence.text
    grounded = None if quoted else grounding(claim, [by_id[i] for i in citation.sentence_ids if i in by_id])
    spans = list(best.spans) if quoted else [s for s in best.spans if _in_claim(text[s[0]:s[1]], claim)]
    if not quoted and not spans and best.spans and _claim_has_kind(claim, parsed, nlp):
        spans = list(best.spans)  # the claim names one in its own words
    spans.sort(key=lambda s: not figure_bonus(parsed.qtype, text[s[0]:s[1]]))  # a figure first (stable)
    start, end = spans[0] if spans else (-1, -1)
    asked, cosine = matches.get(best.sentence.id, ("", 0.0))
    bonus = figure_bonus(parsed.qtype, text[start:end]) if spans else 0.0
    thing = parsed.gap.measured if parsed.gap is not None and spans else None
    measured = thing.words if thing is not None and says_size(nlp(text), (start, end), thing) else ""
    strength = round(best.score + cosine + bonus + (MEASURED if measured else 0.0), 3)
    written_as, through_coreference, word_spans = how_written(best.matched, text, nlp)
    check = ClaimCheck(claim, best.sentence.id, text, list(best.matched),
                       [t for t in parsed.terms if t not in best.matched], parsed.expected.describe(),
                       text[start:end] if spans else "", start, end, None if grounded is None else round(grounded, 3),
                       asked, cosine if asked else None, "unsure", strength, measured=measured,
                       span_refers=dict(zip(best.spans, best.referents)).get((start, end), ""),
                       span_introduced=dict(zip(best.spans, best.plain)).get((start, end), False),
                       written_as=written_as, through_coreference=through_coreference, word_spans=word_spans)
    if not spans and parsed.qtype in SPECIFIC:
        check.believed = believed_span(text, parsed, nlp)
    check.state = claim_state(check, parsed.qtype in SPECIFIC, parsed.qtype == "reason")
    if check.state == "supported":
        lower_unchecked(check, parsed, best, spans, nlp)
    return check


def lower_unchecked(check: ClaimCheck, parsed: Question, best: ScoredSentence, spans: Sequence[tuple[int, int]],
                    nlp) -> None:
    """Make a supported ``check`` unsure when its sentence does not hold the answer in the role the question asks
    about (a figure stands, unless said of another act: :func:`roles_line_up`) or does not say the occasion the
    question restricts its act to (:mod:`~kgcore.query.answer.occasion`)."""
    doc = nlp(best.sentence.text)
    figure = bool(spans) and bool(figure_bonus(parsed.qtype, check.span))
    if (not figure or another_act(parsed.frame, doc, spans, parsed.doc)) \
            and not roles_line_up(parsed, best, spans, nlp):
        check.state, check.unfilled_role = "unsure", parsed.frame.describe() if parsed.frame else ""
    elif occasion := missing_occasion(parsed.doc, doc):
        check.state, check.occasion = "unsure", occasion


def believed_span(text: str, parsed: Question, nlp) -> str:
    """The first span of the asked kind ``text`` holds only inside what someone believes, or "".

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> believed_span("McGregor was sure that Peter was in the shed.", Question.parse("Where was Peter?", nlp), nlp)
    'in the shed'
    """
    doc = nlp(text)
    spans = answer_spans(list(doc), parsed.expected, parsed.doc, beliefs=True)
    return doc[spans[0][0]:spans[0][1]].text if spans else ""


def roles_line_up(parsed: Question, best: ScoredSentence, spans: Sequence[tuple[int, int]], nlp) -> bool:
    """Whether the sentence holds the answer in the role the question's wh-phrase has relative to its verb
    (:func:`~kgcore.query.answer.roles.fills_frame`; without a span of the asked kind, whether it has the
    question's verb with the question's subject; True when the question has no frame)."""
    frame = parsed.frame
    if frame is None:
        return True
    sentence = best.sentence
    resolved = nlp(sentence.resolved) if sentence.resolved and sentence.resolved != sentence.text else None
    return fills_frame(frame, nlp(sentence.text), spans, resolved)


def figure_bonus(qtype: str | None, span: str) -> float:
    """:data:`FIGURE` when ``span`` answers a quantity, time or name question (``qtype``) with figures, else 0.

    A figure is rare in a sentence, and one of the asked kind in a sentence holding the question's words is the
    answer's shape even when the question's other words are said differently ("What is the maximum size of the
    chunks?" / "split into chunks of up to 288 BERT wordpieces"); so is a name holding figures, which a paper
    introduces for one thing ("CoNLL-2003", "gpt-3.5-turbo-16k").  A number said in words ("one day") is as
    common in any sentence as it is in the answering one, and a plain name ("Henrietta") is what a novel's wrong
    sentences hold too.

    >>> figure_bonus("number", "288 BERT wordpieces"), figure_bonus("number", "one day")
    (0.75, 0.0)
    >>> figure_bonus("name", "T5-11B"), figure_bonus("time", "September 26, 2023"), figure_bonus("person", "Anne")
    (0.75, 0.75, 0.0)
    """
    return FIGURE if qtype in FIGURED and _DIGIT.search(span) else 0.0


def claim_state(check: ClaimCheck, specific: bool = False, why: bool = False) -> str:
    """The state of one claim: by its grounding, by the span a ``specific`` question (a quantity, time, person,
    place, relation or occupation) needs, at most unsure when the question has no word besides what it asks for
    ("What was his job?") or when a ``why`` question's sentence gives no reason (a reason may go unmarked, but
    a sentence holding the question's words and no "because", "so", "for the crime" or purpose infinitive does
    not show it), then by its strength."""
    if check.grounded is not None and check.grounded < GROUNDED_UNSURE:
        return "not supported"
    if specific and not check.span:
        return "not supported"
    if check.span and not check.matched and not check.missing:  # "What was his job?": whose, the question hides
        return "unsure"
    if why and not check.span and (check.strength or 0.0) >= SUPPORTED_FROM:
        return "unsure"
    strength = check.strength or 0.0
    state = "supported" if strength >= SUPPORTED_FROM else "not supported" if strength < REFUSED_BELOW else "unsure"
    if state == "supported" and check.grounded is not None and check.grounded < GROUNDED:
        return "unsure"
    return state


def decide(checks: list[ClaimCheck], parsed: Question) -> Verdict:
    """The answer's verdict from its claims': the best claim's state, lowered by a claim not grounded."""
    answering = [c for c in checks if c.sentence_id] or checks
    best = max(answering, key=lambda c: (_ORDER[c.state], c.strength or 0.0))
    ungrounded = [c for c in checks if c.grounded is not None and c.grounded < GROUNDED_UNSURE]
    if ungrounded:
        c = ungrounded[0]
        return Verdict("not supported", f"{NOT_SUPPORTED}: the claim “{c.claim}” is not in the sentence it cites "
                                        f"({c.sentence_id}: {c.grounded:.0%} of its words).", checks, best.strength,
                       METHOD)
    weak = [c for c in checks if c.grounded is not None and c.grounded < GROUNDED]
    state = "unsure" if weak and best.state == "supported" else best.state
    return Verdict(state, reason(best, state, parsed, weak), checks, best.strength, METHOD)


def reason(check: ClaimCheck, state: str, parsed: Question, weak: Sequence[ClaimCheck] = ()) -> str:
    """The verdict's reason: what was checked in which sentence, and the figure that decided."""
    asked = parsed.expected
    words = (f"{len(check.matched)} of {len(check.matched) + len(check.missing)} of the question's words"
             + (f" ({found_words(check)})" if check.matched else ""))
    if check.span:
        refers = f" (coreference: “{check.span_refers}”)" if check.span_refers else ""
        kind = (f"a term the sentence introduces, where the question asks for {asked.describe()}"
                if check.span_introduced else f"{asked.describe()} as the question asks")
        held = (f"holds “{check.span}”{refers}, {kind}, and {words}" if check.matched or check.missing
                else f"holds “{check.span}”{refers}, {kind}; the question has no other word to look for")
        if figure_bonus(parsed.qtype, check.span):
            held += f" (written with figures: +{FIGURE} to the strength)"
        if check.measured:
            held += f" (a measure of the “{check.measured}” the question asks about: +{MEASURED} to the strength)"
    elif asked.kind in SPECIFIC:
        kind = asked.describe().removeprefix("a ").removeprefix("an ")
        belief = (f" stated as fact (“{check.believed}” is only what the sentence says someone believes)"
                  if check.believed else "")
        held = f"holds no {kind}{belief}, which the question asks for, and {words}"
    elif asked.kind == "reason":
        held = f"holds no reason (“because”, “so”, “for” after a verb of judging, a purpose “to …”) and {words}"
    else:
        held = f"holds {words}"
    answers = (f"; the closest question generated from its parse is “{check.answers_question}” (cosine "
               f"{check.question_cosine:.2f} to the question)"
               if check.answers_question and check.question_cosine is not None else "")
    head = {"supported": "Supported", "not supported": NOT_SUPPORTED, "unsure": "Unsure"}[state]
    where = {"supported": f"≥ {SUPPORTED_FROM}", "not supported": f"< {REFUSED_BELOW}",
             "unsure": f"between {REFUSED_BELOW} and {SUPPORTED_FROM}: check the sentence"}[state]
    strength = check.strength or 0.0
    if check.unfilled_role:
        where = (f"≥ {SUPPORTED_FROM}, but nothing in it stands where the question asks ({check.unfilled_role}): "
                 "check who did what to whom")
    elif check.occasion:
        where = (f"≥ {SUPPORTED_FROM}, but it does not say “{check.occasion}” as the question does: check that it "
                 "tells of the same occasion")
    elif state == "not supported" and strength >= REFUSED_BELOW:  # refused for the missing span, not the strength
        where = f"≥ {REFUSED_BELOW}, but without what the question asks for the answer is not supported"
    elif state == "unsure" and not check.matched and not check.missing:
        where = "(the question does not say whose it is): check whom the sentence is about"
    elif state == "unsure" and strength >= SUPPORTED_FROM and asked.kind == "reason" and not check.span:
        where = f"≥ {SUPPORTED_FROM}, but without a reason in the sentence the answer is at best unsure"
    elif state == "unsure" and strength >= SUPPORTED_FROM:  # lowered by a claim only partly in what it cites
        where = f"≥ {SUPPORTED_FROM}, but a claim is not grounded well enough to be supported"
    shown = shown_strength(strength, REFUSED_BELOW if state == "not supported" else SUPPORTED_FROM)
    text = f"{head}: cited sentence {check.sentence_id} {held}{answers}; strength {shown} {where}."
    if weak:
        text += f" A claim is only partly in what it cites (“{weak[0].claim}”: {weak[0].grounded:.0%} of its words)."
    return text


def shown_strength(strength: float, threshold: float) -> str:
    """The strength as a reason writes it: two decimals, three where two would look equal to the threshold it is
    compared with ("2.397 < 2.4", not "2.40 < 2.4").

    >>> shown_strength(3.2999, 2.6), shown_strength(2.397, 2.4), shown_strength(2.4, 2.4)
    ('3.30', '2.397', '2.40')
    """
    shown = f"{strength:.2f}"
    return f"{strength:.3f}" if strength != threshold and shown == f"{threshold:.2f}" else shown


def grounding(claim: str, sentences: Sequence[SelectedSentence]) -> float:
    """The share of the claim's content words found in the sentences it cites (written or resolved text).

    >>> s = [SelectedSentence("s1", 1, "Raft uses joint consensus.", "")]
    >>> grounding("Raft changes membership with joint consensus.", s)
    0.6
    """
    words = content_words(claim)
    if not words:
        return 1.0
    held = set().union(*(content_words(f"{s.text} {s.resolved}") for s in sentences)) if sentences else set()
    return len(words & held) / len(words)


def with_verdict(answer: Answer, verdict: Verdict) -> Answer:
    """``answer`` carrying ``verdict``, and the support fields that mirror it (``supported`` is None: unsure)."""
    supported = {"supported": True, "not supported": False}.get(verdict.state)
    return dataclasses.replace(answer, verdict=verdict, supported=supported, support_reason=verdict.reason,
                               support_score=verdict.score)


def _in_claim(span: str, claim: str) -> bool:
    """Whether the span's words (numbers too) are in the claim.

    >>> _in_claim("2.2-3.3×", "It is 2.2-3.3 times faster."), _in_claim("joint consensus", "It uses a log.")
    (True, False)
    """
    words = set(_TOKEN.findall(span.lower())) - STOPWORDS
    return bool(words) and words <= set(_TOKEN.findall(claim.lower()))


def _claim_has_kind(claim: str, parsed: Question, nlp) -> bool:
    return bool(answer_spans(list(nlp(claim)), parsed.expected, parsed.doc))
