"""Whether a name in a paper collection is someone: the cues a person's name leaves in papers.

spaCy's small model labels many single-word names PERSON in papers ("Chubby", "Stata", "Lucene", "Gmail"), and a
name's vector is no better at telling a system from a person.  Papers, though, leave cues wherever they name
someone, and a system name never has them:

* cited as an author: "(Khattab and Zaharia, 2020)", "Cho et al.", "Codd (1990)" (:func:`cited_author`);
* in an **author list** of the collection's reference entries ("[5] E. F. Codd. A relational model ...": Codd),
  a written surname of three letters or more, not an acronym (:func:`author_surnames`, :func:`is_author`);
* a title before it or saying, writing or thinking ("Mr. Lamport", "Dijkstra said": read by
  :mod:`~kgcore.index.views.entities.evidence`);
* resolved from "he" or "she" by coreference (:func:`has_personal_pronoun`);
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
from collections.abc import Iterable, Sequence

from kgcore.index.pdf.names import surnames
from kgcore.index.views.entities.names import normalise

#: Pronouns that only a person is referred to by.
PERSONAL_PRONOUNS = frozenset("he she him her his hers himself herself".split())
#: An author field longer than this is a misread entry (a title, a venue), not a list of names.
MAX_AUTHOR_WORDS = 40
#: A citation in a sentence: "[12]", "[2, 3]", "[Bro86]", "(1990)", "(Codd, 1990)".
_CITES = re.compile(r"\[[A-Za-z]{0,6}\d{1,4}[a-z]?(?:[,;\s]+[A-Za-z]{0,6}\d{1,4}[a-z]?)*[^\]]{0,20}\]"
                    r"|\((?:[^()]{0,60}[\s,])?(?:19|20)\d\d[a-z]?\)")
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
    alone is an organisation ("Anthropic. 2024. The Claude 3 model family").

    >>> sorted(author_surnames(["E. F. Codd", "GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T.", "F. P. Brooks, Jr"]))
    ['brooks', 'codd', 'ghemawat', 'gobioff', 'leung']
    >>> sorted(author_surnames(["Kandel S, Paepcke A (2011)", "IBM Corporation (2013)"]))
    ['corporation', 'kandel', 'paepcke']
    >>> sorted(author_surnames(["Reprinted in IEEE Computer, 20(4):10-19, April 1987, and in Brooks", "Anthropic"]))
    []
    """
    found: set[str] = set()
    for authors in author_lists:
        authors = _YEAR.sub("", _SUFFIX.sub("", authors)).strip()
        if not re.search(r"\d", authors) and 1 < len(authors.split()) <= MAX_AUTHOR_WORDS:
            found.update(normalise(s) for s in surnames(authors))
    return frozenset(found - {""})


def is_author(name: str, surnames_: frozenset[str] | set[str]) -> bool:
    """Whether ``name`` is written as a person's name (capital then lower case, three letters or more: not an
    acronym such as "SAS" of "SAS Institute Inc.") and is a surname of the collection's author lists."""
    written = name.strip()
    return (len(written) >= 3 and written[:1].isupper() and any(c.islower() for c in written)
            and normalise(written) in surnames_)


def has_personal_pronoun(texts: Sequence[str]) -> bool:
    """Whether coreference wrote the node as "he", "she" or another pronoun only a person is referred to by."""
    return any(t.strip().lower() in PERSONAL_PRONOUNS for t in texts)


def collection_surnames(index) -> frozenset[str]:
    """:func:`author_surnames` of every reference entry of every document of a loaded collection."""
    return author_surnames(ref.authors for entry in index.manifest.documents
                           for ref in index.references(entry.doc_id) if ref.authors)


def cited_person(name: str, sentences: Sequence[str], surnames_: frozenset[str]) -> bool:
    """Whether ``sentences`` cite ``name`` as an author ("Cho et al."), or it is one of the collection's author
    surnames (:func:`collection_surnames`) in a sentence that cites ("Blanco and Lioma in [2, 3]", "Brooks noted
    [Bro86]"; "Lidong Bing" of a reference list leaves "Bing is a search engine" alone).

    >>> cited_person("Brooks", ["As Brooks noted [Bro86], state is hard."], frozenset({"brooks"}))
    True
    >>> cited_person("Bing", ["We query Bing for the top pages."], frozenset({"bing"}))
    False
    """
    if any(cited_author(name, s) for s in sentences):
        return True
    return is_author(name, surnames_) and any(_CITES.search(s) for s in sentences)


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
