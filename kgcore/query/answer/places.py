"""Where a parsed sentence holds a place (:func:`place_spans`, the ``place`` kind of
:mod:`~kgcore.query.answer.spans`): a place entity, a locative phrase whose object can be a place, a place word
("home"), or for a question about a kind of place that has names ("what university") a named place only.  A
compound preposition says no place ("with regard to Bath", "in spite of the rain"), and a run of proper nouns
standing as a place is no person (:func:`a_place`, which the person spans read).
"""

from __future__ import annotations

from kgcore.index.coref.lexicon import TITLES
from kgcore.query.answer.expected import PLACE_NOUNS, Expected
from kgcore.query.answer.span_tokens import Span, entity_spans, is_new, local, noun_senses, proper_runs, subtree
from kgcore.query.answer.span_words import (
    COMPOUND_PREPOSITION_NOUNS,
    COMPOUND_PREPOSITIONS,
    LOCATIVE_PREPS,
    NAMED_PLACES,
    NOT_PEOPLE,
    PERSON_NOUNS,
    PLACE_ENTITIES,
    PLACE_ONLY_PREPS,
    PLACE_WORDS,
    TIME_ENTITIES,
    TIME_WORDS,
)


def a_place(run: list) -> bool:
    """Whether a run of proper nouns stands as a place, time or quantity: every word typed so (:data:`NOT_PEOPLE`)
    and the run the object of a preposition of place ("lands in Waldo County"; :data:`PLACE_ONLY_PREPS`), in
    apposition to such a place ("in Waldo County, Maine"), or a noun's modifier ("the Paris mob"); the small
    tagger calls Phoebe and Virginia places, so a run anywhere else ("Holgrave married Phoebe") may still be a
    person.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("A grant of lands in Waldo County was made.")
    >>> a_place(list(doc[5:7])), a_place(list(doc[0:1]))
    (True, False)
    >>> doc = load_spacy()("He owned lands in Waldo County, Maine, for years.")
    >>> [t.text for t in doc if t.ent_type_ and a_place([t])]
    ['County', 'Maine']
    """
    last = run[-1]
    while last.dep_ in ("appos", "conj") and last.head.pos_ == "PROPN" and last.head.ent_type_ in NOT_PEOPLE:
        last = last.head  # "in Waldo County, Maine": Maine stands where the place it is said of stands
    placed = last.dep_ == "pobj" and last.head.lower_ in PLACE_ONLY_PREPS and last.head.dep_ != "agent"
    modifier = last.dep_ == "compound" and last.head.pos_ == "NOUN"  # "the Paris mob"
    return all(t.ent_type_ in NOT_PEOPLE for t in run) and (placed or modifier)


def place_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    """A place entity, a locative phrase or a place word ("home"); for a question about a kind of place ("what
    university", "which city") a named place only: "in front of him" names no university, "to Princeton" does."""
    named = expected.noun in NAMED_PLACES
    spans = entity_spans(tokens, PLACE_ENTITIES, asked) + institutions(tokens, asked)
    for t in tokens:
        if t.lower_ in PLACE_WORDS and t.dep_ in ("advmod", "npadvmod", "dobj") and not named:
            spans.append((local(tokens, t), local(tokens, t) + 1))
        elif t.dep_ == "prep" and t.lower_ in LOCATIVE_PREPS and not _hyphenated(t) and not _compound_preposition(t):
            objects = [c for c in t.children if c.dep_ == "pobj" and (c.pos_ == "PROPN" or not named)]
            if any(o.lower_ not in TIME_WORDS and o.ent_type_ not in TIME_ENTITIES and _placelike(o)
                   and is_new(o, asked) for o in objects):
                spans.append(subtree(tokens, t))
    if expected.noun in PLACE_NOUNS:
        spans += [(a, b) for a, b in proper_runs(tokens, asked)
                  if not _a_person(tokens[a:b]) and _where_places_stand(tokens[a:b])]
    return spans


def _a_person(run: list) -> bool:
    """Whether a run of proper nouns is a person's name, which answers no question about a kind of place ("which
    college": "Stephen Dedalus" names no college; "what city": "Amory Blaine" names no city): the tagger calls a
    word of it a person and the run does not end in a place noun ("221B Baker Street" stays a street, though the
    tagger calls Baker a person).  A town named as a person is ("Elizabeth") reads as the person; in novels the
    person is the likelier reading, and on the NarrativeQA design books leaving such runs out of every place-noun
    question gained 0.007 at 200 words over leaving them out of institution questions only.  A name joined by "and"
    to a person's is a person's too ("linking Stephen and *Temple*"), when the tagger gave it no type of its own
    ("visited Diana and *Charlottetown*" keeps a place the tagger saw).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Cranly pushed on, linking Stephen and Temple like a celebrant.")
    >>> _a_person([doc[7]]), _a_person([doc[0]])
    (True, False)
    """
    last = run[-1]
    partners = ([last.head] if last.dep_ == "conj" else []) + [c for c in last.children if c.dep_ == "conj"]
    joined = not any(t.ent_type_ for t in run) and any(p.ent_type_ == "PERSON" for p in partners)
    return (joined or any(t.ent_type_ == "PERSON" for t in run)) and last.lemma_.lower() not in PLACE_NOUNS


