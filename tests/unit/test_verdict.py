"""The verdict's states and reasons, the diagnosis without gold, and the verdict's evidence as HTML, without models
(claims and sentences are given; the parts that parse or embed are in tests/models/test_verdict_models.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kgcore.core.types import Answer, Match, SelectedSentence
from kgcore.core.verdicts import Alternative, ClaimCheck, Verdict
from kgcore.evaluate.diagnose import (
    ANSWERED_FROM,
    CONTEXT_COVERAGE,
    NODE_RESEMBLANCE,
    answer_match,
    diagnose_without_gold,
)
from kgcore.query.answer.expected import Expected
from kgcore.query.answer.verdict import (
    GROUNDED,
    GROUNDED_UNSURE,
    REFUSED_BELOW,
    SUPPORTED_FROM,
    claim_state,
    decide,
    with_verdict,
)
from ui.verdict_view import verdict_html


def check(strength: float, grounded: float | None = None, **more) -> ClaimCheck:
    return ClaimCheck("Each tablet is 100-200 MB.", "t/1", "Each tablet is 100-200 MB.", ["tablet"], [],
                      "a quantity (a number, size, share or range)", "100-200 MB", 15, 25, grounded,
                      strength=strength, **more)


@pytest.mark.parametrize(("strength", "grounded", "state"), [
    (SUPPORTED_FROM, None, "supported"),
    (SUPPORTED_FROM - 0.01, None, "unsure"),
    (REFUSED_BELOW, None, "unsure"),
    (REFUSED_BELOW - 0.01, None, "not supported"),
    (SUPPORTED_FROM + 1, GROUNDED, "supported"),
    (SUPPORTED_FROM + 1, GROUNDED - 0.01, "unsure"),        # partly grounded: never more than unsure
    (SUPPORTED_FROM + 1, GROUNDED_UNSURE - 0.01, "not supported"),  # a claim the sentence does not hold
])
def test_a_claims_state_follows_its_strength_and_grounding(strength, grounded, state):
    assert claim_state(check(strength, grounded)) == state


PARSED = SimpleNamespace(expected=Expected("number"), qtype="number")


def test_the_answer_takes_its_best_claims_state_and_an_ungrounded_claim_refuses_it():
    good = check(SUPPORTED_FROM + 0.5, 1.0, state="supported")
    verdict = decide([good], PARSED)
    assert verdict.state == "supported" and verdict.score == good.strength
    assert verdict.reason.startswith("Supported: cited sentence t/1 holds “100-200 MB”, a quantity")
    invented = ClaimCheck("They are compressed with zstd.", "t/2", "Clients cache locations.", grounded=0.0,
                          state="not supported", strength=1.0)
    refused = decide([good, invented], PARSED)
    assert refused.state == "not supported" and refused.evidence == [good, invented]
    assert "the claim “They are compressed with zstd.” is not in the sentence it cites (t/2: 0% of its words)" \
        in refused.reason
    weak = ClaimCheck("Tablets split at 200 MB.", "t/1", "Each tablet is 100-200 MB.", grounded=0.5, state="unsure",
                      strength=3.0)
    assert decide([good, weak], PARSED).state == "unsure"


def test_the_verdict_is_carried_by_the_answer_and_read_back():
    answer = with_verdict(Answer("x", "extractive", "m"), Verdict("unsure", "Unsure: ...", [check(2.3)], 2.3))
    assert (answer.supported, answer.support_reason, answer.support_score) == (None, "Unsure: ...", 2.3)
    assert Verdict.from_dict(answer.to_dict()["verdict"]) == answer.verdict
    with pytest.raises(ValueError, match="not one of supported, not supported, unsure"):
        Verdict("maybe", "")


def test_a_quoted_sentence_holding_the_gold_answer_is_correct():
    match = answer_match("Like AFS, we use standard copy-on-write techniques to implement snapshots.",
                         ["copy-on-write", "shadow paging"])
    assert match["matches"] and match["gold"] == "copy-on-write" and match["recall"] == 1.0
    assert not answer_match("Clients cache chunk locations for a limited time.", ["copy-on-write"])["matches"]


def test_a_short_answer_sharing_one_word_with_the_gold_answer_is_not_correct():
    """The diagnosis calls an answer correct by the benches' truth (half a gold answer's content words), not by a
    content-word F1 that a one-word answer reaches against a three-word gold answer, nor because the gold answer
    contains it."""
    golds = ["Sitting in the Colonel's chair.", "He dies mysteriously in a chair"]
    match = answer_match("What if he should die?", golds)
    assert not match["matches"] and match["f1"] == 0.5 and match["recall"] < 0.5
    assert not answer_match("he", golds)["matches"]
    assert answer_match("He died in the chair of the Colonel.", golds)["matches"]
    assert answer_match("It cuts TTFT by 2.2-3.3× over full recompute.", ["2.2-3.3×"])["matches"]


def test_the_question_s_own_words_in_a_gold_answer_are_no_answer():
    """A gold answer's words that the question already says are not counted: "war" answers nothing when the
    question asks "What war ...?", while "nineteen" is half of what "Nineteen years old" adds to "How old ...?"."""
    war = "What war was taking place?"
    assert answer_match("A collection for the orphans of the war.", ["World War I"])["matches"]  # without it
    assert not answer_match("A collection for the orphans of the war.", ["World War I"], war)["matches"]
    assert not answer_match("A collection for the French War Orphans.", ["World War I"])["matches"]  # another name
    assert answer_match("He was wounded in the World War.", ["World War I"], war)["matches"]
    old = "How old was Anne Elliot when she became engaged?"
    assert not answer_match("She became engaged at nineteen.", ["Nineteen years old."])["matches"]
    assert answer_match("She became engaged at nineteen.", ["Nineteen years old."], old)["matches"]
    # a question offering alternatives is answered by naming one: the words telling them apart count
    assert answer_match("It was painted red.", ["red paint"], "Was the paint red or blue?")["matches"]
    assert not answer_match("It was painted blue.", ["red paint"], "Was the paint red or blue?")["matches"]
    marry = "Does Anne marry Captain Wentworth or Mr. Elliot?"
    assert answer_match("She marries Captain Wentworth.", ["Captain Wentworth"], marry)["matches"]
    assert not answer_match("She marries Mr. Elliot.", ["Captain Wentworth"], marry)["matches"]
    # a gold answer whose content words the question says all is matched by its other words ...
    children = "How many children did they have?"
    assert answer_match("They had 5 children.", ["5 children"], children)["matches"]
    assert not answer_match("They had no children.", ["5 children"], children)["matches"]
    assert not answer_match("No, she is not happy.", ["Yes, she is happy."], "Is Anne happy?")["matches"]
    # ... or, with none, by them all (no word of it is left to tell an echo from an answer)
    assert answer_match("She is happy.", ["happy"], "Is Anne happy?")["matches"]
    assert not answer_match("She is sad.", ["happy"], "Is Anne happy?")["matches"]


def test_words_are_compared_by_their_stem_and_numbers_as_figures():
    """"died" says the "dies" of a reference and "nineteen" its "19"; so the question's "die" leaves out the
    reference's "dies" ("What if he should die?" stays no answer) and "thirty" is no "13"."""
    assert answer_match("He died in a chair.", ["He dies mysteriously in a chair"])["matches"]
    assert answer_match("She was nineteen.", ["19"])["matches"]
    assert answer_match("He was 19.", ["Nineteen years old."], "How old was he?")["matches"]
    assert not answer_match("He was thirty.", ["13"])["matches"]
    # stems join inflections only, not Snowball's derivations
    assert answer_match("They married in June.", ["She marries him"])["matches"]
    assert not answer_match("The experiments failed.", ["Her experience"])["matches"]
    assert not answer_match("He was busy.", ["Business"])["matches"]
    match = answer_match("What if he should die?", ["He dies mysteriously in a chair"], "How did the Judge die?")
    assert not match["matches"] and match["asked"] == ["die"]


