"""Entity pages: the documents of a collection that are each about one entity (an encyclopedia's articles), their
names and aliases, and the typed relations their sentences state.

A collection of Wikipedia-style paragraphs has one document per entity: its title line ("Chris Menges", "Boots
(EP)") names the entity, and the lead sentence gives its full name, its dates and what it is ("Chris Menges BSC, ASC
(born 15 September 1940) is an English cinematographer and film director.").  A question that chains facts ("When
was the director of CrissCross born?") walks from one page to the page its sentence names ("CrissCross is a 1992
American drama film directed by Chris Menges" -> "Chris Menges"); :mod:`kgcore.query.multihop` does the walk, this
view says where every name leads and what each sentence states:

* **names**: the title, the title without its parenthesis ("Boots (EP)" -> "Boots"), and aliases of the lead
  sentence: the full name before the apposition ("Sir Alexander Chapman Ferguson"), a birth name ("born Leslie
  Lynch King Jr."), a stage or known-as name ("known by the stage name Badly Drawn Boy");
* **typed relations**, grounded in their sentence: from the apposition of a lead sentence ``born-on``,
  ``died-on``, ``born-in``, ``died-in`` ("(born 1 May 1900 in Paris)", "(4 May 1881 – 11 June 1970)"), and from
  the frames of encyclopedic prose ``directed-by``, ``written-by``, ``produced-by``, ``starring``, ``founded-by``,
  ``created-by``, ``recorded-by``, ``member-of``, ``mother-of``, ``father-of``, ``son-of``, ``daughter-of``,
  ``spouse-of``, ``sibling-of``, each with the name it leads to, and ``founded-on`` ("was founded in 1838");
* **weak names**, where one page alone would have them: the acronym its lead sentence defines, a person's
  surname ("the Nixon administration" -> "Richard Nixon") and a ruler's rank with the given name ("King Lothair"
  -> "Lothair II", unless another king is called Lothair).

The relations are read by patterns over the sentence text (the passive frame's agent after "directed by", the
apposition's dates): SRL of a copular lead sentence gives one entity node and no edge, so the frames the
parser sees do not hold these facts.  A collection of books has no entity pages (a book's title names no entity of
its text), and the view is empty but for the books' titles.

>>> typed_relations("CrissCross is a 1992 American drama film directed by Chris Menges and written by Scott Sommer.")
[('directed-by', 'Chris Menges'), ('written-by', 'Scott Sommer')]
>>> typed_relations("Scott Derrickson (born July 16, 1966) is an American director.", lead=True)
[('born-on', 'July 16, 1966')]
>>> typed_relations("Van Conner (born March 17, 1967 in Apple Valley, California) is an American musician.", lead=True)
[('born-on', 'March 17, 1967'), ('born-in', 'Apple Valley')]
>>> aliases("Damon Michael Gough (born 2 October 1969), known by the stage name Badly Drawn Boy, is a singer.")
['Damon Michael Gough', 'Badly Drawn Boy']
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgcore.core.types import BODY, FRONT_MATTER
from kgcore.index.store.in_memory import CacheKey, Index

#: A name: capitalised words, joined by the particles and initials names carry ("Ludwig van Beethoven", "C. S.").
NAME = r"[A-Z][\w'’.\-]*(?:\s+(?:(?:de|da|del|van|von|der|la|le|of|the|and|y|al|bin)\s+)*[A-Z0-9][\w'’.\-]*)*"
MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
         r"Jan|Feb|Mar|Apr|Aug|Sept|Sep|Oct|Nov|Dec)\.?")
DATE = rf"(?:\d{{1,2}}\s+{MONTH}\s+\d{{3,4}}|{MONTH}\s+\d{{1,2}},?\s+\d{{3,4}}|{MONTH}\s+\d{{3,4}}|\d{{3,4}})"
#: The frames of encyclopedic prose that chain: relation -> the words that introduce the name it leads to.
FRAMES: dict[str, str] = {
    "directed-by": r"(?:co-)?directed(?: and (?:co-)?(?:written|produced))? by",
    "written-by": r"(?:(?:co-)?written(?: and directed)?|novel|book|story|play|memoir|poem|essays?) by",
    "produced-by": r"(?:co-)?produced by",
    "starring": r"starring|stars|starred",
    "founded-by": r"(?:co-)?founded(?: in \d{4})? by|formed(?: in [A-Z][\w ,]+)?(?: in \d{4})? by",
    "created-by": r"created by|developed by",
    "recorded-by": r"(?:recorded|performed|released|sung) by|(?:album|song|single|EP|box set) by(?: [a-z][\w-]*)*",
    "member-of": r"(?:member|vocalist|guitarist|drummer|bassist|singer|leader|founder) (?:of|for)|played for|plays for",
    "mother-of": r"mother of",
    "father-of": r"father of",
    "son-of": r"son of",
    "daughter-of": r"daughter of",
    "spouse-of": r"(?:wife|husband|widow|consort) of|married(?: the [a-z][\w -]*,?)?",
    "sibling-of": r"(?:brother|sister) (?:of|was)|his brother|her brother|his sister|her sister",
}
#: When a thing began: "was founded in 1838", "formed in Ellensburg in 1985", "established in 1754".
_FOUNDED_ON = re.compile(rf"\b(?:(?:co-)?founded|established|formed|opened|launched|created|incorporated)\b"
                         rf"(?:\s+(?:in|at|on)\s+(?:[A-Z][\w.'’-]*,?\s*)+)?[^.;]{{0,40}}?\b(?:in|on)\s+({DATE})")
#: Words between a frame's verb and its name: articles, lower-case words, a nationality ("by English singer X"), an
#: acronym ("of former NFL linebacker X").
_BETWEEN = r"(?:the\s+|[a-z][\w-]*\s+|[A-Z][a-z]+(?:an|ish|ese|ch|i)\s+|[A-Z]{2,}\s+){0,5}?"
_NOT_ADJECTIVE = r"(?![A-Z][a-z]+(?:an|ish|ese|ch|i)\s+[a-z])(?![A-Z]{2,}\s+[a-z])"
_FRAME_RES = {rel: re.compile(rf"\b(?:{words})\s+{_BETWEEN}{_NOT_ADJECTIVE}({NAME})") for rel, words in FRAMES.items()}
#: The lead sentence's apposition: "(born 1 May 1900 in Paris)" or "(4 May 1881 – 11 June 1970)".
_APPOSITION = re.compile(r"\(([^()]*\d{3,4}[^()]*)\)")
_BORN = re.compile(rf"born\b[^;]*?({DATE})(?:[^;]*?\bin\s+({NAME}))?")
_SPAN = re.compile(rf"({DATE})[^–—-]*?(?:\bin\s+({NAME}))?\s*[–—-]+\s*(?:[a-z ]*?)({DATE})(?:[^;]*?\bin\s+({NAME}))?")
_ALIAS = re.compile(rf"(?:(?:known (?:by the stage name|as|mononymously as)|stage name|better known as)\s+[\"“]?"
                    rf"({NAME})|\(born\s+({NAME})\s*[;,)])")
#: Names that name nothing: an article or a lone word every lead sentence has.
_NOT_NAMES = frozenset({"the", "a", "an", "about", "in", "it", "he", "she", "american", "british", "english"})
#: A lead sentence's full name: the capitalised words before its apposition, comma or verb.
_LEAD_NAME = re.compile(rf"^(?:Sir |Dame |Dr\.? )?({NAME})")
VERSION = "1"
PAGES: CacheKey = CacheKey(f"entity-pages-{VERSION}")


@dataclass
class EntityPages:
    """Where each name leads and what each sentence states.

    ``title`` maps a page's document id to its title; ``docs_of`` a name's key (:func:`name_key`) to the pages it
    names (several for "Boots"); ``names`` a page to its names (title first); ``relations`` a sentence row to
    its typed relations ``(relation, name or date)``; ``lead`` a page to its lead sentence's row.
    """

    title: dict[str, str] = field(default_factory=dict)
    docs_of: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    names: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    relations: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    lead: dict[str, int] = field(default_factory=dict)
    #: Weak names (an acronym, a surname): they name a page only where no capitalised word comes right before
    #: ("the Nixon administration", not "Fiske Warren").
    weak: set[str] = field(default_factory=set)
    #: A page's title and bare title, as keys.
    title_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def encyclopedic(self) -> float:
        """The share of pages whose lead sentence names the page's title: most of an encyclopedia's articles
        ("Chris Menges (born ...) is ..."), few of a collection of papers or rulebooks (an abstract seldom
        repeats its paper's title); 0 without pages."""
        if not self.lead:
            return 0.0
        return sum(doc in self.titled_leads for doc in self.lead) / len(self.lead)

    #: The pages whose lead sentence names their title.
    titled_leads: set[str] = field(default_factory=set)

    def pages_named(self, name: str) -> list[str]:
        """The pages a name leads to (none for a name no page has): the pages it is the title of, else those it is
        an alias of ("Charlotte Hornets" names the team's page, not the roster's that opens with the name)."""
        key = name_key(name)
        docs = self.docs_of.get(key, [])
        titled = [doc for doc in docs if key in self.title_keys.get(doc, ())]
        return titled or list(docs)


def name_key(name: str) -> str:
    """A name as compared: lower case, words only.

    >>> name_key("Boots (EP)"), name_key("Lothair  II."), name_key("Pérez"), name_key("Bill Clinton's")
    ('boots ep', 'lothair ii', 'pérez', 'bill clinton')
    """
    return " ".join(re.sub(r"[^\w]+", " ", re.sub(r"['’]s\b", "", name.lower())).split())


def typed_relations(text: str, lead: bool = False) -> list[tuple[str, str]]:
    """The typed relations a sentence states: ``(relation, the name or date it leads to)``; a ``lead`` sentence's
    apposition also gives its entity's dates and places (see the module's examples)."""
    out: list[tuple[str, str]] = []
    if lead and (match := _APPOSITION.search(text)):
        out += _dates(match.group(1))
    found = [(m.start(), rel, m.group(1).rstrip(".,")) for rel, pattern in _FRAME_RES.items()
             for m in pattern.finditer(text)]
    found += [(m.start(), "founded-on", m.group(1)) for m in _FOUNDED_ON.finditer(text)]
    out += [(rel, name) for _, rel, name in sorted(found)]
    return out


def _dates(apposition: str) -> list[tuple[str, str]]:
    """born-on / born-in / died-on / died-in of an apposition's text."""
    if born := _BORN.search(apposition):
        out = [("born-on", born.group(1))] + ([("born-in", born.group(2))] if born.group(2) else [])
        return out
    if span := _SPAN.search(apposition):
        out = [("born-on", span.group(1))] + ([("born-in", span.group(2))] if span.group(2) else [])
        out.append(("died-on", span.group(3)))
        return out + ([("died-in", span.group(4))] if span.group(4) else [])
    return []


def aliases(lead_sentence: str) -> list[str]:
    """The names a lead sentence gives its entity: the full name it opens with, a birth or stage name."""
    out = []
    lead_sentence = re.split(r"\s(?:is|was|are|were)\s", lead_sentence, maxsplit=1)[0]  # the subject's names only
    if match := _LEAD_NAME.match(lead_sentence):
        out.append(match.group(1).strip().rstrip(",."))
    for match in _ALIAS.finditer(lead_sentence):
        name = (match.group(1) or match.group(2)).strip().rstrip(",.")
        if not re.match(rf"{DATE}|{MONTH}\s", name) and name not in out:  # "(born July 23, 1973)" names no one
            out.append(name)
    out = [re.sub(r"^(?:The|A|An)\s+", "", name) for name in out]
    return [name for name in out if len(name.split()) > 1 and name_key(name) not in _NOT_NAMES
            and not re.fullmatch(r"\S*\d\S*", name)]  # one word ("L'Oiseau" of "L'Oiseau bleu") names too much


def typed_edges(index: Index, pages: EntityPages) -> list[tuple[str, str, str, str]]:
    """The typed relations as grounded edges between entities: ``(page, relation, the page or date it leads to,
    sentence id)``; a name no page has stays the name ("Scott Sommer"), a date the date."""
    out = []
    for row, found in sorted(pages.relations.items()):
        sentence = index.sentences[row]
        for rel, obj in found:
            target = pages.pages_named(obj)
            out.append((sentence.doc_id, rel, target[0] if len(target) == 1 else obj, sentence.id))
    return out


def entity_pages(index: Index) -> EntityPages:
    """The collection's entity pages (built once per loaded collection)."""
    return index.cache.get(PAGES, lambda: build_pages(index))


def build_pages(index: Index) -> EntityPages:
    """Titles from each document's first front-matter line; names, aliases and relations from its body."""
    pages = EntityPages()
    first_body: dict[str, int] = {}
    for row, s in enumerate(index.sentences):
        if s.role == FRONT_MATTER and s.paragraph == 0 and s.doc_id not in pages.title:
            pages.title[s.doc_id] = s.original.strip()
        elif s.role == BODY and s.doc_id not in first_body:
            first_body[s.doc_id] = row
    for doc, title in pages.title.items():
        bare = re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()
        lead = first_body.get(doc)
        lead_names = aliases(index.sentences[lead].original) if lead is not None else []
        pages.title_keys[doc] = (name_key(title), name_key(bare))
        for name in dict.fromkeys([title, bare, *lead_names]):
            _add_name(pages, doc, name)
        if lead is not None:
            pages.lead[doc] = lead
            if any(key and key in name_key(index.sentences[lead].original) for key in pages.title_keys[doc]):
                pages.titled_leads.add(doc)
    for row, s in enumerate(index.sentences):
        if s.role == BODY and s.doc_id in pages.title:
            if found := typed_relations(s.original, lead=pages.lead.get(s.doc_id) == row):
                pages.relations[row] = found
    _add_weak_names(pages, lambda row: index.sentences[row].original)
    return pages


def part_pages(index: Index, rows: np.ndarray) -> tuple[EntityPages, dict[int, str]]:
    """The pages of ``index``, a part of a collection (``rows``: each of its rows' row in the collection), for
    :func:`merged_pages`: sentence rows are the collection's, weak names are left out (they depend on every
    page), and each lead sentence's text is given by its row."""
    pages = build_pages(index)
    out = EntityPages(title=dict(pages.title), title_keys=dict(pages.title_keys),
                      titled_leads=set(pages.titled_leads))
    for doc, names in pages.names.items():
        out.names[doc] = [name for name in names if name not in pages.weak]
    out.lead = {doc: int(rows[row]) for doc, row in pages.lead.items()}
    out.relations = {int(rows[row]): found for row, found in pages.relations.items()}
    return out, {int(rows[row]): index.sentences[row].original for row in pages.lead.values()}


def merged_pages(parts: Sequence[tuple[EntityPages, dict[int, str]]], doc_order: Sequence[str]) -> EntityPages:
    """The collection's pages from its parts' (:func:`part_pages`), as :func:`build_pages` builds them over the
    whole collection (``doc_order``: its documents in reading order)."""
    pages, leads = EntityPages(), {}
    for part, texts in parts:
        pages.title.update(part.title)
        pages.title_keys.update(part.title_keys)
        pages.titled_leads |= part.titled_leads
        pages.relations.update(part.relations)
        leads.update(texts)
    owner = {doc: part for part, _ in parts for doc in part.title}
    for doc in [d for d in doc_order if d in owner]:
        pages.title[doc] = pages.title.pop(doc)  # reading order, as one collection's
        for name in owner[doc].names.get(doc, []):
            _add_name(pages, doc, name)
        if doc in owner[doc].lead:
            pages.lead[doc] = owner[doc].lead[doc]
    _add_weak_names(pages, leads.__getitem__)
    return pages


def _add_weak_names(pages: EntityPages, lead_text: Callable[[int], str]) -> None:
    """Names a page is called by in other pages' prose, added where no page has them yet and one page alone would:
    the acronym its lead sentence defines ("Virginia Commonwealth University (VCU)"), and a person's surname ("the
    Nixon administration"; a person: a page whose lead sentence gives a birth date)."""
    weak: dict[str, list[str]] = defaultdict(list)
    for doc, row in pages.lead.items():
        lead = lead_text(row)
        for acronym in re.findall(r"\(([A-Z][A-Z0-9&]{1,7})\)", lead):
            weak[name_key(acronym)].append(doc)
        for alias in ruler_aliases(pages.title[doc], lead):
            weak[name_key(alias)].append(doc)
        if any(rel == "born-on" for rel, _ in pages.relations.get(row, ())):
            last = re.sub(r"\s*\([^)]*\)\s*$", "", pages.title[doc]).split()[-1]
            if len(last) > 3 and last[:1].isupper():
                weak[name_key(last)].append(doc)
    for key, docs in weak.items():
        if len(set(docs)) == 1 and key not in pages.docs_of and key not in _NOT_NAMES:
            pages.docs_of[key].append(docs[0])
            pages.names[docs[0]].append(key)
            pages.weak.add(key)


#: Ranks a ruler is called by with the given name alone ("King Lothair" for "Lothair II").
RANKS = r"king|queen|emperor|empress|duke|duchess|prince|princess|pope|count|countess|tsar|sultan|pharaoh"


def ruler_aliases(title: str, lead_sentence: str) -> list[str]:
    """The names a numbered ruler is called by: rank and given name, with and without the number, when the title is
    a given name with a regnal number and the lead sentence says what the entity was.

    >>> ruler_aliases("Lothair II", "Lothair II (835 – 8 August 869) was the king of Lotharingia from 855.")
    ['King Lothair', 'King Lothair II']
    >>> ruler_aliases("Lothair Records", "Lothair Records was a king of labels.")
    []
    """
    numbered = re.fullmatch(r"([A-Z][a-z]+)\s+([IVX]+)", re.sub(r"\s*\([^)]*\)\s*$", "", title).strip())
    predicate = re.split(r"\s(?:is|was)\s", lead_sentence, maxsplit=1)
    rank = re.search(rf"\b({RANKS})\b", predicate[1], re.IGNORECASE) if numbered and len(predicate) > 1 else None
    if not (numbered and rank):
        return []
    return [f"{rank.group(1).title()} {numbered.group(1)}", f"{rank.group(1).title()} {numbered.group(0)}"]


def _add_name(pages: EntityPages, doc: str, name: str) -> None:
    key = name_key(name)
    if len(key) < 3 or key in _NOT_NAMES or doc in pages.docs_of[key]:
        return
    pages.docs_of[key].append(doc)
    pages.names[doc].append(name)
