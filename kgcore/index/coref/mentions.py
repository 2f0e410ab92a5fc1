"""Mentions and pronouns of one parsed sentence, for the ``heuristic`` coreference backend.

:func:`parse_mentions` reads a spaCy parse into candidate antecedents
(:class:`Mention`: noun-phrase heads with their span, role, number, gender and
animacy), resolvable third-person pronouns (:class:`Pronoun`, with the binding
facts resolution needs) and the person names the sentence mentions.  The word
lists of :mod:`kgcore.index.coref.lexicon` decide gender and animacy without a model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kgcore.index.coref.lexicon import (
    ANIMAL_NOUNS,
    BARE_NON_REFERENTS,
    CLAUSE_DEPS,
    COPULAS,
    FAMILY_NAMES,
    FEMALE_NAMES,
    FEMALE_NOUNS,
    FEMALE_TITLES,
    HUMAN_NOUNS,
    INTERJECTIONS,
    LEFT_DEPS,
    LIST_MARKER,
    MALE_NAMES,
    MALE_NOUNS,
    MALE_TITLES,
    MAX_MENTION_TOKENS,
    NAME_PARTICLES,
    OBJ_DEPS,
    PLACE_ENTS,
    PRONOUNS,
    SKIP_ENTS,
    SUBJ_DEPS,
    TIME_NOUNS,
    TITLES,
)
from kgcore.index.coref.pronouns import OBJ, OTHER, SUBJ, Pronoun, pronoun_of


@dataclass(slots=True)
class Mention:
    """A candidate antecedent: a noun phrase, or a pronoun already resolved (``text`` set)."""

    start: int
    end: int
    first: int
    head: int
    role: int
    plural: bool
    gender: str | None
    kind: str  # person | animal | thing | place | name
    tree: tuple[int, int]
    verb: int = -1
    lower_first: bool = False
    names: frozenset[str] = frozenset()
    lemma: str = ""
    #: The head's dependency label ("nsubj"; "npadvmod" for an address: "*Nurse*, she is asleep").
    dep: str = ""
    coordinated: bool = False
    text: str | None = None
    origin: int = -1
    #: The clauses and conjuncts after it, as (first token, last token, verb or -1): a pronoun inside one may refer
    #: to it ("Anne, who had risen to her feet"), unlike one inside its own phrase ("her feet" is not "her");
    #: :func:`modifying_clauses`.
    clauses: tuple[tuple[int, int, int], ...] = ()


@dataclass(slots=True)
class ParsedSentence:
    mentions: list[Mention]
    pronouns: list[Pronoun]
    persons: set[str] = field(default_factory=set)
    #: (name part, "m"/"f") for each name of unknown gender that a possessive of its own clause genders.
    gender_votes: list[tuple[str, str]] = field(default_factory=list)
    #: (name part, True) for each name of unknown gender written where a place stands, (name part, False) where
    #: someone acts (:func:`place_votes`).
    place_votes: list[tuple[str, bool]] = field(default_factory=list)


def parse_mentions(doc) -> ParsedSentence:
    """Candidate mentions, resolvable pronouns and person names of one parsed sentence."""
    first = next((t.i for t in doc if not t.is_punct and not t.is_space), -1)
    mentions: list[Mention] = []
    persons: set[str] = set()
    for tok in doc:
        if tok.pos_ == "PROPN" and tok.ent_type_ == "PERSON" and tok.lower_ not in TITLES:
            persons.add(tok.lower_)
        if tok.pos_ in ("NOUN", "PROPN") and _is_candidate(tok):
            mention = _mention(tok, first)
            mentions.append(mention)
            group = _coordination(tok, mention)
            if group is not None:
                mentions.append(group)
    pronouns = [p for p in (pronoun_of(t) for t in doc if t.lower_ in PRONOUNS) if p is not None]
    return ParsedSentence(mentions, pronouns, persons, gender_votes(doc), place_votes(doc))


#: The gender a possessive votes for its clause's subject: "n" is a thing (a rulebook's defined term).
VOTED = {"his": "m", "her": "f", "its": "n"}


def gender_votes(doc) -> list[tuple[str, str]]:
    """"Raoul shook his head", "Christine put her hand ...", "an Insurer arranges its affairs": a name of unknown
    gender as the subject whose direct object a "his"/"her"/"its" determines votes that gender ("n" for "its")
    for each of its name parts (most such possessives are the subject's;
    :func:`kgcore.index.coref.heuristic.learned_genders` takes the document's majority)."""
    votes = []
    for tok in doc:
        if tok.dep_ != "poss" or tok.lower_ not in VOTED or tok.head.dep_ != "dobj":
            continue
        subjects = [c for c in tok.head.head.children if c.dep_ == "nsubj" and c.pos_ == "PROPN"]
        if len(subjects) == 1:
            gender, _kind, names = _name_semantics(subjects[0])
            votes += [(n, VOTED[tok.lower_]) for n in sorted(names)] if gender is None else []
    return votes


#: Prepositions whose object is where something is or goes ("tea at Cottage", "the corridors in Clongowes").
LOCATIVE_PREPOSITIONS = frozenset("at in into inside near within outside".split())
#: Verbs whose "at" / "in" takes whom one looks at or believes in, not a place ("smiled at Cranly", "believed in
#: God").
NON_LOCATIVE_HEADS = frozenset("look stare glance gaze peer smile laugh grin sneer frown scowl wink nod shout "
                               "yell point aim throw believe trust delight rejoice".split())


def place_votes(doc) -> list[tuple[str, bool]]:
    """Where a name of unknown gender (no gendered title, no known first name) stands: ``True`` as the object of a
    locative preposition ("to have tea *at Cottage*"), ``False`` as a verb's subject ("*Cranly* laid his hand").
    :func:`kgcore.index.coref.heuristic.learned_places` takes the document's majority.  A name the tagger types
    votes as well, since its types are not consistent ("Bath" is a person in one sentence and a place in the
    next).  Every part of a name votes: "Echo Lodge", which the tagger calls a person, is a place by "lodge" and
    "echo" both (and so "Laura Place" votes for a Laura who lodges there: docs/methods.md).  A name its number
    modifies is a rulebook's part ("in Rule 3.2"), and a possessive is someone's home ("at Harville's"): neither
    is a place.

    >>> from kgcore.core.nlp import load_spacy
    >>> place_votes(load_spacy()("They rode up the avenue to have tea at Cottage."))
    [('cottage', True)]
    >>> place_votes(load_spacy()("We dined at Harville's with Anne."))
    []
    """
    votes = []
    for tok in doc:
        if tok.pos_ != "PROPN" or tok.dep_ == "compound":
            continue
        placed = tok.dep_ == "pobj" and tok.head.lower_ in LOCATIVE_PREPOSITIONS \
            and tok.head.head.lemma_.lower() not in NON_LOCATIVE_HEADS and not _numbered(tok) \
            and not any(c.dep_ == "case" for c in tok.children)
        if placed or (tok.dep_ == "nsubj" and tok.head.pos_ in ("VERB", "AUX")):
            gender, _kind, names = _name_semantics(tok)  # a title or a known first name gives a gender
            votes += [(n, placed) for n in sorted(names)] if gender is None else []
    return votes


def _numbered(tok) -> bool:
    """Whether a name is numbered: a rulebook's "in Rule 3.2" or "in Schedule 1" is no place; "at Clongowes two
    years" is one (the number counts the years)."""
    after = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return after is not None and after.like_num and after.head.i == tok.i


def _is_candidate(tok) -> bool:
    # Name parts ("Mrs." in "Mrs. Rabbit") belong to their head; dates and amounts are never referents.
    if tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].text == "-" and not tok.whitespace_:
        return False  # "tool" of a hyphenated "tool-shed" that the parser split apart
    if tok.lemma_ in BARE_NON_REFERENTS and not any(c.dep_ in ("det", "poss") for c in tok.children):
        return False
    if tok.lower_ in INTERJECTIONS:
        return False  # "Nay, then, ...": the tagger's name of nobody
    if is_list_marker(tok):
        return False
    if not tok.is_alpha and not any(ch.isalpha() for ch in tok.text):
        return False  # a stray "." the tagger called a noun
    return (tok.dep_ != "compound" and tok.ent_type_ not in SKIP_ENTS
            and tok.lemma_.lower() not in TIME_NOUNS and tok.lower_ not in TIME_NOUNS)


