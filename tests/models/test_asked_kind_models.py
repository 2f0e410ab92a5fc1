"""The asked kind in the fused ranking, with the real spaCy pipeline: among the first candidates, a sentence holding
an answer of the kind the question asks for (a person for "who", a place for "where") rises past sentences that
share the question's words and hold none; a question whose kind has no spans, or whose kind most candidates hold,
changes nothing."""

from __future__ import annotations

from story_index import plain_match, story_index

from kgcore.core.settings import RetrievalOptions
from kgcore.index.store.disk import Index
from kgcore.query import asked_kind, fused
from kgcore.query.asked_kind import AskedKind

QUESTION = "Whom did Louisa marry?"
#: (text, cosine to the question): dense relevance prefers the sentences that only restate who Louisa is.
STORY = [
    ("Louisa was much the same after the fall.", 0.9),
    ("Louisa walked along the Cobb in the wind.", 0.8),
    ("Louisa married Captain Benwick in the spring.", 0.5),
    ("The sea was grey and cold that morning.", 0.2),
    ("Louisa wanted to jump from the steps again.", 0.7),
    ("The carriage waited at the inn.", 0.1),
]


def ranked(index: Index, question: str, kind: AskedKind | None) -> list:
    """The fused ranking's sentences under 1,000 words, best first."""
    kept = fused.rank_fused(index, question, plain_match(index), RetrievalOptions(budget_words=1000), asked=kind)[0]
    return sorted(kept, key=lambda s: s.rank)


def order(index: Index, question: str, kind: AskedKind | None) -> list[str]:
    """The fused ranking's sentences under 1,000 words, best first, by text."""
    return [s.text for s in ranked(index, question, kind)]


def test_the_asked_kind_is_read_from_the_question(nlp):
    who = AskedKind.of(QUESTION, lambda texts: list(nlp.pipe(texts)))
    assert who is not None and who.expected.kind == "person"
    held = who.holds([(text, "") for text, _ in STORY])
    assert held.tolist() == [False, False, True, False, False, False]  # Louisa is the question's own name
    where = AskedKind.of("Where did Louisa fall?", lambda texts: list(nlp.pipe(texts)))
    assert where is not None and where.expected.kind == "place"
    assert where.holds([("Louisa fell from the steps of the Cobb at Lyme.", ""), ("Louisa fell.", "")]).tolist() == [
        True, False]
    for unasked in ("Did Louisa marry?", "Who is Louisa Musgrove?", "Louisa married."):  # yes/no, definition, none
        assert AskedKind.of(unasked, lambda texts: list(nlp.pipe(texts))) is None


def test_a_sentence_holding_the_asked_kind_rises_past_restatements(nlp):
    index = story_index([(text, None, cosine) for text, cosine in STORY])
    before = order(index, QUESTION, None)
    parse = lambda texts: list(nlp.pipe(texts))  # noqa: E731
    after = order(index, QUESTION, AskedKind.of(QUESTION, parse))
    married = "Louisa married Captain Benwick in the spring."
    assert before.index(married) > 0 and after.index(married) == 0
    assert sorted(before) == sorted(after)  # the same sentences, reordered
    why = {s.text: s.signals.get("asked") for s in ranked(index, QUESTION, AskedKind.of(QUESTION, parse))}
    assert why[married] == "person" and [t for t, kind in why.items() if kind] == [married]  # the reason it rose


def test_nothing_changes_when_most_candidates_hold_the_kind_or_the_weight_is_zero(nlp, monkeypatch):
    crowded = [(f"Louisa danced with {name} at the ball.", 0.9 - 0.1 * n)
               for n, name in enumerate(("Captain Harville", "Charles Hayter", "Mr Elliot"))]
    crowded.append(("Louisa was much the same after the fall.", 0.95))
    index = story_index([(text, None, cosine) for text, cosine in crowded])
    parse = lambda texts: list(nlp.pipe(texts))  # noqa: E731
    assert order(index, QUESTION, AskedKind.of(QUESTION, parse)) == order(index, QUESTION, None)
    assert AskedKind.of(QUESTION, parse, asked_kind.MAX_SENTENCES) is not None
    assert AskedKind.of(QUESTION, parse, asked_kind.MAX_SENTENCES + 1) is None  # a collection the app leaves unparsed
    monkeypatch.setattr(asked_kind, "WEIGHT", 0.0)
    assert AskedKind.of(QUESTION, parse) is None


def test_only_the_first_candidates_are_read(nlp):
    index = story_index([(text, None, cosine) for text, cosine in STORY])
    before = order(index, QUESTION, None)
    kind = AskedKind.of(QUESTION, lambda texts: list(nlp.pipe(texts)))
    kind.candidates = before.index("Louisa married Captain Benwick in the spring.")  # the head ends just above it
    assert kind.candidates > 0 and order(index, QUESTION, kind) == before


def test_for_who_a_name_counts_and_a_word_for_a_person_does_not(nlp):
    """In a novel most sentences hold "the man", "his mother" or "the boy", so for a person question only a name
    raises a sentence: the restatements holding such words stay where they were, and the married one still rises."""
    worded = [("Louisa was much the same after the fall, said the old man.", 0.9),
              ("Louisa walked along the Cobb with her mother.", 0.8),
              ("Louisa married Captain Benwick in the spring.", 0.5),
              ("The boy watched the sea, grey and cold that morning.", 0.2)]
    index = story_index([(text, None, cosine) for text, cosine in worded])
    parse = lambda texts: list(nlp.pipe(texts))  # noqa: E731
    why = {s.text: s.signals.get("asked") for s in ranked(index, QUESTION, AskedKind.of(QUESTION, parse))}
    assert [t for t, kind in why.items() if kind] == ["Louisa married Captain Benwick in the spring."]
    assert order(index, QUESTION, AskedKind.of(QUESTION, parse))[0] == "Louisa married Captain Benwick in the spring."
