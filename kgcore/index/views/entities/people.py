"""Whether a name in a paper collection is someone: the cues a person's name leaves in papers.

spaCy's small model labels many single-word names PERSON in papers ("Chubby", "Stata", "Lucene", "Gmail"), and a
name's vector is no better at telling a system from a person.  Papers, though, leave cues wherever they name
someone, and a system name never has them:

* cited as an author: "(Khattab and Zaharia, 2020)", "Cho et al.", "Codd (1990)" (:func:`cited_author`);
* in an **author list** of the collection's reference entries ("[5] E. F. Codd. A relational model ...": Codd),
  a written surname of three letters or more, not an acronym (:func:`author_surnames`, :func:`is_author`), in a
  sentence that cites an entry of that author by its number ("Codd [5] showed") or cites by a key or a year
  ("Brooks noted [Bro86]"; :func:`cited_person`);
* a title before it or saying, writing or thinking ("Mr. Lamport", "Dijkstra said": read by
  :mod:`~kgcore.index.views.entities.evidence`);
* resolved from "he" or "she" by coreference (:func:`has_personal_pronoun`, :func:`written_for_pronoun`);
* a first name and a surname that spaCy labels PERSON as a whole ("Jeff Dean", not "Chubby").

:mod:`~kgcore.index.views.entities.types` types person, in a paper collection, only a name with one of these cues:
a name without any is a thing, whatever NER or the vector says.

>>> cited_author("Zaharia", "shown (Khattab and Zaharia, 2020) to work"), cited_author("BERT", "BERT (2019)")
(True, False)
>>> is_author("Codd", {"codd", "date"}), is_author("SAS", {"sas"}), is_author("Chubby", {"codd"})
(True, False, False)
>>> has_personal_pronoun(["Lamport", "he"]), has_personal_pronoun(["Chubby", "it"])
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from kgcore.index.pdf.names import surnames
from kgcore.index.views.entities.evidence import TYPE_NOUNS
from kgcore.index.views.entities.names import normalise, singular

#: Pronouns that only a person is referred to by.
PERSONAL_PRONOUNS = frozenset("he she him her his hers himself herself".split())
#: Words after which a name is no antecedent's head ("Mayor of Neuilly").
_PREPOSITIONS = frozenset("of in at from for on to by with".split())
#: An author field longer than this is a misread entry (a title, a venue), not a list of names.
MAX_AUTHOR_WORDS = 40
#: Words that make an author field an organisation's name, whose last word is no surname ("IBM Corporation",
#: "R Core Team", "SAS Institute Inc.", "Google Research"): the type nouns of an organisation and more.
ORGANISATION_WORDS = frozenset({noun for noun, kinds in TYPE_NOUNS.items() if "organisation" in kinds}
                               | set("""inc ltd llc corp gmbh plc team group consortium foundation association
                                     society council committee center centre department ministry office bureau
                                     board commission alliance collaboration project research labs""".split()))
#: A citation by a key or a year in a sentence: "[Bro86]", "[HM93, Lam78]", "(1990)", "(Codd, 1990)".  A numbered
#: bracket ("[12]", "[0, 1]", "x[3]") is a citation only where it resolved to an entry of the document's
#: reference list (:attr:`~kgcore.core.types.Sentence.citations`).
_KEY = r"[A-Z][A-Za-z+]{0,5}(?:\d{2}|\d{4})[a-z]?"
_KEYED_CITES = re.compile(rf"\[{_KEY}(?:[,;]\s*{_KEY})*\]|\((?:[^()]{{0,60}}[\s,])?(?:19|20)\d\d[a-z]?\)")
_YEAR = re.compile(r"\(?\b(?:19|20)\d\d[a-z]?\b\)?")
_SUFFIX = re.compile(r",?\s+(Jr|Sr|II|III)\.?(?=,|$|\s+and\b)")


def cited_author(name: str, sentence: str) -> bool:
    """Whether ``name`` is cited as an author in ``sentence`` ("Zaharia, 2020", "Cho et al.", "Khattab and Zaharia").

    >>> cited_author("Cho", "as Cho et al. show"), cited_author("Dapper", "Dapper [12] traces requests")
    (True, False)
    """
    name = re.escape(name.strip())
    pattern = (rf"\b{name}( et al\.?|,? (and|&) [A-Z][\w-]+)?,? \(?(19|20)\d\d|\b{name} et al\b|"
               rf"[A-Z][\w-]+,? (and|&) {name},? \(?(19|20)\d\d")
    return bool(re.search(pattern, sentence)) and not name.isupper()


def author_surnames(author_lists: Iterable[str]) -> frozenset[str]:
    """The normalised surnames of reference entries' author lists (the authors' field of each entry); a field
    with digits or of over :data:`MAX_AUTHOR_WORDS` words is a misread entry, not a list of names, and one word
    alone ("Anthropic. 2024. The Claude 3 model family") or a word of :data:`ORGANISATION_WORDS` is an
    organisation.

    >>> sorted(author_surnames(["E. F. Codd", "GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T.", "F. P. Brooks, Jr"]))
    ['brooks', 'codd', 'ghemawat', 'gobioff', 'leung']
    >>> sorted(author_surnames(["Kandel S, Paepcke A (2011)", "IBM Corporation (2013)", "R Core Team"]))
    ['kandel', 'paepcke']
    >>> sorted(author_surnames(["Reprinted in IEEE Computer, 20(4):10-19, April 1987, and in Brooks", "Anthropic"]))
    []
    """
    found: set[str] = set()
    for authors in author_lists:
        found.update(_surnames_of(authors))
    return frozenset(found - {""})


def _surnames_of(authors: str) -> list[str]:
    """:func:`author_surnames` of one entry's author field."""
    authors = _YEAR.sub("", _SUFFIX.sub("", authors)).strip()
    if re.search(r"\d", authors) or not 1 < len(authors.split()) <= MAX_AUTHOR_WORDS:
        return []
    if any(singular(word) in ORGANISATION_WORDS for word in normalise(authors).split()):
        return []
    return [normalise(s) for s in surnames(authors)]