def test_compound_numbers_and_ordinals_are_one_figure():
    """"twenty-one" is 21, not 20 and 1; "nineteenth" and "first" are the "19th" and "1st" people write."""
    assert answer_match("He was twenty-one.", ["21"])["matches"]
    assert not answer_match("He was twenty.", ["21"])["matches"]
    assert not answer_match("There were twenty-one, then one.", ["20"])["matches"]
    assert answer_match("It is set in the nineteenth century.", ["Mid-19th century"], "In what century is it set?")[
        "matches"]
    assert not answer_match("It is set in the eighteenth century.", ["Mid-19th century"],
                            "In what century is it set?")["matches"]
    assert answer_match("on his twenty-first birthday", ["his 21st birthday"])["matches"]
    assert answer_match("He was twenty\u2013one.", ["21"])["matches"]  # an en dash
    # what reads otherwise: the unit "second", "at first", a compound adjective after the tens word
    assert answer_match("There was a thirty-second pause.", ["30 seconds"])["matches"]
    assert not answer_match("The horse fell within seconds.", ["2nd"])["matches"]
    assert not answer_match("At first Anne was nervous.", ["1st place"], "What place did Anne take?")["matches"]
    assert answer_match("twenty one-dollar bills", ["20 bills"])["matches"]


def test_a_word_of_a_name_counts_only_in_the_same_name():
    """"Lady Elliot" holds the "lady" of "Lady Russell" and "Gervayse Pyncheon" the "Pyncheon" of "Hepzibah
    Pyncheon", but they name someone else; a title or surname outside a name, or in a name sharing the reference's
    other words, still counts, and so does a sentence's capitalised first word."""
    hepzibah = ["Hepzibah Pyncheon"]
    assert not answer_match("The present owner, Gervayse Pyncheon, disliked the house.", hepzibah)["matches"]
    assert not answer_match("She lived in Pyncheon Street.", hepzibah)["matches"]
    assert answer_match("It was owned by the Pyncheon family.", hepzibah)["matches"]
    assert answer_match("Old Matthew Maule was executed.", ["Matthew Maule"])["matches"]
    assert answer_match("Captain Wentworth wrote to her.", ["Frederick Wentworth"])["matches"]
    assert answer_match("He taught in White Sands.", ["White Sands School"])["matches"]
    assert not answer_match("He went to Clongowes Wood College.", ["Belvedere College"])["matches"]
    # a name opening the answer is a name too; days, kin and offices before a name are not its words
    assert not answer_match("Gervayse Pyncheon.", hepzibah)["matches"]
    assert answer_match("On Monday Hepzibah opened the shop.", hepzibah)["matches"]
    assert answer_match("She was raised by Aunt Marilla.", ["Marilla Cuthbert"])["matches"]
    # short forms and spelling slips of a name's other word, but not another first letter
    assert answer_match("He lived at Baker St.", ["Baker Street"])["matches"]
    assert answer_match("It came from Fred Wentworth.", ["Frederick Wentworth"])["matches"]
    assert answer_match("It was Hepzibah Pynchon.", hepzibah)["matches"]
    assert not answer_match("It was by Harry Potter.", ["Larry Potter"])["matches"]
    assert not answer_match("While Lady Elliot lived, there had been method.", ["Lady Russell"])["matches"]
    assert answer_match("It was the lady who advised her.", ["Lady Russell"])["matches"]
    assert answer_match("Mrs. Rachel Lynde would move to Green Gables.", ["Mrs. Lynde"])["matches"]
    assert answer_match("The captain wrote to her.", ["Captain Wentworth"])["matches"]
    assert not answer_match("Captain Benwick wrote to her.", ["Captain Wentworth"])["matches"]


