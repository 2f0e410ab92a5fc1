"""An entity's neighbours worth listing: the entities sharing the most actions with it, none that says nothing.

A neighbour shares actions with the entity (:func:`~kgcore.index.views.entities.overview.entity_links`); on
papers the most frequent ones were "we", "2", "5.2", "example", "bug", "able", "100 GB": pronouns, numbers,
section numbers, quantities, adjectives and nouns so general that they neighbour everything.  A name is left out
when it says nothing about any topic (:func:`~kgcore.index.views.junk.is_junk_label`), or is a common noun
(lower-case) that is not **specific** to some documents: its inverse document frequency over the collection's
nodes, ``log(N / df)`` with ``df`` the documents with an entity of that name, is below :data:`MIN_IDF` (in more
than three quarters of a collection of four or more documents).  The others are ranked by the actions they share
with the entity, ties (most neighbours share one action) by their specificity ``log((N + 1) / df)``: on a
collection of papers about one field its generic words ("comparison", "response") are in about as many documents
as its terms ("passage", "corpus"), so a filter alone leaves many of them; among equals they come last.

A common noun is one entity per document (a "question" of one paper is not another's), so the same name can
neighbour an entity several times: it is listed once, with the actions of all of them added up.

>>> [is_junk_neighbour(n, 1, 6) for n in ("we", "2", "5.2", "§ 3.1", "example", "Paxos", "lock service")]
[True, True, True, True, True, False, False]
>>> is_junk_neighbour("cluster", 6, 6), is_junk_neighbour("cluster", 2, 6), is_junk_neighbour("Chubby", 6, 6)
(True, False, False)
>>> is_junk_neighbour("cluster", 3, 3)   # too few documents to tell
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kgcore.index.store.in_memory import ENTITIES, CacheKey, Index
from kgcore.index.views.entities.entity import EntityGroup
from kgcore.index.views.entities.overview import entity_links, joining_sentence
from kgcore.index.views.junk import is_junk_label

#: Below this inverse document frequency a common noun is in nearly every document (df / N above 3/4).
MIN_IDF = math.log(4 / 3)
#: Collections with fewer documents than this say nothing about a noun's specificity.
MIN_DOCUMENTS = 4
#: Neighbours listed on an entity's page.
MAX_NEIGHBOURS = 15


@dataclass(frozen=True)
class Neighbour:
    """A neighbour: the entity (the strongest of its name), the actions shared with all of that name, and a
    sentence joining the two (None when no shared action is grounded in a retrievable sentence)."""

    group: EntityGroup
    shared: int
    sentence: str | None


def is_junk_neighbour(name: str, documents: int, total_documents: int) -> bool:
    """``name`` (found in ``documents`` of the collection's ``total_documents``) says nothing as a neighbour."""
    text = name.strip()
    if is_junk_label(text):
        return True
    if total_documents < MIN_DOCUMENTS or not text[0].islower() or documents <= 0:
        return False
    return math.log(total_documents / documents) < MIN_IDF


_FREQUENCY = CacheKey[dict[str, int]]("entity-name-document-frequency", group=ENTITIES)


def name_document_frequency(index: Index) -> dict[str, int]:
    """Lower-cased entity name -> how many documents have an entity of that name (computed once per index)."""
    def build() -> dict[str, int]:
        docs: dict[str, set[str]] = {}
        for g in entity_links(index).groups:
            docs.setdefault(g.name.lower(), set()).update(g.documents)
        return {name: len(found) for name, found in docs.items()}

    return index.cache.get(_FREQUENCY, build)


def entity_neighbours(index: Index, entity_id: str, limit: int = MAX_NEIGHBOURS) -> list[Neighbour]:
    """The entities sharing the most actions with entity ``entity_id`` (ties: the most specific first, then by
    name), one per name, none that says nothing (see the module docstring); each with a sentence joining the two."""
    links = entity_links(index)
    row = next((i for i, g in enumerate(links.groups) if g.entity_id == entity_id), None)
    if row is None:
        raise KeyError(f"no entity {entity_id!r} in collection {index.collection!r}")
    frequency, total = name_document_frequency(index), len(index.manifest.documents)
    own = links.groups[row].name.lower()
    shared: dict[str, int] = {}
    strongest: dict[str, tuple[float, int]] = {}
    for n, weight in links.shared(row).items():
        name = links.groups[n].name
        key = name.lower()
        if key == own or is_junk_neighbour(name, frequency.get(key, 1), total):
            continue
        shared[key] = shared.get(key, 0) + int(weight)
        strongest[key] = max(strongest.get(key, (0.0, n)), (weight, n), key=lambda p: (p[0], -p[1]))
    keys = sorted(shared, key=lambda k: (-shared[k], frequency.get(k, 1) if total >= MIN_DOCUMENTS else 0, k))[:limit]
    return [Neighbour(links.groups[strongest[k][1]], shared[k], joining_sentence(index, links, row, strongest[k][1]))
            for k in keys]