def is_list_marker(tok) -> bool:
    """Whether ``tok`` numbers a list item: "(i)", "(c)" or "iv)", which the tagger may call a noun.  ObliQA's
    rules have thousands, and "its" was resolved to "i's" and "c's" 121 times.

    >>> from types import SimpleNamespace as T
    >>> doc = [T(text=t) for t in "( c ) the firm and its ( iv ) rules of an ( LLC ) or xii )".split()]
    >>> for i, t in enumerate(doc): t.i, t.doc = i, doc
    >>> [t.text for t in doc if is_list_marker(t)]
    ['c', 'iv', 'xii']
    """
    doc = tok.doc
    if not LIST_MARKER.fullmatch(tok.text):
        return False
    before = doc[tok.i - 1].text if tok.i > 0 else ""
    after = doc[tok.i + 1].text if tok.i + 1 < len(doc) else ""
    return before == "(" or after == ")"


def _mention(tok, first: int) -> Mention:
    doc = tok.doc
    lo, hi = _span(tok)
    role, verb = _role(tok, first)
    gender, kind, names = _semantics(tok)
    if kind == "person" and gender is None:
        gender, names = _predicated(tok, names)
    plural = tok.tag_ in ("NNS", "NNPS") or "Plur" in tok.morph.get("Number")
    return Mention(
        start=doc[lo].idx, end=doc[hi].idx + len(doc[hi]), first=lo, head=tok.i, role=role,
        plural=plural, gender=gender, kind=kind, tree=(tok.left_edge.i, tok.right_edge.i), verb=verb,
        lower_first=lo == first and doc[lo].pos_ != "PROPN", names=names, lemma=tok.lemma_.lower(), dep=tok.dep_,
        clauses=modifying_clauses(tok, kind),
    )