def test_a_gold_answer_without_content_words_needs_its_number_whole_or_its_yes_or_no_first():
    """"No" and "3%" have no content words; an answer mentioning "no" or "0.3" does not say them."""
    assert answer_match("No, she does not [text_0-3].", ["No"])["matches"]
    assert not answer_match("There is no mention of it.", ["No"])["matches"]
    assert answer_match("Accuracy rose by 3% on the test set.", ["3%"])["matches"]
    assert not answer_match("Accuracy rose by 0.3 points.", ["3%"])["matches"]
    assert not answer_match("It lasted 13 years [text_0-3].", ["3"])["matches"]


def _result(sentences, graph=None, matches=()):
    return SimpleNamespace(question="How large is each tablet in the store?", sentences=sentences, query_graph=graph,
                           matches=list(matches))


def _answer(state):
    return Answer("x", "extractive", "m", verdict=Verdict(state, f"{state}: ..."))


TABLET = SelectedSentence("t/1", 1, "Each tablet in the store is large: 100-200 MB.", "")
OTHER = SelectedSentence("t/2", 2, "Clients cache locations.", "")


def test_without_gold_the_verdict_and_the_retrieval_decide_the_stage():
    assert diagnose_without_gold(_result([TABLET]), _answer("supported")).stage == "correct"
    found = diagnose_without_gold(_result([TABLET, OTHER]), _answer("not supported"))
    assert found.stage == "III" and found.details["coverage"] >= CONTEXT_COVERAGE
    assert "the passage was probably retrieved" in found.reason
    missed = diagnose_without_gold(_result([OTHER]), _answer("unsure"))
    assert missed.stage == "II" and "retrieval probably missed the passage" in missed.reason
    assert "Give a gold answer to decide" in found.reason and "Give a gold answer to decide" in missed.reason
    assert "Give a gold answer" not in diagnose_without_gold(_result([TABLET]), _answer("supported")).reason
    graph = SimpleNamespace(nodes=[object()])
    weak = Match("q0", "n1", "tablet", [], "entity", NODE_RESEMBLANCE - 0.1, 0)
    assert diagnose_without_gold(_result([TABLET], graph, [weak]), _answer("not supported")).stage == "I"


