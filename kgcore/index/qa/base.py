"""Question–answer pairs: the value type, the generator Protocol and the shared quality filter.

A :class:`QAPair` is one atomic fact of one sentence asked as a question (the pairs of the QA-pair graph, grounded as in
GroundedKG): the answer is a span of the coreference-resolved sentence ``sentence_id``.  Backends (one file
each) implement :class:`QAGenerator`: ``frames`` (offline, from the stored SRL frames,
:mod:`kgcore.index.qa.frames`) and ``llm`` (an OpenAI-compatible endpoint, :mod:`kgcore.index.qa.llm`).

The quality filter (:func:`pair_problem`) keeps a pair only when

1. the answer holds a content word, is not a pronoun, a vague adverb ("there", "then") or an indefinite pronoun
   ("something", "anyone"; "nothing" answers and stays), and has at most
   :data:`MAX_ANSWER_WORDS` words (an atomic fact, not a paraphrase of the sentence);
2. the question holds a content word besides its wh-word and verb (no "What did he do?");
3. the answer is not already said by the question (every content word of the answer in the question:
   "Who gave Peter up?" — "Peter");
4. the question has at most :data:`MAX_QUESTION_WORDS` words;
5. its subject is not itself a question (a wh-word right after the inverted auxiliary: "What was *which* of the
   two sisters was preferred?"; "Who knew *what* Gilbert wanted?" stays).

Duplicates (same question and answer, case and spacing ignored) are dropped by :func:`unique_pairs`.

>>> pair_problem("Who lost one shoe among the cabbages?", "Peter", "lost")
''
>>> pair_problem("Where did Peter go?", "there"), pair_problem("Who ate it?", "Peter", "ate")
('answer is vague', 'question has no content word')
>>> pair_problem("What was which of the two sisters was preferred by Captain Wentworth?", "doubtful", "was")
'question has a second wh-word'
>>> pair_problem("Who knew what Gilbert wanted from her?", "Anne", "knew")
''
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from kgcore.core.qa_pair import QAPair
from kgcore.core.types import Sentence
from kgcore.index.qa.verb_forms import AUXILIARIES

MAX_ANSWER_WORDS = 15
MAX_QUESTION_WORDS = 30
#: Answer types (what a pair's answer is): who -> person, where -> place, when -> time, why -> reason,
#: how -> manner, what -> thing (or action for "what did X do"), and number when the answer counts.
ANSWER_TYPES = ("person", "place", "time", "reason", "manner", "thing", "action", "number")
PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself he him his himself she her hers herself it its itself we us our "
    "ours ourselves they them their theirs themselves one this that these those who whom which what".split()
)
#: Answers that name nothing: vague adverbs and the indefinite pronouns ("What must the ghost have?" — "something").
#: "nothing", "nobody" and "none" stay: they answer ("What did Raoul hear after that?" — "nothing").
VAGUE = frozenset("there here then now so thus once again soon later still also too away back up out someone somebody "
                  "something anyone anybody anything everyone everybody everything".split())
_STOP = frozenset(
    """a an the and or but if of to in on at by for with from into onto about as is are was were be been being
    do does did done have has had having not no so than then too very can could would should will shall may
    might must up out over under again once all any both each some such only own same just who whom whose what
    which where when why how""".split()
) | PRONOUNS
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand "
    "dozen score".split()
)


class QAGenerator(Protocol):
    """What every QA-pair backend provides."""

    name: str

    def generate(self, sentences: Sequence[Sentence], analyses: dict[str, dict]) -> list[QAPair]:
        """Pairs grounded in ``sentences`` (``analyses``: the parser output per sentence id)."""
        ...


#: Question words.
WH_WORDS = frozenset("who whom whose what which where when why how".split())


def asked_for(words: Sequence[str]) -> str | None:
    """What a question (its lower-cased words) asks for by its wh-word alone: person, place, time, reason,
    number or name (a what/which question about a name: "what name", "what was the parrot's name", "what did he
    call the island", "what was it called"; and "which" before a noun: "aboard which ship", "under which
    architect"); None when that takes more (what/which, how) — each answerer decides those its own way.

    >>> [asked_for(q.lower().rstrip("?").split()) for q in ("Who ran?", "How many buns?", "What year was it?",
    ...                                                     "On what date did he sail?", "In which year did it end?")]
    ['person', 'number', 'time', 'time', 'time']
    >>> [asked_for(q.lower().rstrip("?").split()) for q in ("What was the parrot's name?", "What did he call it?",
    ...     "Which surname did they use?", "What is the ship called?", "Why did he name him Friday?")]
    ['name', 'name', 'name', 'name', 'reason']
    >>> [asked_for(q.lower().rstrip("?").split()) for q in ("What did the man named Erik buy?",
    ...                                                     "What did Raoul do when Christine called?")]
    [None, None]
    >>> [asked_for(q.lower().rstrip("?").split()) for q in ("Aboard which ship did he sail?", "Which of them ran?",
    ...     "Which two men came?", "What did the key, which she had, open?")]
    ['name', None, None, None]
    >>> asked_for(["what", "did", "he", "eat"]) is None
    True
    """
    wh = next((w for w in words if w in WH_WORDS), None)
    joined = " ".join(words)
    if wh in ("who", "whom", "whose"):
        return "person"
    if wh == "where":
        return "place"
    if wh == "when" or re.search(r"\b(what|which) (time|year|day|month|date|hour|week|season|century|decade)\b",
                                 joined):
        return "time"
    if wh == "why":
        return "reason"
    if re.search(r"\bhow (many|much|old|long)\b", joined):
        return "number"
    if wh in ("what", "which") and _NAME.search(joined) and not asks_action(words):
        return "name"
    if wh == "which" and _WHICH_ONE.search(joined):
        return "name"
    return None


#: A contracted auxiliary glued to a word ("Diana'd", "Marilla'll"); not a possessive "'s".
GLUED = re.compile(r"\b([A-Za-z]+)['’](?:d|ll|re|ve|m)\b")


def unglued(text: str) -> str:
    """``text`` without the auxiliaries coreference left glued to a name ("I'd make" resolved to "Diana'd make").

    >>> unglued("What did Diana'd make?"), unglued("Marilla's house")
    ('What did Diana make?', "Marilla's house")
    """
    return GLUED.sub(r"\1", text)


_NAME = re.compile(r"\b(name|surname|nickname|call|calls|called)\b")
#: "Which ship / opera / large island": one named thing; not "which of", "which two workmen", "which one".
_WHICH_ONE = re.compile(r"\bwhich (?!of\b|one\b|ones\b|two\b|three\b|four\b|five\b|several\b|\d)[a-z]")


_ACTION = re.compile(r"\bwhat (happened|happens|happen)\b|\bwhat (did|does|do|will|would|could|can|should|was|were|is|"
                     r"are)\b.* (do|doing)( (to|with|about|for|when|while|after|before|once|if|then|next|there|"
                     r"here|now|first|at|in|on)\b.*)?$")


def asks_action(words: Sequence[str]) -> bool:
    """Whether a question (its lower-cased words) asks what happened or what someone did: "what happened to X",
    "what did X do", also "what did X do to Y / when ...", where "do" is the question's own verb.

    >>> [asks_action(q.lower().rstrip("?").split()) for q in (
    ...     "What did the rats do to the grain?", "What did Peter do when he saw the cat?", "What happened next?",
    ...     "What did he do?", "What did she buy?", "What did they do with the old boat?")]
    [True, True, True, True, False, True]
    """
    return bool(_ACTION.search(" ".join(filter(None, (w.strip("?!.,;:'\"") for w in words)))))


def words(text: str) -> list[str]:
    """Word tokens, lower-cased.

    >>> words("Mr. McGregor's garden!")
    ['mr', "mcgregor's", 'garden']
    """
    return [w.lower() for w in _WORD.findall(text)]


def content(text: str) -> set[str]:
    """Content words (stopwords and pronouns out, possessive ``'s`` and plural ``s`` cut)."""
    out = set()
    for w in words(text):
        w = re.sub(r"['’]s$", "", w)
        if w in _STOP or len(w) < 2:
            continue
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.add(w)
    return out


def is_pronoun(text: str) -> bool:
    """True for a bare pronoun ("he", "It", "them")."""
    return text.strip().lower() in PRONOUNS


#: Prepositions that end a name's head ("the Island of Despair").
_HEAD_ENDS = frozenset("of in on at to from for with by under over near into upon during".split())
#: Words skipped before a name's head ("The master of a ship" opens a sentence).
_NOT_NAMES = frozenset("the a an his her their my its this that these those our your i".split())


def is_name(text: str) -> bool:
    """True when the answer is a proper name: the head of its first noun phrase (the last word before "of" or
    another preposition, determiners skipped) is capitalised, other than "I", and not a possessive.

    >>> [is_name(t) for t in ("the Island of Despair", "Friday", "Philippe Garnier", "Mme. la Baronne de Castelot")]
    [True, True, True, True]
    >>> [is_name(t) for t in ("The poor creature's life", "Christine's scarf", "a performance of FAUST", "I")]
    [False, False, False, False]
    """
    head: list[str] = []
    for w in text.split():
        if w.lower() in _HEAD_ENDS and head:
            break
        if w.lower() not in _NOT_NAMES:
            head.append(w)
    last = head[-1] if head else ""
    return last[:1].isupper() and not last.endswith(("'s", "'"))


def is_number(text: str) -> bool:
    """True when the answer counts something ("five currant buns", "27 years").

    >>> is_number("five currant buns"), is_number("a loaf")
    (True, False)
    """
    return any(w.isdigit() or w in NUMBER_WORDS for w in words(text))


def pair_problem(question: str, answer: str, verb: str = "") -> str:
    """Why the pair fails the quality filter (see the module docstring), or ``''`` when it passes.

    ``verb`` is the question's predicate as written (its words do not count as content).
    """
    answer_words = content(answer)
    if not answer_words or is_pronoun(answer):
        return "answer has no content word"
    if answer.strip().lower() in VAGUE:
        return "answer is vague"
    if len(answer.split()) > MAX_ANSWER_WORDS:
        return "answer too long"
    question_words = content(question)
    if not question_words - content(verb):
        return "question has no content word"
    if answer_words <= question_words:
        return "answer is in the question"
    if len(question.split()) > MAX_QUESTION_WORDS:
        return "question too long"
    asked = words(question)
    if len(asked) > 2 and asked[1] in AUXILIARIES and asked[2] in WH_WORDS:  # not "Who knew what Gilbert wanted?"
        return "question has a second wh-word"
    return ""


def normalized(text: str) -> str:
    """Lower-cased words joined by one space (the key duplicates are found by)."""
    return " ".join(words(text))


def unique_pairs(pairs: Iterable[QAPair]) -> list[QAPair]:
    """``pairs`` without repeats of (sentence, question, answer), first kept."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for pair in pairs:
        key = (pair.sentence_id, normalized(pair.question), normalized(pair.answer))
        if key not in seen:
            seen.add(key)
            out.append(pair)
    return out
