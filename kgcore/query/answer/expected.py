"""What a question expects as its answer: its kind and the noun it asks about.

The kind decides what a sentence must hold to answer the question (:mod:`~kgcore.query.answer.spans` finds it):

* ``number`` -- a quantity: "how many / much / large / big / long / far / old / often", and a what/which question
  about a measure ("what size", "what fraction of the tokens", "by what factor", "what is the maximum size of
  the chunks", "what are the common (N,R,W) values"); sizes, shares and ranges ("100-200 MB", "150–300 ms") are
  quantities, never times;
* ``time`` -- "when", "what year / date / century / period", "how soon";
* ``person`` -- "who", "which sister / character", "the name of her brother"; ``place`` -- "where", "what city /
  university", "the name of the school";
* ``reason`` -- "why"; ``manner`` -- "how did they select / is it evaluated" (a way or means);
* ``name`` -- a name or term: "what is the name of", "what is it called", and a what/which question about a
  kind of thing ("what technique", "which pre-training task", "what kind of model", "on what data"): the answer
  may be a proper name or a technical term or noun phrase the text introduces ("copy-on-write", "joint
  consensus", "Lazy space allocation"); for "what colour", a colour word;
* ``relation`` -- "how are Beatrice and Amory related?", "who is Darcy in relation to Amory?", "what
  relationship does Anne share with William?"; ``occupation`` -- "what is Anne's job?", "what profession does she
  have?", "what does he do for a living?" (both about people: :mod:`~kgcore.query.answer.people_questions`; their
  spans: :mod:`~kgcore.query.answer.people`);
* ``definition`` -- "what is the seed lexicon?"; ``yes/no`` -- "does the paper report macro F1?";
* ``action`` -- "what happened to X", "what did X do"; ``object`` -- "what did X buy" (the question's verb with a
  new object);
* None -- anything else.

Words alone decide most of it, so a blank spaCy pipeline (no tagger) gets the wh-word kinds right:

>>> import spacy
>>> blank = spacy.blank("en")
>>> [expected_answer(blank(q)).kind for q in ("Roughly how large is each tablet?", "How long did he serve?",
...     "When did it end?", "Who rescued them?", "Does the paper report macro F1?", "What size are chunks?",
...     "Why did he go?", "What is the name of the protocol?")]
['number', 'number', 'time', 'person', 'yes/no', 'number', 'reason', 'name']
>>> expected_answer(blank("What technique does GFS use for snapshots?"))
Expected(kind='name', noun='technique')
>>> expected_answer(blank("What kind of model do they use?")).describe()
'a name or term (the model)'
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.index.qa.base import WH_WORDS, asked_for, asks_action
from kgcore.query.answer.people_questions import people_kind

#: "how" + one of these asks for a quantity.
QUANTITY_HOW = frozenset(
    """many much large big long far old often tall wide high deep heavy fast small short frequently quickly
    expensive cheap low""".split())
#: A what/which question about one of these nouns asks for a quantity.
QUANTITY_NOUNS = frozenset(
    """size sizes number numbers amount percentage percent share fraction proportion ratio rate accuracy
    precision recall score scores f1 value values factor cap limit maximum minimum count length width height
    weight speed latency throughput cost price budget capacity dimension dimensionality threshold average mean
    total sum distance frequency probability temperature margin improvement improvements gain speedup age
    population perplexity bleu rouge error""".split())
TIME_NOUNS = frozenset("time year date day month week century decade era period season hour window".split())
PLACE_NOUNS = frozenset(
    """place city town country village state county island school college university hospital house street
    location region continent hotel church room building""".split())
PERSON_NOUNS = frozenset("person people man woman character author girl boy child member sister brother".split())
#: What a "what is the name of ..." question asks about by its noun.
NAME_NOUNS = frozenset("name names surname nickname title term word".split())
#: "what part of the country": the place noun after "of" is asked about.
PART_WORDS = frozenset("part parts region area section corner".split())
#: "what colour": a colour word answers it ("painted blue").
COLOUR_NOUNS = frozenset("color colour colors colours".split())
#: "what kind of X", "which type of X": the question is about X.
KIND_WORDS = frozenset("kind kinds type types sort sorts form forms category categories".split())
AUXILIARIES = frozenset(
    "is are was were be been do does did has have had can could will would should shall may might must".split())
DESCRIPTIONS = {
    "number": "a quantity (a number, size, share or range)", "time": "a time or date", "person": "a person",
    "place": "a place", "reason": "a reason", "manner": "a way or means", "name": "a name or term",
    "definition": "what it is", "yes/no": "yes or no", "action": "an action or event",
    "object": "what the question's verb acts on", "relation": "a tie between people (kin, a partner, friend or mentor)",
    "occupation": "an occupation (a job or profession)",
}


@dataclass(frozen=True)
class Expected:
    """A question's expected answer: its ``kind`` (see the module doc; None: any) and the ``noun`` a what/which
    question asks about ("technique" in "what technique", "" when none)."""

    kind: str | None
    noun: str = ""

    def describe(self) -> str:
        """The kind in words, for a verdict's reason.

        >>> Expected("number", "size").describe(), Expected(None).describe()
        ('a quantity (a number, size, share or range)', 'anything')
        """
        if self.kind is None:
            return "anything"
        text = DESCRIPTIONS.get(self.kind, self.kind)
        return f"{text} (the {self.noun})" if self.noun and self.kind == "name" else text


def expected_answer(q_doc) -> Expected:
    """The kind of answer the question (a spaCy doc) expects, and the noun it asks about."""
    words = [t.lower_ for t in q_doc]
    if not words:
        return Expected(None)
    wh_at = next((i for i, w in enumerate(words) if w in WH_WORDS), None)
    if wh_at is None or (words[0] in AUXILIARIES and wh_at > 1):
        return Expected("yes/no") if words[0] in AUXILIARIES else Expected(None)
    wh = words[wh_at]
    noun, subject = asked_noun(q_doc, wh_at) if wh in ("what", "which") else ("", False)
    if people := people_kind(q_doc, wh_at, noun):  # how people are related, someone's job
        return Expected(people, noun)
    if wh == "how":
        following = words[wh_at + 1] if wh_at + 1 < len(words) else ""
        if following in QUANTITY_HOW:
            return Expected("number")
        return Expected("time") if following == "soon" else Expected("manner")
    if wh == "what" and wh_at >= 2 and words[wh_at - 2:wh_at] == ["because", "of"]:
        return Expected("reason")
    by_noun = _kind_of_noun(noun)
    if by_noun is not None:
        return Expected(by_noun, noun)
    asked = asked_for(words)
    if asked == "person" and _is_copula_question(q_doc) and _proper_subject(q_doc):
        return Expected("definition")  # "Who is Paul Irving?": one of Anne's students
    if asked is not None:
        return Expected(asked, noun if asked == "name" else "")
    if wh in ("what", "which"):
        if asks_action(words):
            return Expected("action")
        copula = _is_copula_question(q_doc)
        if noun and not (subject and copula):
            return Expected("name", noun)
        if copula:
            return Expected("definition", noun)
        if any(t.pos_ == "VERB" for t in q_doc):
            return Expected("object")
    return Expected(None)


def _kind_of_noun(noun: str) -> str | None:
    if not noun:
        return None
    if noun in ("reason", "reasons", "cause", "purpose", "motive"):
        return "reason"
    if noun in QUANTITY_NOUNS:
        return "number"
    if noun in TIME_NOUNS:
        return "time"
    if noun in PLACE_NOUNS:
        return "place"
    if noun in PERSON_NOUNS:
        return "person"
    if noun in NAME_NOUNS or noun in COLOUR_NOUNS:
        return "name"
    return None


def asked_noun(q_doc, wh_at: int) -> tuple[str, bool]:
    """The noun a what/which question asks about, lower-cased, and whether it is the subject of "what is ...":
    the head of "what technique" / "which of the three dimensions", X of "what kind of X", the subject of "what
    is the maximum size of ..." (True); ("", False) when none."""
    tokens = list(q_doc)
    wh = tokens[wh_at]
    if not wh.dep_:  # not parsed
        return _noun_by_words([t.lower_ for t in tokens], wh_at)
    noun, subject = None, False
    if wh.dep_ == "det" and wh.head.pos_ in ("NOUN", "PROPN"):
        noun = wh.head
    elif wh.dep_ in ("attr", "nsubj") and wh.head.lemma_ == "be":
        noun = next((c for c in wh.head.children if c.dep_ in ("nsubj", "attr") and c.i != wh.i
                     and c.pos_ in ("NOUN", "PROPN")), None)
        subject = True
    elif wh.lower_ == "which":
        noun = next((c for p in wh.children if p.lower_ == "of" for c in p.children if c.dep_ == "pobj"), None)
    if noun is None:
        return "", False
    inner = next((c for p in noun.children if p.lower_ == "of" for c in p.children if c.dep_ == "pobj"), None)
    if noun.lower_ in KIND_WORDS or (noun.lower_ in NAME_NOUNS and inner is not None
                                     and _kind_of_noun(inner.lower_) in ("person", "place")) or (
            noun.lower_ in PART_WORDS and inner is not None and _kind_of_noun(inner.lower_) == "place"):
        noun = inner or noun  # "what kind of X"; "the name of the school": a place, "of her brother": a person;
        # "what part of the country": a place
    return noun.lower_, subject


