"""Offline extractive answers: the clause of the context that best answers the question.

No LLM is involved.  The context sentences are scored for the question by the shared sentence scorer
(:mod:`~kgcore.query.answer.select`: cosine of the sentence's own words or of its coref-resolved text, weighted
question-word overlap, answer-type match, among the retrieval's best-ranked sentences); the best one is quoted,
trimmed to the clause that keeps all of its evidence (:func:`~kgcore.query.answer.clauses.best_clause`).  A
sentence that ends in a colon ("One evening paper alone ... said:") is quoted whole with the sentence it introduces,
when the context holds it (:func:`introduced`; on the dev sets one Phantom question, nothing else changed).

With ``by_pairs`` (not the default: :data:`BY_PAIRS`) the sentence quoted is instead the one whose question–answer
pair best answers the question, ranked as the ``qa-kg`` answerer ranks them
(:meth:`~kgcore.query.answer.short.QAKGGenerator.ranked_answers`), in the clause with the most evidence among those
that hold the pair's answer; the scorer's choice when no pair is confident or the best is of a kind the wh-word rules
out.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.core.embed import Embedder, query_embedder
from kgcore.core.nlp import load_spacy
from kgcore.core.repeats import text_key
from kgcore.core.types import Answer, Citation, SelectedSentence
from kgcore.core.verdicts import Alternative
from kgcore.query.answer.authorship import author_answer
from kgcore.query.answer.base import Answerer, AnswerSource, LazyModels, ParseMemo, shared_cache
from kgcore.query.answer.clauses import best_clause
from kgcore.query.answer.select import Question, ScoredSentence, score_sentences
from kgcore.query.answer.short import MIN_CONFIDENCE, QAKGGenerator, clause_instead, confidence
from kgcore.query.answer.support import unsupported
from kgcore.query.answer.verdict import judge, with_verdict

#: The answer pick's next best sentences a verdict lists (:func:`alternatives`).  On the verdict bench's questions
#: with the gold evidence in the context (bench/verdict_bench.py), the answer or one of these three quotes a right
#: answer for 0.88 / 0.50 / 0.56 of them (design papers / QASPER / novels; the answer alone 0.83 / 0.33 / 0.34) and
#: 0.85 / 0.61 / 0.39 held out (0.69 / 0.31 / 0.07): where a reviewer finds the right sentence the pick missed.
ALTERNATIVES = 3
EMPTY_CONTEXT_TEXT = "No context was retrieved, so the extractive answerer cannot answer."
#: Whether the question-answer pairs choose the quoted sentence.  They won on the three dev books (groundedkg, 1,000
#: words, EM / ROUGE-L against the scorer's choice: Peter Rabbit 50.0 / 46.2 both, Crusoe 17.8 / 12.0 -> 22.2 / 11.1,
#: Phantom 20.0 / 14.5 -> 27.5 / 15.6) but did not generalise: on the unseen papers (bench/experiments/papers_qa.py, 40
#: questions) the share of the gold answer's words in the answer fell from 0.558 to 0.483 (groundedkg; 0.456 -> 0.374
#: with hybrid), and on the five held-out novel sets (run with a clause-trimming bug since fixed) EM questions gained
#: and lost cancelled over 202 questions and ROUGE-L fell on three.
BY_PAIRS = False


class ExtractiveGenerator(LazyModels):
    """Extracts an answer span from the context; ``embedder``/``nlp`` load lazily when ``None``."""

    name = "extractive"

    def __init__(self, embedder: Embedder | None = None, nlp=None, by_pairs: bool = BY_PAIRS):
        super().__init__(embedder, nlp)
        self.by_pairs = by_pairs

    @property
    def model(self) -> str:
        return self.embedder.name

    def generate(self, question: str, context: Sequence[SelectedSentence],
                 source: AnswerSource | None = None) -> Answer:
        """The sentence of ``context`` that best answers ``question``, with its verdict
        (:mod:`~kgcore.query.answer.verdict`)."""
        if not context:
            return unsupported(Answer(EMPTY_CONTEXT_TEXT, self.name, self.model, notes=[
                "Extractive answer (no LLM used): it can only quote retrieved context, and none was retrieved."]),
                "no context was retrieved")
        return self.judged(question, context, ParseMemo(self.nlp, shared_cache(self.nlp)))

    def judged(self, question: str, context: Sequence[SelectedSentence], nlp: ParseMemo) -> Answer:
        """The answer over a non-empty ``context`` with its verdict and the pick's next best sentences, parsing
        through ``nlp`` (the scorer, pairs, clause and verdict parse alike)."""
        authored = author_answer(question, context, self.name, self.model)
        if authored is not None:  # "Who wrote the paper?": its author lines, which the verdict checks first
            return with_verdict(authored, judge(question, authored, context, nlp, self.embedder, quoted=True))
        parsed = Question.parse(question, nlp)
        answer, scored = self._extract(question, context, nlp, parsed)
        verdict = judge(question, answer, context, nlp, self.embedder, scored, quoted=True, parsed=parsed)
        cited = {i for c in answer.citations for i in c.sentence_ids}
        verdict.alternatives = alternatives(scored, cited, parsed, nlp)
        return with_verdict(answer, verdict)

    def _extract(self, question: str, context: Sequence[SelectedSentence], nlp: ParseMemo,
                 parsed: Question | None = None) -> tuple[Answer, list[ScoredSentence]]:
        parsed = parsed if parsed is not None else Question.parse(question, nlp)
        scored = score_sentences(question, parsed, context, nlp, self.embedder)
        best, text, why = self._choice(question, parsed, scored, context, nlp)
        if not text:
            text = self._quote(best, parsed, nlp)
        sentence = best.sentence
        part = "sentence" if text == sentence.text.strip() else "clause"
        notes = [f"Extractive answer (no LLM used): the {part} of context sentence {sentence.id} {why}"]
        if best.spans:
            start, end = best.spans[0]
            notes.append(f"It holds “{sentence.text[start:end]}”, {parsed.expected.describe()} as the question "
                         "asks (marked in the answer).")
        if best.overlap == 0 and best.cosine < 0.3:
            notes.append("Low confidence: the best sentence shares no words with the question.")
        cited = [sentence.id]
        following = introduced(sentence, context)
        if following is not None:
            text, cited = f"{sentence.text.strip()} {following.text.strip()}", [sentence.id, following.id]
            notes.append(f"It ends in a colon, so the sentence it introduces ({following.id}) is quoted with it.")
        answer = Answer(text, self.name, self.model, citations=[Citation(text, cited, [1.0] * len(cited))], notes=notes)
        return answer, scored

    @staticmethod
    def _quote(best: ScoredSentence, parsed: Question, nlp: ParseMemo) -> str:
        """The clause of the sentence that holds its span of the expected kind (its best clause when it holds
        none, or when no clause holds the span: a span found in the coref-resolved text)."""
        doc = nlp(best.sentence.text)
        if best.spans:
            start, end = best.spans[0]
            span = best.sentence.text[start:end]
            if span.strip() != best.sentence.text.strip():
                held = best_clause(doc, parsed.terms, parsed.qtype, parsed.doc, holding=span)
                if held:
                    return held
        return best_clause(doc, parsed.terms, parsed.qtype, parsed.doc)

    def _choice(self, question: str, parsed: Question, scored: list[ScoredSentence],
                context: Sequence[SelectedSentence], nlp: ParseMemo) -> tuple[ScoredSentence, str, str]:
        """The sentence to quote, the clause holding its best pair's answer ("" when no pair decides: always
        without ``by_pairs``), and why.  The pairs are generated from the scored sentences' frames."""
        top = scored[0]
        found = ", found" if top.type_match else ", not found" if parsed.qtype else ""
        why = (f"that best matches the question (cosine {top.cosine:.2f}, question-word overlap {top.overlap:.2f}, "
               f"expected answer: {parsed.qtype or 'any'}{found}).")
        if not self.by_pairs:
            return top, "", why
        ranked = QAKGGenerator(self.embedder, nlp).ranked_answers(question, parsed, scored, context)
        pair = ranked.answers[0] if ranked.answers else None
        if pair is None or confidence(pair["score"]) < MIN_CONFIDENCE or clause_instead(pair, ranked.expected):
            return top, "", why
        chosen = next(s for s in scored if s.sentence.id == pair["sentence_ids"][0])
        why = (f"whose question-answer pair best answers the question ({pair['question']!r} -> {pair['answer']!r}, "
               f"score {pair['score']:.2f}).")
        doc = nlp(chosen.sentence.text)
        return chosen, best_clause(doc, parsed.terms, parsed.qtype, parsed.doc, holding=pair["answer"]), why