def _where_places_stand(run: list) -> bool:
    """Whether a run of proper nouns can name a place: the tagger typed it a place or a building, or it stands
    where places do -- after a preposition of place ("went to *Clongowes*"; not an agent's "by": "written by
    Heron"), before a place noun ("the *Clongowes* boys") or joined to a place -- or, typed an organisation, is a
    verb's object ("attended *Harvard*").  A name the tagger left untyped anywhere else is a person more often in
    a novel ("*Cranly* pushed through the throng"), and so is an "organisation" said to be someone or doing
    something ("It was *Heron* who had called out"; "*Harvard* admitted him" is lost with them: counting such
    subjects as places lost 0.009 at 200 words on the NarrativeQA design books).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Cranly went to Clongowes.")
    >>> _where_places_stand([doc[0]]), _where_places_stand([doc[3]])
    (False, True)
    >>> doc = load_spacy()("He attended Harvard.")
    >>> _where_places_stand([doc[2]])
    True
    """
    if any(t.ent_type_ in PLACE_ENTITIES for t in run):
        return True
    last = run[-1]
    while last.dep_ in ("conj", "appos") and last.head.pos_ == "PROPN":
        last = last.head
    if run[-1].ent_type_ == "ORG" and last.dep_ == "dobj":
        return True
    return (last.dep_ == "pobj" and last.head.lower_ in LOCATIVE_PREPS and last.head.dep_ != "agent") or (
        last.dep_ == "compound" and last.head.pos_ == "NOUN")


def institutions(tokens: list, asked: set[str]) -> list[Span]:
    """Named places the tagger calls organisations: an ``ORG`` entity whose last word is a place noun ("Redmond
    College", "Belvedere College", "St. Mary's Hospital"), not one named after something else ("the Labour
    Party").

    The tagger may stretch the entity over the words before the name ("Stephen attended Clongowes Wood College"
    as one), so the span is the name: the place noun and the proper nouns right before it.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> doc = nlp("Two weeks later Anne and Gilbert would leave for Redmond College.")
    >>> [doc[a:b].text for a, b in institutions(list(doc), {"anne", "college"})]
    ['Redmond College']
    >>> doc = nlp("Stephen attended Clongowes Wood College.")
    >>> [doc[a:b].text for a, b in institutions(list(doc), {"stephen", "college", "attend"})]
    ['Clongowes Wood College']
    """
    spans = []
    for a, b in entity_spans(tokens, frozenset(("ORG",)), asked):
        if tokens[b - 1].lemma_.lower() not in PLACE_NOUNS:
            continue
        start = b - 1
        while start > a and tokens[start - 1].pos_ == "PROPN":
            start -= 1
        if start < b - 1 and any(is_new(t, asked) for t in tokens[start:b]):
            spans.append((start, b))
    return spans


def _hyphenated(token) -> bool:
    """Whether the token is the first part of a hyphenated word ("by" of "by-word"): no preposition."""
    return not token.whitespace_ and token.i + 1 < len(token.doc) and token.nbor(1).text == "-"


def _compound_preposition(token) -> bool:
    """Whether the preposition is part of a compound one that says no place: "with regard to", "in spite of", "by
    means of" (a bare noun of :data:`COMPOUND_PREPOSITION_NOUNS` between two prepositions), "according to", "due
    to" (:data:`COMPOUND_PREPOSITIONS`); "in front of", "in the case of the clock" are places.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> doc = nlp("With regard to Bath, she went to London.")
    >>> [(t.text, _compound_preposition(t)) for t in doc if t.dep_ == "prep"]
    [('With', True), ('to', True), ('to', False)]
    >>> [(t.text, _compound_preposition(t)) for t in nlp("He put it in the case of the clock.") if t.dep_ == "prep"]
    [('in', False), ('of', False)]
    """
    head = token.head
    if head.lower_ in COMPOUND_PREPOSITIONS and token.i == head.i + 1:
        return True
    if head.dep_ == "pobj" and token.i == head.i + 1 and token.lower_ in ("of", "to", "with") and _bare(head):
        return True  # the second word: "with regard *to*"
    return any(c.dep_ == "pobj" and c.i == token.i + 1 and _bare(c) and c.i + 1 < len(c.doc)
               and c.nbor(1).lower_ in ("of", "to", "with") for c in token.children)  # the first: "*in* spite of"


def _bare(noun) -> bool:
    """A noun of a compound preposition standing bare ("in *spite* of", not "in the *case* of the clock")."""
    words = (noun.lower_, noun.lemma_.lower())  # "by means of": the lemma of "means" is "mean"
    return any(w in COMPOUND_PREPOSITION_NOUNS for w in words) and not any(
        c.dep_ in ("det", "poss", "amod") for c in noun.children)