def is_author(name: str, surnames_: frozenset[str] | set[str]) -> bool:
    """Whether ``name`` is written as a person's name (capital then lower case, three letters or more: not an
    acronym such as "SAS" of "SAS Institute Inc.") and is a surname of the collection's author lists."""
    written = name.strip()
    return (len(written) >= 3 and written[:1].isupper() and any(c.islower() for c in written)
            and normalise(written) in surnames_)


def has_personal_pronoun(texts: Sequence[str]) -> bool:
    """Whether coreference wrote the node as "he", "she" or another pronoun only a person is referred to by."""
    return any(t.strip().lower() in PERSONAL_PRONOUNS for t in texts)


@dataclass(frozen=True)
class Authors:
    """A collection's author surnames (:func:`author_surnames`), and those of each reference entry, by
    (document id, entry key)."""

    surnames: frozenset[str] = frozenset()
    by_entry: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def cited_by(self, sentence) -> frozenset[str]:
        """The surnames of the entries ``sentence``'s numbered citation markers resolved to."""
        found = [self.by_entry.get((sentence.doc_id, key), frozenset()) for key in sentence.citations]
        return frozenset().union(*found)


def written_for_pronoun(name: str, sentences: Sequence) -> bool:
    """Whether coreference wrote ``name`` in place of "he", "she" or another pronoun only a person is referred to
    by in one of ``sentences`` (:class:`~kgcore.core.types.Sentence`: the words its ``normalized`` text and its
    ``resolved`` text differ by).  A resolving backend writes the antecedent into the sentence, so the node's
    mentions keep no pronoun (:func:`has_personal_pronoun` sees one only where a backend keeps it).

    >>> from kgcore.core.types import Sentence
    >>> said = lambda text, resolved: Sentence("s", 0, 0, 0, text, text, resolved)
    >>> written_for_pronoun("Lamport", [said("He proved it safe.", "Lamport proved it safe.")])
    True
    >>> written_for_pronoun("Chubby", [said("It runs Paxos.", "Chubby runs Paxos.")])
    False
    >>> written_for_pronoun("Neuilly", [said("Mayor of Neuilly, he ran.", "Mayor of Neuilly, Mayor of Neuilly ran.")])
    False
    """
    key = normalise(name)
    for sentence in sentences:
        if not key or sentence.resolved == sentence.normalized or key not in normalise(sentence.resolved):
            continue
        before, after = sentence.normalized.split(), sentence.resolved.split()
        for op, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            replaced = [normalise(w) for w in before[i1:i2]]
            if op == "replace" and replaced and set(replaced) <= PERSONAL_PRONOUNS \
                    and _heads(key, normalise(" ".join(after[j1:j2]))):
                return True
    return False