def alternatives(scored: Sequence[ScoredSentence], cited: set[str], parsed: Question, nlp: ParseMemo,
                 k: int = ALTERNATIVES) -> list[Alternative]:
    """The ``k`` best-scored sentences after those the answer cites (a text repeating one of them left out), each
    with what the answer would have quoted from it and its span of the asked kind."""
    seen = {text_key(s.sentence.text) for s in scored if s.sentence.id in cited}
    out: list[Alternative] = []
    for s in scored:
        text = text_key(s.sentence.text)
        if s.sentence.id in cited or text in seen:
            continue
        seen.add(text)
        quote = ExtractiveGenerator._quote(s, parsed, nlp)
        start, end = span_in_quote(s.sentence.text, quote, s.spans[0]) if s.spans else (-1, -1)
        out.append(Alternative(s.sentence.id, quote, round(s.score, 3), quote[start:end] if start >= 0 else "",
                               start, end, s.referents[0] if start >= 0 else ""))
        if len(out) == k:
            break
    return out


def span_in_quote(text: str, quote: str, span: tuple[int, int]) -> tuple[int, int]:
    """Where the span ``text[span[0]:span[1]]`` stands in ``quote``, a clause of ``text`` (its first letter maybe
    raised, a full stop maybe added): through where the clause stands in the sentence, so that a span written
    twice marks the one found; the span's text is searched in the quote only for a clause not written in the
    sentence; (-1, -1) when the quote lacks it.

    >>> text = "They sold the red hat and kept the red hat"
    >>> span_in_quote(text, "Kept the red hat.", (35, 42)), span_in_quote(text, text, (35, 42))
    ((9, 16), (35, 42))
    >>> span_in_quote(text, "They sold the red hat.", (35, 42))  # the clause holds the other one
    (-1, -1)
    >>> span_in_quote("She went to Washington D.C.", "She went to Washington D.C.", (9, 27))
    (9, 27)
    """
    start, end = span
    lowered = text.lower()
    located = False
    for clause in (quote, quote.removesuffix(".")):
        at = lowered.find(clause.lower())
        if at >= 0 and at <= start and end <= at + len(clause):
            return start - at, end - at
        located = located or at >= 0
    found = -1 if located else quote.lower().find(text[start:end].lower())  # a clause not written in the text
    return (found, found + end - start) if found >= 0 else (-1, -1)


def introduced(sentence: SelectedSentence, context: Sequence[SelectedSentence]) -> SelectedSentence | None:
    """The context's next sentence of the same document when ``sentence`` ends in a colon and so introduces it
    ("One evening paper alone ... said:"), else None.

    >>> said = SelectedSentence("s1", 1, "The paper said:", "The paper said:")
    >>> quote = SelectedSentence("s2", 2, '"We recognize the touch of the ghost."', "")
    >>> introduced(said, [quote, said]).id, introduced(quote, [quote, said]), introduced(said, [said])
    ('s2', None, None)
    """
    if not sentence.text.rstrip().endswith(":"):
        return None
    return next((s for s in context if s.document == sentence.document and s.position == sentence.position + 1),
                None)


def _make(settings) -> ExtractiveGenerator:
    return ExtractiveGenerator(embedder=query_embedder(settings), nlp=load_spacy(settings.spacy_model))


ANSWERER = Answerer("extractive", "Extractive (offline)",
                    "quotes the clause of the context that best answers the question; no LLM", _make)