def modifying_clauses(tok, kind: str) -> tuple[tuple[int, int, int], ...]:
    """The clauses and conjuncts after a noun that a pronoun inside may refer to it from, as (first token, last
    token, verb; -1 for a conjunct): a relative clause whose subject is the relative pronoun or absent ("Anne, who
    had risen to her feet"), a participle ("a young man gazing from a window and saying something to his
    companion"), an infinitive of a person ("the first man to lose his temper"), a conjunct ("each node and its
    parent").  Not a clause with a subject of its own ("the villages where their ancestors had lived"), nor the
    content of a noun ("the fact that its members disagreed", "the decision to close its doors").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("The fact that its members disagreed and the man who lost his dog were news.")
    >>> [len(modifying_clauses(t, "thing")) for t in doc if t.lower_ in ("fact", "man")]
    [0, 1]
    """
    kept = []
    for c in tok.rights:
        if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN"):
            kept.append((c.left_edge.i, c.right_edge.i, -1))
        elif c.dep_ in CLAUSE_DEPS and _subject_is_the_noun(c, kind):
            kept.append((c.left_edge.i, c.right_edge.i, c.i))
    return tuple(kept)


def _subject_is_the_noun(clause, kind: str) -> bool:
    """Whether the noun a clause modifies is its subject: a relative pronoun or no subject in a relative clause or
    participle; an infinitive only of a person or animal; never a "that" clause of content."""
    subjects = [c for c in clause.children if c.dep_ in SUBJ_DEPS]
    if any(c.tag_ not in ("WP", "WDT") and c.lower_ not in ("who", "which", "that") for c in subjects) or any(
            c.lower_ == "whom" for c in clause.children):
        return False  # its own subject: "the woman whom her brother loved" (the parser may call "whom" one too)
    if any(c.dep_ == "aux" and c.lower_ == "to" for c in clause.children):
        return kind in ("person", "animal")  # "the first man to lose his temper", not "a road to reach its centre"
    return clause.dep_ == "relcl" or not any(c.dep_ == "mark" for c in clause.children)  # not "the fact that"


