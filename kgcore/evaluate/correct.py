"""Whether an answer is correct against reference answers: the error-stage diagnosis's first rule
(:mod:`kgcore.evaluate.diagnose`) and the benches' truth (``bench/verdict_sets.py``), one rule for both so they
cannot disagree.

An answer is correct when it holds at least :data:`CORRECT_RECALL` of a reference answer's content words that the
question does not already say (:func:`answer_share`). Content words ignore stopwords, possessives and plurals,
are compared by their stem and number words as figures (:func:`word_forms`: "died" says "dies", "nineteen" says
"19"), and citation markers are removed, so a quoted clause "he was put in a pie by Mrs. McGregor [text_0-7]" matches
"Mrs. McGregor baked him into a pie" (3 of 4).

>>> answer_share("he was put in a pie by Mrs. McGregor [text_0-7]", ["Mrs. McGregor baked him into a pie"])
0.75

The question's own words are no answer: "the French War Orphans" does not answer "What war was taking place?"
with "World War I" (it holds "war", which the question gave, and not "world"), while "at nineteen" answers "How
old was Anne?" with "Nineteen years old" (one of "nineteen, years"). A reference whose content words the
question says all is matched by its other words ("5" of "5 children" for "How many children did they have?", the
"yes" of "Yes, she is happy" for "Is Anne happy?"), or by them all when it has no other ("happy"); a question
offering alternatives ("Does Anne marry Captain Wentworth or Mr. Elliot?") is answered by naming one, so the
words that tell them apart count (:func:`alternatives`: "It was painted blue" holds nothing of "red paint" for
"Was the paint red or blue?"). "How did the Judge die?" leaves out the "dies" of "He dies mysteriously in a chair".

A word of a name counts where the answer writes it in the same name: "While Lady Elliot lived" says no "lady" of
"Lady Russell" and "The present owner, Gervayse Pyncheon" no "Pyncheon" of "Hepzibah Pyncheon", while "the lady",
"the Pyncheon family", "Mrs. Rachel Lynde" (for "Mrs. Lynde") and "Captain Wentworth" (for "Frederick Wentworth":
titles aside) do (:meth:`_Said.same_name`).

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
from difflib import SequenceMatcher
from typing import Any, NamedTuple

from kgcore.core.numbers import NUMBER_WORDS, ORDINAL_WORDS, as_figure
from kgcore.core.stemming import stemmer
from kgcore.query.answer.citations import strip_markers
from kgcore.query.answer.words import STOPWORDS, content_words

#: An answer holding this share of a gold answer's content words is correct (a quoted sentence that holds the
#: gold answer: its F1 is low only because the quote says more).
CORRECT_RECALL = 0.5
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*%?")
#: The units a tens word joins to make one number ("twenty-one", "forty seven", "twenty-first"); not "second",
#: since "a thirty-second pause" is thirty seconds.
_COMPOUND_UNITS = {w: int(n) for w, n in NUMBER_WORDS.items() if 0 < int(n) < 10} | {"first": 1} | {
    w: int(n[:-2]) for w, n in ORDINAL_WORDS.items() if int(n[:-2]) < 10}
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
#: A tens word joined to a unit by a hyphen, dash or space, the unit not itself the first half of a compound
#: ("twenty one-dollar bills" are twenty bills).
_COMPOUND = re.compile(rf"\b({_TENS})[-\u2010\u2011\u2013 ]({'|'.join(_COMPOUND_UNITS)})\b(?![-\u2010\u2011])",
                       re.IGNORECASE)
#: Honorifics and ranks: a reference's name is told by its other words ("Lady Elliot" is not "Lady Russell").
TITLES = frozenset(
    "mr mrs miss ms mme mlle madam madame mademoiselle monsieur sir lady lord dame master dr doctor professor prof "
    "rev reverend captain capt colonel col commander admiral general lieutenant major sergeant count countess duke "
    "duchess prince princess king queen viscount vicomte comte baron earl squire judge saint st aunt uncle cousin "
    "father mother sister brother".split())
#: Capitalised words that are no part of a name beside them: days and months ("On Monday Hepzibah opened ..."), and
#: adjectives a sentence opens a name with ("Old Matthew Maule").
NOT_NAMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december old young little poor dear good great".split())
#: What is left of a word past its stem when the stem only took off an inflection ("died", "dies", "teaches",
#: "married", "painted"): other endings ("experiments", "business") keep the word whole, so Snowball's
#: derivational stems do not join "experiments" and "experience".
INFLECTIONS = frozenset(("", "s", "es", "ed", "d", "ing", "e"))
#: Two words of a name spelled this alike (difflib's ratio) are one word misspelt ("Pynchon", "Pyncheon").
SAME_SPELLING = 0.8


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


class Counted(NamedTuple):
    """What of a reference an answer must say (:meth:`_Said.counted`)."""

    #: Its content words (:func:`word_forms`) the question does not say.
    words: set[str]
    #: Without such words: the tokens it must hold, in order ("5" of "5 children").
    wanted: list[str]
    #: Per name word, the other words of the names the reference writes it in (:func:`name_uses`).
    names: dict[str, set[str]]


class _Said:
    """An answer read once for :func:`answer_share` and :func:`answer_match`: its content words, tokens and the
    names its words are written in, citation markers removed, and the content words of the question it answers
    (as :func:`word_forms`)."""

    def __init__(self, answer: str, question: str = "") -> None:
        text = strip_markers(answer or "")
        self.words, self.tokens, self.names = word_forms(text), _tokens(text), name_uses(text)
        self.asked = word_forms(question or "") - alternatives(question or "")

    def share(self, gold: str) -> float:
        """The share of ``gold``'s content words said (1 or 0 for a gold answer without content words), leaving
        out those the question says (:meth:`counted`)."""
        return self.share_of(self.counted(gold))

    def share_of(self, counted: Counted) -> float:
        """The share of the counted words said, each in a name of the same one (:meth:`same_name`), or without
        any, whether the wanted tokens are (1 or 0)."""
        if counted.words:
            said = [w for w in counted.words & self.words if self.same_name(w, counted.names.get(w))]
            return len(said) / len(counted.words)
        wanted = counted.wanted
        polar = bool(wanted) and wanted[0] in POLAR
        return float(bool(wanted) and (self.tokens[:1] == wanted[:1] if polar else _holds(self.tokens, wanted)))

    def counted(self, gold: str) -> Counted:
        """What of ``gold`` an answer must say: its content words the question does not say; when the question
        says them all, its other tokens ("5" of "5 children" for "How many children ...?", "yes" of "Yes, she
        is happy" for "Is Anne happy?"); when there are none, every content word ("red" for "Is it red?")."""
        words, wanted = word_forms(gold), _tokens(gold)
        names = {w: set().union(*uses) for w, uses in name_uses(gold, fragment=True).items()}
        if words - self.asked or not words:
            return Counted(words - self.asked or words, wanted, names)
        rest = [t for t in wanted if not word_forms(t) & self.asked]
        return Counted(set(), rest, names) if rest else Counted(words, wanted, names)

    def same_name(self, word: str, others: set[str] | None) -> bool:
        """Whether the answer says ``word`` of what the reference names with it and ``others``: somewhere outside
        a name ("the captain", "the Pyncheon family"), or in a name sharing one of ``others`` ("Mrs. Rachel
        Lynde" for "Mrs. Lynde"), or the reference writes it alone.  "Lady Elliot" says no "lady" of "Lady
        Russell", "Gervayse Pyncheon" no "Pyncheon" of "Hepzibah Pyncheon"."""
        return not others or any(not use or _alike(use, others) for use in self.names.get(word, [set()]))

    def left_out(self, gold: str, words: set[str]) -> list[str]:
        """``gold``'s content words as written that are not counted because the question says them."""
        return sorted({w for w in content_words(joined_numbers(gold))
                       if (form := _form(w)) in self.asked and form not in words})


def alternatives(question: str) -> set[str]:
    """The words that tell apart the alternatives a question offers: on each side of its "or", the nearest content
    word that is not a title (as :func:`word_forms`). An answer names one alternative, so its word counts although
    the question says it, while the words the alternatives share do not ("paint" of "red paint").

    >>> sorted(alternatives("Does Anne marry Captain Wentworth or Mr. Elliot?"))
    ['elliot', 'wentworth']
    >>> sorted(alternatives("Was the paint red or blue?")), alternatives("Who wrote it?")
    (['blue', 'red'], set())
    """
    words = [w.strip(",;:?!.\"'“”") for w in question.split()]
    out: set[str] = set()
    for n, word in enumerate(words):
        if word.lower() == "or":
            for side in (reversed(words[:n]), words[n + 1:]):
                named = next((w for w in side if word_forms(w) and w.lower() not in TITLES), "")
                out |= word_forms(named)
    return out


def word_forms(text: str) -> set[str]:
    """The content words of ``text`` (:func:`~kgcore.query.answer.words.content_words`) as compared: stemmed where
    the stem only drops an inflection (Snowball English, :data:`INFLECTIONS`: "died", "dies" and "die" are one
    word, "experiments" and "experience" two) and number words as figures ("nineteen" is "19").

    >>> sorted(word_forms("Lady Russell died at nineteen")), sorted(word_forms("experiments, experience"))
    (['19', 'die', 'ladi', 'russel'], ['experience', 'experiment'])

    A tens word and its unit are one number, and ordinals are figures with "th":

    >>> sorted(word_forms("twenty-one years")), sorted(word_forms("the nineteenth century")) == sorted(
    ...     word_forms("the 19th century")), sorted(word_forms("his twenty-first birthday"))
    (['21', 'year'], True, ['21th', 'birthday'])
    """
    return {_form(w) for w in content_words(joined_numbers(text))}


def joined_numbers(text: str) -> str:
    """``text`` with each tens word joined to its unit written as one figure ("twenty-one" as "21", "twenty
    first" as "21th"), which :func:`content_words` would split into two numbers.

    >>> joined_numbers("Twenty-one years, the forty third day, twenty one-dollar bills, a thirty-second pause")
    '21 years, the 43th day, twenty one-dollar bills, a thirty-second pause'
    """
    def figure(match: re.Match) -> str:
        tens, unit = match.group(1).lower(), match.group(2).lower()
        number = int(NUMBER_WORDS[tens]) + _COMPOUND_UNITS[unit]
        return str(number) if unit in NUMBER_WORDS else f"{number}th"

    return _COMPOUND.sub(figure, text)


_WORD_AT = re.compile(r"[A-Za-z]+")
#: What stands between two words of one name: a space ...
_IN_NAME = re.compile(r"\s+")
#: ... or after a title, its abbreviation's full stop ("Mrs. Lynde").
_AFTER_TITLE = re.compile(r"\.?\s+")
#: Punctuation after which a capitalised word may open a sentence, not continue a name.
_SENTENCE_BREAK = re.compile(r"[.!?:;\"“”]")


def name_uses(text: str, fragment: bool = False) -> dict[str, list[set[str]]]:
    """For each use of a word written in ``text``, the other words of the name it is written in (as
    :func:`word_forms`): the capitalised words next to it, titles (:data:`TITLES`) only beside a title,
    a sentence's first word (capitalised anyway) only when a name follows it ("Gervayse Pyncheon was ...") and
    never days, months and opening adjectives (:data:`NOT_NAMES`: "Old Matthew Maule"), unless ``text`` is a
    ``fragment`` (a reference answer: "White Sands School"); an empty set for a use outside a name.

    >>> uses = name_uses("Old Matthew Maule met Lady Elliot and the captain.")
    >>> {w: [sorted(u) for u in us] for w, us in uses.items() if w in ("maul", "ladi", "captain", "old")}
    {'old': [['matthew', 'maul']], 'maul': [['matthew']], 'ladi': [['elliot']], 'captain': [[]]}
    """
    found = list(_WORD_AT.finditer(text))
    runs: list[list[tuple[str, bool]]] = []  # (word, whether it names: see the docstring)
    for n, match in enumerate(found):
        word = match.group()
        gap = text[found[n - 1].end():match.start()] if n else ""
        title_before = n > 0 and found[n - 1].group().lower() in TITLES
        joined = n > 0 and bool((_AFTER_TITLE if title_before else _IN_NAME).fullmatch(gap))
        capital = word[0].isupper() and word.lower() not in STOPWORDS | NOT_NAMES
        if capital and joined and runs and runs[-1][-1][0][0].isupper():
            if not runs[-1][-1][1] and runs[-1][-1][0].lower() not in NOT_NAMES | STOPWORDS:
                runs[-1][-1] = (runs[-1][-1][0], True)  # a first word followed by a name is one of its words
            runs[-1].append((word, True))
        else:
            first = (n == 0 and not fragment) or (n > 0 and bool(_SENTENCE_BREAK.search(gap)))
            runs.append([(word, not first and capital)])
    out: dict[str, list[set[str]]] = {}
    for run in runs:
        for word, _ in run:
            if word.lower() in STOPWORDS or len(word) < 2:
                continue
            title = word.lower() in TITLES
            others = {_form(w.lower()) for w, names in run if names and w is not word
                      and w[0].isupper() and (title or w.lower() not in TITLES)}
            out.setdefault(_form(word.lower()), []).append(others)
    return out


def _alike(use: set[str], others: set[str]) -> bool:
    """Whether a name's words ``use`` share one with ``others``: the same, one a short form of the other ("St",
    "Fred"), or a spelling slip (:data:`SAME_SPELLING`, the same first letter: "Pynchon", "Pyncheon").

    >>> _alike({"pynchon"}, {"pyncheon"}), _alike({"fred"}, {"frederick"}), _alike({"elliot"}, {"russel"})
    (True, True, False)
    >>> _alike({"harri"}, {"larri"})
    False
    """
    return any(a == b or a.startswith(b) or b.startswith(a)
               or (a[0] == b[0] and SequenceMatcher(None, a, b).ratio() >= SAME_SPELLING)
               for a in use for b in others)


def _form(word: str) -> str:
    number = as_figure(word)
    if number is not None:
        return number
    stem = stemmer("english").stemWord(word)
    written = word[:-1] + "i" if word.endswith("y") else word  # Snowball writes a final y as i ("marri")
    if not written.startswith(stem):
        return word
    rest = written[len(stem):]
    doubled = bool(rest) and rest[0] == stem[-1] and rest[1:] in INFLECTIONS  # "stopped", "running"
    return stem if rest in INFLECTIONS or doubled else word


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
        tokens, counted = _tokens(gold), said.counted(gold)
        contains = bool(tokens) and _holds(said.tokens, tokens)
        recall, f1 = round(said.share_of(counted), 4), round(content_f1(answer_text, gold), 4)
        if (recall, contains, f1) > (best["recall"], best["contains"], best["f1"]):
            asked = said.left_out(gold, counted.words)  # what the question says, not counted
            best = {"gold": gold, "f1": f1, "contains": contains, "recall": recall, "asked": asked}
    best["matches"] = best["recall"] >= CORRECT_RECALL
    return best
