"""What the sentences grounding a name say it is, read with spaCy: its named-entity label, the type noun the text
gives it, and whether the text uses it as a thing or as a person.

spaCy's small model labels many system names PERSON ("Chubby", "Paxos", "Ragas" in systems papers), yet the
sentences that ground a name usually say what it is:

* a **type noun** it is said to be: a copula ("Chubby is a lock service"), an apposition ("Bigtable, a distributed
  storage system"; "a lock service, Chubby"), the noun it names ("the Chubby lock service", "our Paxos
  protocol") or the noun it is called ("a tracing system called Dapper");
* used as a **thing**: after a determiner or possessive ("the Chubby", "our Paxos"), in the plural, or naming
  another noun ("Chubby cells", "a Bigtable cluster");
* used as a **person**: after a title ("Mr. Lamport", "Dr. Dean") or saying, writing or thinking ("Lamport
  argued").

:func:`read_names` parses each name's first grounded sentences once (parser and NER) and returns a
:class:`Reading` per name; :mod:`~kgcore.index.views.entities.types` types a name by its type nouns first, then
person when it is used as one (and, in papers, more often than as a thing), then by NER; in papers (any type set
but a story's) it never types person a name read as a thing more often than as a person ("the Phantom" is
someone in a story, so there a determiner says nothing).

>>> from kgcore.index.views.entities.types import NARRATIVE, RESEARCH
>>> noun_type("service", RESEARCH), noun_type("algorithm", RESEARCH), noun_type("island", NARRATIVE)
('system', 'method', 'place')
>>> Reading(said={"system": 2, "method": 1}).type_said(), Reading(thing=2, person=1).is_thing()
('system', True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgcore.index.views.entities.names import HONORIFICS, normalise, singular, strip_honorific

#: A type given by a type noun ("a lock service") outranks NER's label but not a pattern of the name itself.
EVIDENCE_CONFIDENCE = 0.8
#: Places in a story ("the island", "Castle Street").
PLACE_WORDS = frozenset("""island house garden street town city river sea wood hill road room opera theatre church
    country cellar lake coast bay cave village""".split())
_KINDS = {
    ("system",): """system service library database store server tool toolkit software platform engine
        infrastructure package application compiler scheduler runtime middleware prototype
        filesystem datastore""",
    ("system", "method"): "framework",
    ("method",): """algorithm protocol method technique approach scheme heuristic procedure mechanism strategy""",
    ("model",): "model network retriever encoder transformer",
    ("dataset",): "dataset corpus benchmark treebank",
    ("metric",): "metric measure",
    ("organisation",): """company corporation university laboratory lab institute organization organisation firm
        startup agency publisher government""",
    ("person",): "researcher author scientist professor engineer student inventor man woman boy girl",
    ("place",): " ".join(sorted(PLACE_WORDS)),
}
#: A type noun (singular, lower case) -> the types it gives, the first a type set has wins.
TYPE_NOUNS: dict[str, tuple[str, ...]] = {noun: kinds for kinds, nouns in _KINDS.items() for noun in nouns.split()}
#: Words before a name that make it a thing ("the Chubby", "our Paxos").
_DETERMINERS = frozenset("the a an our their its this these those each every any".split())
#: Verbs whose subject is someone ("Lamport argued"), as written (the lemmatizer is not run).
_SAYING = frozenset("""say says said write writes wrote argue argues argued tell tells told think thinks thought
    believe believes believed explain explains explained remark remarks remarked recall recalls recalled""".split())
_BE = frozenset("is are was were be been being".split())
#: Verbs whose subject is software ("Chubby stores small files", "Bigtable serves data"), as written.
SYSTEM_VERBS = frozenset("""run runs ran store stores stored serve serves served cache caches cached replicate
    replicates replicated execute executes executed compile compiles compiled host hosts hosted""".split())
#: Nouns that name software only with a word of software beside them ("a programming language").
_SOFTWARE_KINDS = frozenset({"language", "environment"})
_SOFTWARE_WORDS = frozenset("programming query scripting software".split())
#: (preposition, its head) of code written in a name ("implemented in Python", "lines of Scheme"): the head.  Only
#: verbs of code: after a verb of making anything ("developed", "built", "written") "in" names a place, a time, a
#: style or a natural language as often as a programming language ("developed in Berkeley", "written in French").
_WRITTEN_IN = frozenset({("in", w) for w in "implemented coded programmed".split()}
                        | {("of", "lines"), ("of", "line")})
_CODE = frozenset({w for _, w in _WRITTEN_IN})
#: Titles before a person's name (HONORIFICS less the words a thing may follow: "old", "little", "young", "le").
_TITLES = frozenset(h for h, _ in HONORIFICS.items() if h not in {"old", "little", "young", "la", "le", "count"})
#: spaCy's named-entity labels kept, per kind of collection (others say nothing of the type).
NER_MAP = {"research": {"PERSON": "person"},
           "narrative": {"PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place", "ORG": "organisation"}}
#: The components run: the parser for what a name is, NER for its label (no tagger: a type noun is a noun).
_PIPES = ("tok2vec", "parser", "ner")


def noun_type(noun: str, type_set) -> str | None:
    """The type a type noun gives a name in ``type_set`` (its first preference the set has), or None."""
    return next((t for t in TYPE_NOUNS.get(singular(noun), ()) if t in type_set.descriptions), None)


@dataclass
class Reading:
    """What a name's sentences say of it: NER's label in each, types given by type nouns (with how many
    sentences give each), and how many use it as a thing or as a person."""

    ner: list[str | None] = field(default_factory=list)
    said: dict[str, int] = field(default_factory=dict)
    thing: int = 0
    person: int = 0

    def type_said(self) -> str | None:
        """The type most sentences give the name by a type noun (the first said on a tie), or None."""
        return max(self.said, key=lambda t: self.said[t]) if self.said else None

    def is_thing(self) -> bool:
        return self.thing > self.person


def read_names(names: Sequence[str], sentences: Sequence[Sequence[str]], type_set, nlp,
               ner_sentences: int) -> list[Reading]:
    """A :class:`Reading` of each name in its sentences (NER's label from the first ``ner_sentences`` of them).
    spaCy parses all of them in one pass; ``pipe(disable=...)`` skips the other components for this call only
    (``select_pipes`` would disable them in the process's one shared pipeline, under a question another thread
    parses meanwhile)."""
    mapping = {k: v for k, v in NER_MAP.get(type_set.name, NER_MAP["narrative"]).items() if v in type_set.descriptions}
    flat = [(i, k, text) for i, texts in enumerate(sentences) for k, text in enumerate(texts)]
    skipped = [p for p in nlp.pipe_names if p not in _PIPES]
    out = [Reading() for _ in names]
    for (i, k, _), doc in zip(flat, nlp.pipe([text for _, _, text in flat], batch_size=256, disable=skipped)):
        reading, target = out[i], strip_honorific(names[i])[1]  # spaCy's PERSON "Lamport" of "Mr. Lamport"
        if k < ner_sentences:
            found = [mapping.get(ent.label_) for ent in doc.ents if target and target in normalise(ent.text)]
            reading.ner.append(next((t for t in found if t), None))
        _read_uses(doc, names[i], type_set, reading)
    return out


def _read_uses(doc, name: str, type_set, reading: Reading) -> None:
    """Add what ``doc`` says of ``name`` (its first mention) to ``reading``."""
    found = re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", doc.text) if name.strip() else None
    span = doc.char_span(found.start(), found.end(), alignment_mode="expand") if found else None
    if span is None or not len(span):
        return
    root = span.root
    said = _type_noun(root, type_set)
    if said is not None:
        reading.said[said] = reading.said.get(said, 0) + 1
    before = doc[span.start - 1].lower_.rstrip(".") if span.start else ""
    titled = before in _TITLES or span[0].lower_.rstrip(".") in _TITLES
    verb = subject_verb(root)
    if titled or (verb is not None and verb.lower_ in _SAYING):
        reading.person += 1
    elif (before in _DETERMINERS or any(c.dep_ in ("det", "poss") for c in root.children)
          or _names_a_noun(root)):
        reading.thing += 1


def _type_noun(root, type_set) -> str | None:
    """The type a type noun next to ``root`` gives it (:func:`_nouns_beside`), else the type the verb it is the
    subject of gives it ("Chubby stores small files": system), else None."""
    found = [_noun_type_of(n, type_set) for n in _nouns_beside(root)]
    verb = subject_verb(root)
    if verb is not None and verb.lower_ in SYSTEM_VERBS and "system" in type_set.descriptions:
        found.append("system")
    return next((t for t in found if t is not None), None)


def _nouns_beside(root) -> list:
    """The nouns that say what ``root`` is: the noun it names ("the Chubby lock service"), is ("Chubby is a lock
    service", "the language was Prolog"), stands beside ("Bigtable, a storage system"), is called ("a system
    called Dapper") or an example of ("environments such as SAS, SPSS and Stata"; the first of several names
    joined by "and" stands for all); and code made in it ("implemented in Python", "lines of Scheme"; not
    "written in English" nor "developed in Berkeley")."""
    nouns = []
    if _names_a_noun(root):
        nouns.append(root.head)
    if root.dep_ == "appos":
        nouns.append(root.head)
    nouns += [c for c in root.children if c.dep_ == "appos"]
    if root.dep_ in ("nsubj", "nsubjpass") and root.head.lower_ in _BE:
        nouns += [c for c in root.head.children if c.dep_ == "attr"]
    if root.dep_ == "attr" and root.head.lower_ in _BE:
        nouns += [c for c in root.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    if root.dep_ in ("oprd", "dobj") and root.head.lower_ in ("called", "named", "dubbed") and root.head.dep_ == "acl":
        nouns.append(root.head.head)
    first = _first_conjunct(root)
    if first.dep_ == "pobj" and first.head.lower_ == "as" and any(c.lower_ == "such" for c in first.head.children):
        nouns.append(first.head.head)
    if first.dep_ == "pobj" and (first.head.lower_, first.head.head.lower_) in _WRITTEN_IN:
        nouns.append(first.head.head)
    return nouns


def _noun_type_of(noun, type_set) -> str | None:
    """The type a noun token gives: :func:`noun_type`, or system for a language or an environment of software
    ("a logic programming language", "statistical programming environments"; "English" is no system), or for
    code ("implemented in", "lines of")."""
    word = noun.lower_
    if word in _CODE and "system" in type_set.descriptions:
        return "system"
    if singular(word) in _SOFTWARE_KINDS and "system" in type_set.descriptions:
        return "system" if any(c.lower_ in _SOFTWARE_WORDS for c in noun.subtree) else None
    return noun_type(word, type_set)


def subject_verb(root):
    """The verb ``root`` is the subject of, alone or among names joined by "and" ("Chubby and GFS serve clients":
    serve, for both), or None.  A name the parser hung on the sentence's verb as a modifier before
    it is that verb's subject too (the small model reads "Bigtable" of "Bigtable and GFS run on ..." as an
    adjective of "run").  Verbs joined to that verb are not read: the small model joins words of other clauses
    to it ("The flow begins with ... read/write access": "write")."""
    first = _first_conjunct(root)
    verb = first.head
    misread = first.dep_ == "amod" and verb.dep_ == "ROOT" and first.i < verb.i
    return verb if verb is not first and (first.dep_ == "nsubj" or misread) else None


def _first_conjunct(token):
    """The first of names joined by "and" / "or" ("SPSS" in "SAS, SPSS and Stata" -> "SAS")."""
    while token.dep_ == "conj" and token.head is not token:
        token = token.head
    return token


def _names_a_noun(root) -> bool:
    """Whether the name modifies a common noun ("Chubby cell"; not "Jeff" of "Jeff Dean")."""
    return root.dep_ == "compound" and root.head.text[:1].islower()