def _predicated(tok, names: frozenset[str]) -> tuple[str | None, frozenset[str]]:
    """The gender and names of the subject a person noun is predicated of: in "Mr. Harrison was their new
    neighbor and she had never met him", the neighbor is Mr. Harrison, so "she" is someone else.  ``names``
    stay when the copula's subject is no name, a pronoun of no gender, or absent."""
    if tok.dep_ not in ("attr", "oprd") or tok.head.lemma_ not in COPULAS:
        return None, names
    subject = next((c for c in tok.head.children if c.dep_ in SUBJ_DEPS), None)
    if subject is None:
        return None, names
    if subject.pos_ == "PRON":
        return {"he": "m", "she": "f"}.get(PRONOUNS.get(subject.lower_, ("", ""))[0]), names
    gender, _kind, subject_names = _semantics(subject)
    return gender, names | subject_names if subject.pos_ == "PROPN" else names


def _describes(tok) -> bool:
    """Whether a name's modifier is an adjective (or participle) that describes, not a word of the name ("van" of
    "van Gogh" is one)."""
    return tok.dep_ in ("amod", "compound") and tok.pos_ != "PROPN" and tok.lower_ not in NAME_PARTICLES and (
        tok.pos_ in ("ADJ", "VERB") or tok.text.islower())


#: Punctuation that ends an ``of`` phrase inside a mention.
PHRASE_BREAKS = frozenset(", ; : -- —".split())


def _span(tok) -> tuple[int, int]:
    """Token range of a noun phrase: its modifiers and possessors, plus a short ``of`` phrase up to the first
    comma after its object (what follows is an apposition or a vocative: "You have heard the Angel of Music,
    Christine."; one before the object joins prepositions: "the conduct of, or the business of, the Body"), but
    not one a comma sets off: "Sir Walter Elliot, of Kellynch Hall," is Sir Walter Elliot, and a pronoun for him
    reads "Sir Walter Elliot's own amusement".

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Sir Walter Elliot, of Kellynch Hall, was vain; the Angel of Music sang.")
    >>> [doc[_span(t)[0]:_span(t)[1] + 1].text for t in doc if t.text in ("Elliot", "Angel")]
    ['Sir Walter Elliot', 'the Angel of Music']
    """
    # A name's adjective describes, it names nothing: "astonished Anne", "Poor Peter" are Anne and Peter (and the
    # small tagger's adjective "Little" makes "Little Lord Fauntleroy" "Lord Fauntleroy", the same person).
    lo = min([c.left_edge.i for c in tok.lefts if c.dep_ in LEFT_DEPS
              and not (tok.pos_ == "PROPN" and _describes(c))], default=tok.i)
    hi = tok.i
    doc = tok.doc
    for child in tok.rights:
        if child.dep_ == "prep" and child.lower_ == "of" and child.right_edge.i - lo < MAX_MENTION_TOKENS \
                and doc[child.i - 1].text not in PHRASE_BREAKS:
            obj = next((c.i for c in child.children if c.dep_ == "pobj"), child.right_edge.i)
            hi = next((t.i - 1 for t in doc[obj:child.right_edge.i + 1] if t.text in PHRASE_BREAKS),
                      child.right_edge.i)
            break
    while lo < tok.i and (doc[lo].is_punct or doc[lo].dep_ in ("cc", "preconj")):
        lo += 1
    while hi > tok.i and doc[hi].is_punct:
        hi -= 1
    return lo, hi