def test_without_gold_the_verdicts_strength_tells_retrieval_from_answering():
    """How well the best cited sentence answers decides between III and II, not the question's words: a context
    holding every word of the question can still lack the answer."""
    def scored(score):
        return Answer("x", "extractive", "m", verdict=Verdict("not supported", "...", score=score))

    answered = diagnose_without_gold(_result([OTHER]), scored(ANSWERED_FROM + 0.2))
    assert answered.stage == "III" and f">= {ANSWERED_FROM}" in answered.reason
    missed = diagnose_without_gold(_result([TABLET, OTHER]), scored(ANSWERED_FROM - 0.2))
    assert missed.stage == "II" and missed.details["coverage"] >= CONTEXT_COVERAGE and "retrieval probably" in \
        missed.reason
    # a next-best sentence the pick ranked, answering on its own, shows the context held the answer
    weak = scored(ANSWERED_FROM - 0.2)
    weak.verdict.alternatives = [Alternative("t/1", "100-200 MB", ANSWERED_FROM + 0.1, "100-200 MB", 0, 10),
                                 Alternative("t/2", "Clients cache locations.", 0.4)]
    held = diagnose_without_gold(_result([TABLET, OTHER]), weak)
    assert held.stage == "III" and "ranked t/1 next" in held.reason and "“100-200 MB”" in held.reason


def test_the_evidence_html_escapes_the_document_text():
    hostile = ClaimCheck("<b>x</b>", "t/1", "A <script>x</script> of 5 MB.", ["script"], [], "a quantity", "5 MB",
                         24, 28, state="unsure", strength=2.3)
    html = verdict_html(Verdict("unsure", "Unsure: ...", [hostile], 2.3), {"t/1": 1})
    assert "<script>" not in html and "&lt;" in html
    assert '<mark class="kg-span" title="a quantity">5 MB</mark>' in html
    assert verdict_html(Verdict("not supported", "..."), {}) == ""
