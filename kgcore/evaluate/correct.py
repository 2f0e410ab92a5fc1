"""Whether an answer is correct against reference answers: the error-stage diagnosis's first rule
(:mod:`kgcore.evaluate.diagnose`) and the benches' truth (``bench/verdict_sets.py``), one rule for both so they
cannot disagree.

An answer is correct when it holds at least :data:`CORRECT_RECALL` of a reference answer's content words that the
question does not already say (:func:`answer_share`). Content words ignore stopwords, possessives and plurals,
and citation markers are removed, so a quoted clause "he was put in a pie by Mrs. McGregor [text_0-7]" matches
"Mrs. McGregor baked him into a pie" (3 of 4).

>>> answer_share("he was put in a pie by Mrs. McGregor [text_0-7]", ["Mrs. McGregor baked him into a pie"])
0.75

The question's own words are no answer: "the French War Orphans" does not answer "What war was taking place?"
with "World War I" (it holds "war", which the question gave, and not "world"), while "at nineteen" answers "How
old was Anne?" with "Nineteen years old" (one of "nineteen, years"). A reference whose content words the
question says all is matched by its other words ("5" of "5 children" for "How many children did they have?", the
"yes" of "Yes, she is happy" for "Is Anne happy?"), or by them all when it has no other ("happy"); a question
offering alternatives ("Does Anne marry Captain Wentworth or Mr. Elliot?") is answered by naming one, so there
the question's words count. Words are compared as written, plurals aside: "die" does not remove "died".

A short answer is not correct for sharing one word with a longer reference: "What if he should die?" is no
answer to "How does the Judge die?" with "He dies mysteriously in a chair" (none of "mysteriously, chair", though
their content-word F1, :func:`content_f1`, is 0.5), nor is an answer the reference contains ("he"). Its cost: a
right answer naming less than half of the rest of a longer reference is not correct ("Clifford" for "Pyncheon's
brother Clifford"); no word-counting rule tells it from "What if he should die?".

A reference without content words ("2.2-3.3×", "3%", "No") is matched by its words in order, a number whole
("0.3" holds no "3"), a yes or no only when the answer opens with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kgcore.query.answer.citations import strip_markers
from kgcore.query.answer.words import content_words

#: An answer holding this share of a gold answer's content words is correct (a quoted sentence that holds the
#: gold answer: its F1 is low only because the quote says more).
CORRECT_RECALL = 0.5
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*%?")


def content_f1(prediction: str, gold: str) -> float:
    """F1 between the content-word sets of a prediction and a gold answer (0 when either has none)."""
    pred, ref = content_words(prediction or ""), content_words(gold or "")
    common = len(pred & ref)
    if not common:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def answer_share(answer: str, golds: Sequence[str], question: str = "") -> float:
    """The best share of a gold answer's content words found in ``answer`` (0 without gold answers), citation
    markers removed, leaving out the words ``question`` already says (the module doc says what counts then); a
    gold answer without content words ("2.2-3.3×", "3%": single digits) counts when its words occur, in order, in
    the answer, a number whole ("0.3" holds no "3"), and a yes or no ("No, she does not.") when the answer opens
    with the same word ("There is no mention of it" says no "no").  At :data:`CORRECT_RECALL` or more the answer is
    right: the diagnosis's rule and the benches' truth (``bench/verdict_sets.py``).

    >>> answer_share("We use copy-on-write techniques to implement snapshots.", ("copy-on-write",))
    1.0
    >>> answer_share("The cat sat [text_0-7].", ("a parrot", "the cat and the dog", "7"))
    0.5
    >>> answer_share("It cuts TTFT by 2.2-3.3× over full recompute.", ("2.2-3.3×",))
    1.0
    >>> [answer_share(a, ("3%",)) for a in ("It rose by 3%.", "It improves by 0.3 points.")]
    [1.0, 0.0]
    >>> [answer_share(a, ("No",)) for a in ("No, she does not.", "There is no mention of it.")]
    [1.0, 0.0]
    >>> answer_share("For the French War Orphans.", ("World War I",), "What war was taking place?")
    0.0
    >>> answer_share("She was to throw herself away at nineteen.", ("Nineteen years old.",), "How old was Anne?")
    0.5
    >>> [answer_share(a, ("5 children",), "How many children?") for a in ("They had 5 children.", "No children.")]
    [1.0, 0.0]
    >>> answer_share("She marries Captain Wentworth.", ("Captain Wentworth",), "Wentworth or Mr. Elliot?")
    1.0
    """
    said = _Said(answer, question)
    return max((said.share(gold) for gold in golds), default=0.0)


#: The words a yes/no answer opens with.
POLAR = ("yes", "no")


class _Said:
    """An answer read once for :func:`answer_share` and :func:`answer_match`: its content words and tokens,
    citation markers removed, and the content words of the question it answers."""

    def __init__(self, answer: str, question: str = "") -> None:
        text = strip_markers(answer or "")
        self.words, self.tokens = content_words(text), _tokens(text)
        # A question offering alternatives ("Captain Wentworth or Mr. Elliot?") is answered by naming one.
        self.asked = frozenset() if "or" in _tokens(question or "") else content_words(question or "")

    def share(self, gold: str) -> float:
        """The share of ``gold``'s content words said (1 or 0 for a gold answer without content words), leaving
        out those the question says (:meth:`counted`)."""
        return self.share_of(*self.counted(gold))

    def share_of(self, words: set[str], wanted: list[str]) -> float:
        """The share of the counted ``words`` said, or without any, whether the ``wanted`` tokens are (1 or 0)."""
        if words:
            return len(words & self.words) / len(words)
        polar = bool(wanted) and wanted[0] in POLAR
        return float(bool(wanted) and (self.tokens[:1] == wanted[:1] if polar else _holds(self.tokens, wanted)))

    def counted(self, gold: str) -> tuple[set[str], list[str]]:
        """What of ``gold`` an answer must say: its content words the question does not say; when the question
        says them all, its other tokens ("5" of "5 children" for "How many children ...?", "yes" of "Yes, she
        is happy" for "Is Anne happy?"); when there are none, every content word ("red" for "Is it red?")."""
        words, wanted = content_words(gold), _tokens(gold)
        if words - self.asked or not words:
            return words - self.asked or words, wanted
        rest = [t for t in wanted if not content_words(t) & self.asked]
        return (set(), rest) if rest else (words, wanted)


def _tokens(text: str) -> list[str]:
    """Lower-cased words and whole numbers ("0.3", "1,006", "3%")."""
    return _TOKEN.findall(text.lower())


def _holds(said: list[str], wanted: list[str]) -> bool:
    return f" {' '.join(wanted)} " in f" {' '.join(said)} "


def answer_match(answer_text: str, golds: list[str], question: str = "") -> dict:
    """Whether an answer to ``question`` matches a gold answer (:func:`answer_share` at least
    :data:`CORRECT_RECALL`), with the best gold answer's share (``recall``), content-word F1 and whether the answer
    contains it, and the gold answer's words not counted because the question says them (``asked``; for the
    reason).

    >>> m = answer_match("We use standard copy-on-write techniques to implement snapshots.", ["copy-on-write"])
    >>> m["matches"], m["recall"]
    (True, 1.0)
    >>> golds = ["Sitting in the Colonel's chair.", "He dies mysteriously in a chair"]
    >>> m = answer_match("What if he should die?", golds, "How does the Judge die?")
    >>> m["matches"], m["f1"], m["recall"], m["asked"]
    (False, 0.5, 0.0, ['die'])
    """
    said = _Said(answer_text, question)
    best: dict[str, Any] = {"gold": None, "f1": 0.0, "contains": False, "recall": 0.0, "asked": []}
    for gold in golds:
        tokens, (words, wanted) = _tokens(gold), said.counted(gold)
        contains = bool(tokens) and _holds(said.tokens, tokens)
        recall, f1 = round(said.share_of(words, wanted), 4), round(content_f1(answer_text, gold), 4)
        if (recall, contains, f1) > (best["recall"], best["contains"], best["f1"]):
            asked = sorted(content_words(gold) - words)  # what the question says, not counted
            best = {"gold": gold, "f1": f1, "contains": contains, "recall": recall, "asked": asked}
    best["matches"] = best["recall"] >= CORRECT_RECALL
    return best
