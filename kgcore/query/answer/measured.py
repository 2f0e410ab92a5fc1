"""The measured thing: which noun a question asks the size of, and whether a span says that noun's size.

"How large is raw corpus used for training?" and "What chunk size is used?" ask the size of one thing -- the
*corpus*, the *chunks*.  The span that answers says that thing's size: "the corpus *of about 100 million
sentences*", "chunks, each consisting *of 256 tokens*", "the chunk size is set *to 256 tokens*"; not another
thing's ("the training set *of 0.6 million events*"), nor what happened to it ("the corpus was compiled by *12
annotators*"), nor a size it is compared with ("larger than the dataset *of 5,000 sentences*"), nor a size
denied ("the corpus is *not* 100 million sentences").

The measured thing is read from the question's words (:func:`measured_noun`): the subject of "be" after "how" and
a size word (:data:`SIZE_WORDS`: "how *large*", "how *old*"; not "how *accurate*"), or what a measure noun
(:data:`MEASURES`) measures when the wh-word asks for that measure ("*what* chunk *size*", "*what* is the *size*
of the chunks").  A name keeps all its words ("anne elliot"), so "Sir Walter Elliot was fifty-four" does not say
how old Anne Elliot was.  The answer pick's ``slot`` counts such a span (:mod:`~kgcore.query.answer.slots`), and
the verdict adds :data:`~kgcore.query.answer.verdict.MEASURED` to its strength.

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> thing = measured_noun(nlp("How large is raw corpus used for training?"))
>>> thing
Measured(key='corpus', words='corpus', size='large')
>>> doc = nlp("From the corpus of about 100 million sentences, we obtained 1.4 million pairs.")
>>> says_size(doc, (27, 48), thing), says_size(nlp("The corpus was compiled by 12 annotators."), (27, 39), thing)
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

#: Nouns that name a measure of a thing: "the *size* of the chunks", "the chunk *length*".
MEASURES = frozenset("size length number amount count width height depth weight volume capacity age".split())
#: Words after "how" that ask a size ("how *large*", "how *old*"), not a quality ("how *accurate*").
SIZE_WORDS = frozenset("large big small long short tall high wide deep heavy old far thick".split())
#: Size words that measure the subject itself whatever a preposition adds ("how *old* was Anne *at the time of* her
#: marriage" is Anne's age; "how *long* was Clifford *in jail*" is not Clifford's length).
OWN_SIZES = frozenset(("old", "tall", "heavy"))
_LENGTHS = frozenset("mile kilometre kilometer km metre meter foot feet ft yard inch cm centimetre centimeter "
                     "millimetre millimeter mm league pace furlong rod verst hand storey story".split())
_TIMES = frozenset("year month week day hour minute second decade century".split())
#: The units a size word's answer may be in ("how *far*": miles or days, not inhabitants); a size word not here
#: takes any: "large" and "big", and "long", "deep", "wide" and "high", which a paper measures in its own units
#: ("how long are the documents": *500 tokens*; "how deep is the encoder": *12 layers*).
UNITS = {"old": _TIMES, "far": _LENGTHS | _TIMES, "tall": _LENGTHS,
         "heavy": frozenset("pound lb ounce oz ton tonne kilogram kilogramme kilo kg gram stone hundredweight".split())}
#: Units of a duration, also as papers write them ("5 hours", "150 ms", "2.5 s").
TIME_UNITS = _TIMES | frozenset("ms millisecond microsecond nanosecond sec s min hr h night fortnight".split())
#: Verbs whose "how long" asks for a duration: "how long does the computation *take*", "did he *serve*".
DURATION_VERBS = frozenset("take last spend wait stay remain serve live run continue need require".split())


def asks_duration(q_doc) -> bool:
    """Whether the question asks how long something takes or lasts, which only a time answers ("How long does the
    computation take?" / "about five hours", not "518 million hyperlinks"); not "how long are the documents",
    which a paper measures in tokens.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [asks_duration(nlp(q)) for q in ("How long does the whole computation take?", "How long did he serve?",
    ...                                  "How long are the documents?", "How many hours does it take?",
    ...                                  "How long is the context window the model needs?")]
    [True, True, False, False, False]
    """
    long = _after_how(q_doc, "long")
    return long is not None and long.head.lemma_.lower() in DURATION_VERBS and long.head.pos_ in ("VERB", "AUX")


def _after_how(q_doc, word: str):
    """The question's token ``word`` right after "how" ("how *long*", "how *many*"), or None."""
    return next((t for t in q_doc if t.lower_ == word and t.i > 0 and t.nbor(-1).lower_ == "how"), None)


def says_duration(tokens) -> bool:
    """Whether a quantity span (its ``tokens``) is a duration: it holds a unit of time or is a date or time entity
    ("five hours", "two years", "150 ms").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("It took about five hours for 518 million hyperlinks.")
    >>> says_duration(doc[3:5]), says_duration(doc[6:9])
    (True, False)
    """
    return any(t.lemma_.lower() in TIME_UNITS or t.lower_ in TIME_UNITS or t.ent_type_ in ("DATE", "TIME")
               for t in tokens)


def counted_noun(q_doc) -> str:
    """The lemma of the noun "how many" counts ("How many NaturalQuestions *queries* are used?"), or "".

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> counted_noun(nlp("How many NaturalQuestions queries are used?")), counted_noun(nlp("How long is it?"))
    ('query', '')
    """
    many = _after_how(q_doc, "many")
    noun = many.head if many is not None and many.dep_ == "amod" else None
    return noun.lemma_.lower() if noun is not None and noun.pos_ == "NOUN" else ""


def counts_another(tokens, unit, counted: str) -> bool:
    """Whether a quantity whose ``unit`` is a common noun counts another thing than the ``counted`` one, which the
    sentence (its ``tokens``) names elsewhere: "How many queries?" is not answered by "*50 documents*" in a
    sentence about the queries; a sentence that never names the queries may count them in other words.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("We answer queries over 50 documents.")
    >>> counts_another(list(doc), doc[5], "query"), counts_another(list(doc)[4:], doc[5], "query")
    (True, False)
    """
    if not counted or unit.pos_ != "NOUN" or unit.lemma_.lower() == counted:
        return False
    return any(t.lemma_.lower() == counted and t.i != unit.i for t in tokens)


#: The size word a measure noun asks with, where :data:`UNITS` holds its units ("the *age* of" is "how *old*").
_SIZE_OF = {"age": "old", "height": "tall", "weight": "heavy"}
#: Verbs that say their subject's size ("the corpus *contains* 2M words"), not what happened to it ("was
#: *compiled* by 12 annotators").
SIZE_VERBS = frozenset("be have contain comprise consist include hold total number amount measure span reach weigh "
                       "set fix last".split())
#: Prepositions that can lead from a thing to its size ("chunks *of* 256 tokens", "set *to* 256 tokens").
SIZE_PREPOSITIONS = frozenset(("of", "with", "to", "at", "about", "around"))
#: Words after which a noun is another thing compared ("larger *than* the corpus of 2 billion words").
COMPARED = frozenset(("than", "unlike", "like", "versus", "vs."))
#: Pronouns that stand for the noun they follow ("chunks, *each* consisting of 256 tokens").
DISTRIBUTIVE = frozenset(("each", "both", "all"))


@dataclass(frozen=True)
class Measured:
    """The thing a question measures: ``key``, its lemma (a name: all its words' lemmas, "anne elliot"), and
    ``words``, as the question writes it ("data", "Anne Elliot"), for a verdict's reason."""

    key: str
    words: str
    #: The size word that asks it ("far"; "old" for "what is the *age* of"), "" for a size in any unit ("large").
    size: str = ""


def measured_noun(q_doc) -> Measured | None:
    """The thing whose size the question asks, or None.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [m and m.key for m in map(measured_noun, map(nlp, ("How big is the Japanese data?",
    ...  "What chunk size is used?", "What is the maximum size of the chunks?", "How many reviews are there?",
    ...  "How long was Clifford in jail?", "How accurate is the model?", "Who increased the size of the corpus?",
    ...  "How old was Anne at the time of her marriage?")))]
    ['datum', 'chunk', 'chunk', None, None, None, None, 'anne']
    """
    tokens = list(q_doc)
    at = next((k for k, t in enumerate(tokens) if t.lower_ in ("how", "what", "which")), None)
    if at is None:
        return None
    wh = tokens[at]
    if wh.lower_ == "how":
        if at + 2 >= len(tokens) or tokens[at + 1].lower_ not in SIZE_WORDS or tokens[at + 2].lemma_.lower() != "be":
            return None
        be = tokens[at + 2]
        subject = [c for c in be.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")]
        placed = any(c.dep_ == "prep" for c in be.children)  # "how long was Clifford *in jail*": a stay's length
        if not subject or (placed and tokens[at + 1].lower_ not in OWN_SIZES):
            return None
        return _measured(subject[0], tokens[at + 1].lower_)
    for t in tokens[at + 1:]:  # "*what* chunk *size*", "*what* is the *size* of the chunks"
        if t.pos_ == "NOUN" and t.lemma_.lower() in MEASURES and wh.head.i in (t.i, t.head.i):
            owners = _owners(t)
            return _measured(owners[0], _SIZE_OF.get(t.lemma_.lower(), "")) if owners else None
    return None


def _owners(measure) -> list:
    """The nouns a measure noun measures: its compound or possessor ("the *chunk* size"), its "of" ("the size *of
    the chunks*")."""
    owners = [c for c in measure.children if c.dep_ in ("compound", "poss") and c.pos_ in ("NOUN", "PROPN")]
    return owners + [o for p in measure.children if p.lower_ == "of" for o in p.children if o.dep_ == "pobj"]


def _measured(noun, size: str = "") -> Measured:
    """A noun as the measured thing, asked by the size word ``size``; a name with the names before it ("Anne
    Elliot")."""
    words = [noun]
    if noun.pos_ == "PROPN":
        words = [c for c in noun.children if c.dep_ == "compound" and c.pos_ == "PROPN" and c.i < noun.i] + words
    return Measured(" ".join(t.lemma_.lower() for t in words), " ".join(t.text for t in words), size)


def is_thing(noun, measured: Measured) -> bool:
    """Whether ``noun`` is the measured thing: the same lemma, or for a name, none of its words outside the
    question's name ("Elliot" and "Anne Elliot" for "Anne Elliot", not "Walter Elliot")."""
    if noun.pos_ == "PROPN":
        return set(_measured(noun).key.split()) <= set(measured.key.split())
    return noun.lemma_.lower() == measured.key.split()[-1]


def says_size(doc, span: tuple[int, int], measured: Measured | None) -> bool:
    """Whether the span (character offsets into ``doc``) says the size of the ``measured`` thing: some token of
    it stands in that thing's phrase (through the prepositions of :data:`SIZE_PREPOSITIONS`) or across a verb of
    :data:`SIZE_VERBS` from it, the verb not negated; not inside a compared thing's phrase, and not a count of the
    thing itself ("*two sisters*" for "how old was the sister?"), and in a unit the size word allows
    (:data:`UNITS`: "*300 inhabitants*" is no distance)."""
    start, end = span
    inside = [t for t in doc if start <= t.idx < end]
    return measured is not None and _in_unit(inside, measured.size) and any(_sizes(t, measured, span) for t in inside)


def _in_unit(tokens: list, size: str) -> bool:
    """Whether every number of the span that counts a noun counts a unit :data:`UNITS` allows for the size word
    ("three *miles*" for "far", not "300 *inhabitants*"); a number counting nothing passes ("a girl of nineteen").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("The village has 300 inhabitants, three miles from the sea.")
    >>> _in_unit(list(doc[3:5]), "far"), _in_unit(list(doc[6:8]), "far"), _in_unit(list(doc[3:5]), "large")
    (False, True, True)
    """
    units = UNITS.get(size)
    counted = [t.head for t in tokens if t.like_num and t.dep_ == "nummod" and t.head.pos_ in ("NOUN", "PROPN")]
    return units is None or all(n.lemma_.lower() in units for n in counted)


def _sizes(token, measured: Measured, span: tuple[int, int]) -> bool:
    """Whether one token of the span says the measured thing's size: climbing its heads, the thing is reached
    within its phrase, or a size verb whose subject stands for it -- or, for an age, any verb through "at" ("Anne
    married *at nineteen*"); any other clause, verb or preposition ends the climb.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Chunks of 256 tokens overlap by 32 tokens.")
    >>> thing = Measured("chunk", "chunks")
    >>> _sizes(doc[2], thing, (10, 20)), _sizes(doc[6], thing, (32, 41))  # "by": what they overlap by
    (True, False)
    """
    node, at = token, False
    for _ in range(8):
        if node.head.i == node.i or node.dep_ in ("relcl", "conj") or node.lower_ in COMPARED:
            return False  # a clause or a conjunct of its own, or a compared thing
        distance, node = node.dep_ == "npadvmod" and measured.size == "far", node.head
        if node.dep_ == "prep" and node.lower_ not in SIZE_PREPOSITIONS and not distance:
            return False  # "overlap *by* 32 tokens", "*two years* after"; but "*three miles* from the sea" for "far"
        at = at or node.lower_ == "at"
        if node.pos_ in ("NOUN", "PROPN") and not span[0] <= node.idx < span[1] and is_thing(node, measured):
            return not any(a.lower_ in COMPARED for a in node.ancestors)
        if node.pos_ in ("VERB", "AUX") and node.dep_ != "acl":
            aged = at and measured.size == "old"  # "Anne married *at nineteen*": her age when she did it
            return (node.lemma_.lower() in SIZE_VERBS or aged) and not any(c.dep_ == "neg" for c in node.children) \
                and any(c.dep_ in ("nsubj", "nsubjpass") and _stands_for(c, measured) for c in node.children)
    return False


def _stands_for(subject, measured: Measured) -> bool:
    """Whether a verb's subject is the measured thing, its measure ("the *size* of the corpus is", "the chunk
    *size* is set to"), or a :data:`DISTRIBUTIVE` pronoun right after it ("chunks, *each* consisting of") -- not
    a partitive ("*each of* the 5 annotators")."""
    if subject.pos_ in ("NOUN", "PROPN") and is_thing(subject, measured):
        return True
    if subject.lemma_.lower() in MEASURES:
        return any(is_thing(o, measured) for o in _owners(subject))
    if subject.lower_ not in DISTRIBUTIVE or any(c.lower_ == "of" for c in subject.children):
        return False
    before = [t for t in subject.doc[max(subject.i - 2, 0):subject.i] if not t.is_punct]
    return bool(before) and before[-1].pos_ in ("NOUN", "PROPN") and is_thing(before[-1], measured)