def _role(tok, first: int) -> tuple[int, int]:
    """Grammatical role (SUBJ/OBJ/OTHER) and the governing verb's index for subjects."""
    while tok.dep_ in ("conj", "appos") and tok.head is not tok:
        tok = tok.head
    dep, head = tok.dep_, tok.head
    if dep in SUBJ_DEPS:
        return SUBJ, head.i
    if dep == "attr" and any(c.dep_ == "expl" for c in head.children):
        return SUBJ, head.i  # the logical subject of "there were four little rabbits"
    if dep in OBJ_DEPS:
        return OBJ, head.i
    if dep in ("ROOT", "dep", "advmod", "npadvmod", "nmod") and tok.i == first:
        return SUBJ, head.i  # a sentence-initial noun the small parser misattached
    return OTHER, -1


def _semantics(tok) -> tuple[str | None, str, frozenset[str]]:
    """Gender (``f``/``m``/None), kind and the lower-cased name parts of a mention head."""
    if tok.pos_ == "PROPN" or tok.tag_ == "NNS" and tok.ent_type_ and tok.text[:1].isupper() and not tok.is_sent_start:
        return _name_semantics(tok)  # also a family the tagger calls a common noun: "The Musgroves are behaving"
    if tok.lemma_.lower() == "twin" and any(c.dep_ in ("amod", "compound") for c in tok.children):
        return None, "thing", frozenset()  # "a digital twin", not "the twins"
    return (*noun_semantics(tok.lemma_.lower(), tok.lower_), frozenset())


def noun_semantics(lemma: str, word: str = "") -> tuple[str | None, str]:
    """Gender (``f``/``m``/None) and kind of a common noun, by its lemma or its word as written.

    >>> noun_semantics("daughter"), noun_semantics("twin", "twins"), noun_semantics("heaven")
    (('f', 'person'), (None, 'person'), (None, 'thing'))
    """
    words = (lemma, word or lemma)
    if any(w in FEMALE_NOUNS for w in words):
        return "f", "person"
    if any(w in MALE_NOUNS for w in words):
        return "m", "person"
    if lemma in HUMAN_NOUNS:
        return None, "person"
    if lemma in ANIMAL_NOUNS:
        return None, "animal"
    return None, "thing"


def _name_semantics(tok) -> tuple[str | None, str, frozenset[str]]:
    parts = [c for c in tok.lefts if c.dep_ == "compound"] + [tok]
    words = [p.lower_ for p in parts]
    family = tok.lower_ if tok.lower_ in FAMILY_NAMES else ""  # "Mother says", "Father says"
    female = any(w in FEMALE_TITLES or w in FEMALE_NAMES for w in words) or family in FEMALE_NOUNS
    male = any(w in MALE_TITLES or w in MALE_NAMES for w in words) or family in MALE_NOUNS
    gender = "f" if female and not male else "m" if male and not female else None
    names = frozenset(w for w in words if w not in TITLES)
    if tok.ent_type_ == "PERSON" or female or male:
        return gender, "person", names
    if tok.ent_type_ in PLACE_ENTS:
        return None, "place", names
    return None, "name", names


def _coordination(tok, mention: Mention) -> Mention | None:
    """The plural mention ``Flopsy, Mopsy and Cotton-tail`` headed by its first conjunct."""
    if tok.dep_ == "conj":
        return None
    conjuncts, stack = [], [tok]
    while stack:
        for child in stack.pop().children:
            if child.dep_ == "conj" and child.pos_ in ("NOUN", "PROPN", "PRON"):
                conjuncts.append(child)
                stack.append(child)
    if not conjuncts:
        return None
    last = max(conjuncts, key=lambda t: t.i)
    end_token = tok.doc[_span(last)[1]]
    return dataclasses.replace(
        mention, end=end_token.idx + len(end_token), plural=True, gender=None, names=frozenset(), coordinated=True,
        clauses=(),  # the first conjunct's clause is not the group's: "the soldiers and the women who lost their"
        kind="person" if mention.kind in ("person", "name") else mention.kind,
    )