def _noun_by_words(words: list[str], wh_at: int) -> tuple[str, bool]:
    """Without a parse: the word after what/which (after "kind of"), when it is no auxiliary or pronoun; the
    last word before "of" in "what is the maximum size of ..." (a subject)."""
    rest = [w for w in words[wh_at + 1:] if w.isalpha()]
    if len(rest) >= 3 and rest[0] in KIND_WORDS and rest[1] == "of":
        rest = rest[2:]
    if len(rest) > 2 and rest[0] in ("is", "are", "was", "were") and rest[1] in ("the", "a", "an"):
        after = rest[2:]
        stop = next((i for i, w in enumerate(after) if w in ("of", "that", "which", "in", "for", "used")), len(after))
        return (after[stop - 1], True) if stop else ("", False)
    if not rest or rest[0] in AUXILIARIES or rest[0] in ("of", "he", "she", "it", "they", "we", "you", "i"):
        return "", False
    return rest[0], False


def _is_copula_question(q_doc) -> bool:
    """"What is / are X?": the question's only verb is a form of "be"."""
    verbs = [t for t in q_doc if t.pos_ in ("VERB", "AUX")]
    return bool(verbs) and all(t.lemma_ == "be" for t in verbs)


def _proper_subject(q_doc) -> bool:
    """Whether the subject of "who is X?" is a proper name."""
    return any(t.dep_ == "nsubj" and t.pos_ == "PROPN" for t in q_doc)