def _placelike(token) -> bool:
    """Whether a locative object can be a place: no pronoun ("to all of which"), number ("at six") or person ("to
    the man who ..."), unless a possessive makes one ("to her grandmother's"), nor a noun whose "of" says a clause
    ("from the circumstance of her having been at school"); a part of something is judged by the whole ("in one
    of the rooms")."""
    of = [c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"]
    if any(_says_a_clause(c) for c in of):
        return False  # a fact or an act, not a place: "from the fact of his having been poor", "in the habit of"
    whole = next((o for c in of for o in c.children if o.dep_ == "pobj"), None)
    if whole is not None and (token.pos_ in ("PRON", "DET", "NUM") or token.like_num):
        return _placelike(whole)
    person = token.ent_type_ == "PERSON" or token.lemma_.lower() in PERSON_NOUNS or _sense(token) == "person" or (
        _titled(token))
    possessive = any(c.dep_ == "case" for c in token.children)
    return not (token.pos_ in ("PRON", "DET", "NUM") or token.like_num or (person and not possessive) or (
        _no_place_noun(token) and not possessive))


#: WordNet lexicographer files (:mod:`kgcore.core.wordnet`) whose nouns name no place a "where" can ask for: a
#: locative phrase whose object's commonest senses are all of them says a feeling, a state, an act or a part of the
#: body (:func:`_no_place_noun`: "in his excitement", "in her heart", "to her face"), not where.  Food and animals
#: lie somewhere, and so are places ("among the *cabbages*", whose commonest sense is food); so are groups, for a
#: gathering ("at the *dance*", "at the *market*").
NO_PLACE_SENSES = frozenset(("person", "feeling", "cognition", "attribute", "state", "act", "communication", "time",
                             "motive", "quantity", "relation", "process", "phenomenon", "shape", "body"))
#: How many of a noun's commonest senses must all be in :data:`NO_PLACE_SENSES` (a path is first a course of
#: action, then a way to walk on).
SENSES_READ = 2
#: Titles before a name (beside :data:`~kgcore.index.coref.lexicon.TITLES`): ranks and offices.  Not every word for a
#: person: "White Sands" and "Baker Street" are places, though WordNet's commonest white and baker are people.
RANKS = frozenset("""colonel col. captain capt. major general gen. lieutenant admiral doctor dr dr. judge father
    reverend rev. professor prof. governor senator bishop""".split())


def _titled(token) -> bool:
    """Whether a proper noun follows a title, which makes it a person the tagger may not have called one: "from
    *Miss Hepzibah*", "to *Colonel Pyncheon*" (:data:`~kgcore.index.coref.lexicon.TITLES`, :data:`RANKS`), not a
    place named after one ("Bishop Street": a place noun)."""
    if token.pos_ != "PROPN" or token.lemma_.lower() in PLACE_NOUNS:
        return False
    first = min((c for c in token.children if c.dep_ == "compound"), key=lambda c: c.i, default=None)
    return first is not None and (first.lower_ in TITLES or first.lower_ in RANKS)


def _sense(token) -> str | None:
    """The lexicographer file of a common noun's commonest WordNet sense (None for other words, for a noun WordNet
    lacks, and without WordNet)."""
    senses = noun_senses(token)
    return senses[0] if senses else None


def _no_place_noun(token) -> bool:
    """Whether a common noun names no place by WordNet: its :data:`SENSES_READ` commonest senses are all of
    :data:`NO_PLACE_SENSES` ("excitement", "heart", "face"), and it is no place noun the word lists know
    ("location", "home").  "path" (an act, then an artifact), "market" and "dance" (a group) stay places."""
    lemma = token.lemma_.lower()
    if lemma in PLACE_NOUNS or lemma in PLACE_WORDS:
        return False
    senses = noun_senses(token)[:SENSES_READ]
    return bool(senses) and all(s in NO_PLACE_SENSES for s in senses)


def _says_a_clause(of) -> bool:
    """Whether an "of" holds a gerund or a clause with its own subject ("the habit of walking", "the fact of his
    having been poor"), or nothing the parser could attach (a clause it hung elsewhere), not a noun ("the middle
    of nowhere", "the top of the stairs")."""
    clause = [c for c in of.children if c.dep_ == "pcomp"
              and (c.tag_ == "VBG" or any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children))
              and not _free_relative(of, c)]
    return bool(clause) or not any(True for _ in of.children)


def _free_relative(of, clause) -> bool:
    """Whether the clause after "of" is a free relative, which names a thing or place: "the middle of *what had been
    the square*", "the edge of *where the forest began*" (not a gerund that holds one: "the habit of walking where
    the river bends")."""
    return clause.tag_ != "VBG" and clause.left_edge.i == of.i + 1 and clause.left_edge.tag_ in ("WP", "WRB", "WDT")