def _heads(name: str, antecedent: str) -> bool:
    """Whether the normalised ``name`` is the head of the normalised ``antecedent`` coreference wrote: all of
    it or its last words, possessive or not, and not after a preposition ("Neuilly" of "Mayor of Neuilly").

    >>> _heads("lamport", "leslie lamport s"), _heads("neuilly", "mayor of neuilly"), _heads("mayor", "the mayor")
    (True, False, True)
    """
    words, key = antecedent.split(), name.split()
    if words[-1:] == ["s"] and len(words) > len(key):
        words = words[:-1]
    before = words[:-len(key)]
    return words[-len(key):] == key and (not before or before[-1] not in _PREPOSITIONS)


def referred_to_as_person(index, node_ids: Sequence[str], sentences: int) -> set[str]:
    """The nodes of ``node_ids`` that coreference resolved "he" or "she" to, in their first ``sentences``
    grounded sentences (:func:`written_for_pronoun`) or in their mentions (:func:`has_personal_pronoun`)."""
    nodes = index.graph.nodes
    return {n for n in node_ids if has_personal_pronoun(nodes[n].texts) or written_for_pronoun(
        nodes[n].label, [index.sentence(s) for s in nodes[n].grounded_texts[:sentences]])}


def collection_authors(index) -> Authors:
    """The :class:`Authors` of every reference entry of every document of a loaded collection."""
    by_entry = {(entry.doc_id, ref.key): frozenset(_surnames_of(ref.authors)) for entry in index.manifest.documents
                for ref in index.references(entry.doc_id) if ref.authors}
    return Authors(frozenset().union(*by_entry.values()) - {""}, by_entry)


def cited_person(name: str, sentences: Sequence, authors: Authors) -> bool:
    """Whether ``sentences`` (:class:`~kgcore.core.types.Sentence`) cite ``name`` as an author ("Cho et al."), or
    it is one of the collection's author surnames (:func:`collection_authors`) in a sentence that cites an entry
    it wrote by number ("Blanco and Lioma in [2, 3]") or cites by a key or a year ("Brooks noted [Bro86]");
    "Lidong Bing" of a reference list leaves "Bing is a search engine" and "Bing [0, 1] scores" alone.

    >>> from kgcore.core.types import Sentence
    >>> said = lambda text, *cites: Sentence("s", 0, 0, 0, text, text, text, doc_id="d", citations=cites)
    >>> bing = Authors(frozenset({"bing", "brooks"}), {("d", "ref-2"): frozenset({"bing"})})
    >>> cited_person("Brooks", [said("As Brooks noted [Bro86], state is hard.")], bing)
    True
    >>> cited_person("Bing", [said("We query Bing [4] for the top pages.", "ref-4")], bing)
    False
    >>> cited_person("Bing", [said("As Bing and Chen show [2], it works.", "ref-2")], bing)
    True
    """
    if any(cited_author(name, s.original) for s in sentences):
        return True
    if not is_author(name, authors.surnames):
        return False
    key = normalise(name)
    return any(key in authors.cited_by(s) or _KEYED_CITES.search(s.original) for s in sentences)


def person_cue(written: str, texts: Sequence[str], reading) -> bool:
    """Whether a name (``written`` as the text writes it, ``texts`` its mentions) shows a person's cue in its
    sentences' ``reading`` (:class:`~kgcore.index.views.entities.evidence.Reading`): a title or a saying verb,
    "he" or "she" resolved to it, or a first name and a surname that NER labels PERSON in at least half of them.

    >>> from kgcore.index.views.entities.evidence import Reading
    >>> person_cue("Jeff Dean", [], Reading(ner=["person", None])), person_cue("Chubby", [], Reading(ner=["person"]))
    (True, False)
    """
    full_name = len(written.split()) >= 2 and 0 < 2 * reading.ner.count("person") >= len(reading.ner)
    return reading.person > 0 or has_personal_pronoun(texts) or full_name
