"""Questions that chain facts: a walk over the grounded graph's entity pages, from the question's matches to the
entities their sentences lead to, inside GroundedKG's fused ranking.

"When was the director of CrissCross born?" needs two facts in two documents: "CrissCross is a 1992 American drama
film directed by Chris Menges" and "Chris Menges (born 15 September 1940) is an English cinematographer".  The
fused ranking finds the first (the question names CrissCross) and seldom the second (it shares no word with the
question but "born").  The walk, run on the fused order before the budget cuts it:

1. **first hop**: the pages the question names (matched by name or alias, :mod:`kgcore.index.views.pages`) and
   the best sentences of the fused order; in a page the question names, the sentence that states a link to
   another page (the *linking fact*) is preferred over one that merely mentions the entity;
2. **second hop**: every entity a first-hop sentence names, found among its grounded graph nodes or by an alias
   of the collection's pages in its text, leads to that entity's page, and the page's sentence that best states
   what the question asks (a ``born-on`` relation for "when ... born", the lead sentence for what the entity is,
   else the best fused score there) joins the context right after the sentence that led to it;
3. **comparisons** ("Who was born first, X or Y?", "Were X and Y of the same nationality?"): for every compared
   entity, its page's sentence stating the compared attribute comes first.

The walked sentences go first, in walk order, and the fused order follows; a sentence's ``signals["path"]`` names
the path that reached it ("CrissCross —directed-by→ Chris Menges [born-on]").  The walk only ever adds sentences of
*other* documents than the sentence it starts from, and runs only where most documents' lead sentences name their
title (:data:`MIN_ENCYCLOPEDIC`), so a novel, a collection of papers or of rulebooks ranks exactly as before.
:data:`ENABLED` turns it off (the bench's ``groundedkg-flat`` variant).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from kgcore.core.graph import is_proper_name
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import Match, SelectedSentence
from kgcore.index.store.in_memory import Index
from kgcore.index.views.pages import EntityPages, entity_pages, name_key
from kgcore.query.align import GraphMatch
from kgcore.query.fused import rank_fused

#: Whether the default ranking walks (the bench measures it off as ``groundedkg-flat``).
ENABLED = True
#: The walk runs in a collection of entity pages only: at least this share of its documents' lead sentences name
#: their title (HotpotQA's paragraphs: 787 of 1,009; a paper's abstract seldom repeats its title).
MIN_ENCYCLOPEDIC = 0.5
#: Sentences of the fused order the walk starts from (besides the pages the question names).
FIRST_HOP = 3
#: A query node's best match whose cosine reaches this names a page the walk starts from (as the question's words).
MATCHED = 0.9
#: Pages one sentence may lead to.
BRANCHING = 2
#: Pages the walk adds at most.
MAX_PAGES = 6
#: In a page, a sentence's preference (its fused score divided by the page's best) plus these bonuses: stating the
#: relation the question asks, being the page's lead sentence, stating a link to another page (first hop).
W_ASKED, W_LEAD, W_LINK = 1.0, 0.5, 0.5
#: A linked page reached through a typed relation ("directed by") is preferred over one merely mentioned.
W_TYPED = 0.3
#: The relation a question asks, by its words (the first that matches).
ASKED: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\bwhere\b.*\bborn\b|\bbirthplace\b|\bborn in (?:which|what)\b", ("born-in",)),
    (r"\bwhere\b.*\bdie", ("died-in",)),
    (r"\bwhen\b.*\bdie|\bdied first\b|\bdeath\b", ("died-on",)),
    (r"\bborn\b|\bbirth|\bolder\b|\byounger\b|\bage\b", ("born-on",)),
    (r"\bdirect", ("directed-by",)),
    (r"\b(?:found(?:ed)?|formed|established|opened)\b.*\b(?:what|which) year\b|\b(?:what|which) year\b.*"
     r"\b(?:found(?:ed)?|formed|established|opened)\b|\bwhen\b.*\b(?:founded|formed|established|opened)\b",
     ("founded-on",)),
    (r"\bfound(?:ed|er)\b|\bformed\b|\bestablished\b", ("founded-by",)),
    (r"\bwr(?:ote|itten|iter)\b|\bauthor\b", ("written-by",)),
    (r"\bstar(?:red|ring|s)?\b|\bactor\b|\bactress\b|\bportray", ("starring",)),
    (r"\bproduc", ("produced-by",)),
    (r"\bmother\b|\bfather\b|\bparent|\bgrand", ("mother-of", "father-of", "son-of", "daughter-of")),
    (r"\bwife\b|\bhusband\b|\bmarried\b|\bspouse\b|\bin-law\b", ("spouse-of",)),
    (r"\bbrother\b|\bsister\b|\bsibling", ("sibling-of",)),
)
#: A comparison: two named things and a comparative cue.
COMPARATIVE = re.compile(r"\b(?:first|earlier|earliest|older|oldest|younger|later|more|most|less|fewer|both|same|"
                         r"longer|larger|bigger|higher|taller|before|after|either|which (?:one|of))\b", re.I)


@dataclass
class Walk:
    """The walk's plan for one question and the paths it took (sentence row -> path)."""

    asked: tuple[str, ...]
    named: list[str]
    comparison: bool
    paths: dict[int, str] = field(default_factory=dict)


def asked_relations(question: str) -> tuple[str, ...]:
    """The relations a question asks for.

    >>> asked_relations("When was the director of Sinister born?"), asked_relations("Where was Van Conner born?")
    (('born-on',), ('born-in',))
    """
    lowered = question.lower()
    return next((rels for pattern, rels in ASKED if re.search(pattern, lowered)), ())


def named_pages(question: str, pages: EntityPages, limit: int = 3) -> list[str]:
    """The pages the question names, in the order it names them: the ``limit`` longest names, a longer name
    winning where two overlap ("Kiss and Tell" over "Kiss")."""
    found: list[tuple[int, int, str]] = []
    for start, end, key in _name_spans(question, pages):
        found += [(start, -(end - start), doc) for doc in pages.pages_named(key)]
    taken: list[tuple[int, int]] = []
    out = []
    for start, negative_length, doc in sorted(found, key=lambda f: (f[1], f[0])):
        end = start - negative_length
        if any(s < end and start < e for s, e in taken if (s, e) != (start, end)) or doc in out:
            continue
        taken.append((start, end))
        out.append((start, doc))
    return [doc for _, doc in sorted(out[:limit])]


def _name_spans(text: str, pages: EntityPages) -> list[tuple[int, int, str]]:
    """Spans of ``text`` (character offsets) whose words are a page's name key, up to 8 words long."""
    words = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[\w'’.\-]+", text)]
    spans = []
    for i in range(len(words)):
        if not words[i][2][:1].isupper() and not words[i][2][:1].isdigit():
            continue  # a name starts with a capital or a digit ("11 Harrowhouse")
        for j in range(i + 1, min(i + 8, len(words)) + 1):
            key = name_key(" ".join(w[2] for w in words[i:j]))
            if key in pages.weak and i and words[i - 1][2][:1].isupper():
                continue  # a surname inside a longer name ("Fiske Warren") is not the page's person
            if key in pages.docs_of and (j - i > 1 or len(key) > 4 or key in pages.weak):
                spans.append((words[i][0], words[j - 1][1], key))
    return [(s, e, k) for s, e, k in spans if not any(s2 <= s and e <= e2 and (s2, e2) != (s, e)
                                                       for s2, e2, _ in spans)]  # "L'Oiseau" in "L'Oiseau Blanc"


class Collection(Protocol):
    """What the walk reads of a collection: its entity pages, a page's sentences retrieval may use (rows in
    reading order) with their fused scores, and a sentence's document, text and proper-name entity labels."""

    pages: EntityPages

    def page(self, doc: str) -> tuple[np.ndarray, np.ndarray]: ...

    def sentence(self, row: int) -> tuple[str, str, list[str]]: ...


class LocalCollection:
    """A loaded collection, as the walk reads it (:class:`Collection`), for one question's fused scores."""

    def __init__(self, index: Index, final: np.ndarray, allowed: np.ndarray) -> None:
        self.index, self.final, self.allowed, self.pages = index, final, allowed, entity_pages(index)

    def page(self, doc: str) -> tuple[np.ndarray, np.ndarray]:
        rows = _page_rows(self.index, doc, self.allowed)
        return rows, self.final[rows]

    def sentence(self, row: int) -> tuple[str, str, list[str]]:
        return sentence_names(self.index, row)


def sentence_names(index: Index, row: int) -> tuple[str, str, list[str]]:
    """A sentence's document, text and grounded proper-name entity labels (what :func:`linked_pages` reads)."""
    sentence = index.sentences[row]
    return sentence.doc_id, sentence.original, [n.label for n in index.graph.nodes_in_sentence(sentence.id)
                                                if n.node_type == "entity" and is_proper_name(n.label)]


def linked_pages(collection: Collection, row: int) -> list[tuple[str, str]]:
    """The pages a sentence leads to, with the relation that leads there ("mentions" when none is typed): its
    grounded entity nodes' names first, then names of pages in its text; never the sentence's own page."""
    pages = collection.pages
    doc_id, text, candidates = collection.sentence(row)
    relation_of = {name_key(obj): rel for rel, obj in pages.relations.get(row, ())}
    out: list[tuple[str, str]] = []
    candidates = candidates + [text[s:e] for s, e, _ in _name_spans(text, pages)]
    for name in candidates:
        for doc in pages.pages_named(name)[:BRANCHING]:
            if doc != doc_id and doc not in (d for d, _ in out):
                rel = next((r for obj, r in relation_of.items() if name_key(name) in obj or obj in name_key(name)),
                           "mentions")
                out.append((doc, rel))
    return out[:BRANCHING]


def best_in_page(collection: Collection, doc: str, asked: tuple[str, ...], link: bool = False
                 ) -> tuple[int, str] | None:
    """A page's sentence that best states what the question asks, and the relation it states ("" if none)."""
    pages = collection.pages
    rows, finals = collection.page(doc)
    if not len(rows):
        return None
    top = max(float(finals.max()), 1e-9)
    best, best_key, best_rel = -1, -1.0, ""
    for row, final in zip(rows, finals):
        rels = [r for r, _ in pages.relations.get(int(row), ())]
        stated = next((r for r in rels if r in asked), "")
        key = float(final) / top + (W_ASKED if stated else 0.0) + (W_LEAD if pages.lead.get(doc) == row else 0.0)
        if link and linked_pages(collection, int(row)):
            key += W_LINK
        if key > best_key:
            best, best_key, best_rel = int(row), key, stated
    return best, best_rel


def _page_rows(index: Index, doc: str, allowed: np.ndarray) -> np.ndarray:
    """A page's rows retrieval may use, in reading order."""
    rows = np.flatnonzero(index.sentence_documents == doc)
    return rows[allowed[rows]]


def walk_order(index: Index, walk: Walk, order: np.ndarray, final: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The walked sentences first (:func:`walked`), then the rest of the fused ``order``; fills ``walk.paths``."""
    top = max(float(final.max()), 1e-9) if len(final) else 1.0
    head = walked(LocalCollection(index, final, allowed), walk, [int(r) for r in order[:FIRST_HOP]], top)
    rest = order[~np.isin(order, head)]
    return np.r_[np.asarray(head, dtype=np.int64), rest]


def walked(collection: Collection, walk: Walk, first: list[int], top: float) -> list[int]:
    """The walk's sentences (rows, in walk order); fills ``walk.paths``.  ``first``: the fused order's first
    :data:`FIRST_HOP` rows; ``top``: the best fused score.

    Walk order: for a comparison, each compared page's sentence stating the attribute; then for every page the
    question names, its best sentence, and for the pages its sentences lead to (the best :data:`BRANCHING` by
    :func:`link_score`) the sentence stating the link and the linked page's best sentence; then the same from
    each of the fused order's first :data:`FIRST_HOP` sentences."""
    pages = collection.pages
    head: list[int] = []
    title = pages.title.get
    seen: set[str] = set(walk.named)

    def add(row: int, path: str) -> None:
        if row not in head:
            head.append(row)
            walk.paths.setdefault(row, path)

    def hop(rows: list[int]) -> None:
        """From ``rows`` (sentences of one page, or one sentence) to the best pages they lead to."""
        links = {}
        for row in rows:
            for doc, rel in linked_pages(collection, row):
                if doc not in seen and doc not in links:
                    links[doc] = (row, rel)
        ranked = sorted(links, key=lambda d: -link_score(collection, d, links[d][1], walk, top))
        for doc in ranked[:BRANCHING]:
            if len(seen) >= MAX_PAGES + len(walk.named):
                return
            seen.add(doc)
            row, rel = links[doc]
            if found := best_in_page(collection, doc, walk.asked):
                source_doc = collection.sentence(row)[0]
                source = title(source_doc) or source_doc
                add(row, f"{source}: the link to {title(doc)}")
                add(found[0], f"{source} —{rel}→ {title(doc)}" + (f" [{found[1]}]" if found[1] else ""))

    if walk.comparison:
        for doc in walk.named:
            if found := best_in_page(collection, doc, walk.asked):
                add(found[0], f"question names {title(doc)}" + (f" [{found[1]}]" if found[1] else ""))
    for doc in walk.named:
        if found := best_in_page(collection, doc, walk.asked):
            add(found[0], f"question names {title(doc)}" + (f" [{found[1]}]" if found[1] else ""))
    for doc in walk.named:
        hop([int(r) for r in collection.page(doc)[0]])
    for row in first:
        add(row, "fused ranking")
        hop([row])
    return head


def link_score(collection: Collection, doc: str, relation: str, walk: Walk, top: float) -> float:
    """How promising a linked page is: its best fused score (relative to the collection's best), plus
    :data:`W_ASKED` when one of its sentences states the relation the question asks, plus :data:`W_TYPED` when a
    typed relation (not a mere mention) leads there."""
    rows, finals = collection.page(doc)
    if not len(rows):
        return -1.0
    asked = any(r in walk.asked for row in rows for r, _ in collection.pages.relations.get(int(row), ()))
    return float(finals.max()) / top + (W_ASKED if asked else 0.0) + (W_TYPED if relation != "mentions" else 0.0)


def plan(index: Index, question: str, gm: GraphMatch | None = None) -> Walk | None:
    """The walk for ``question``, or None when the collection has no entity pages to walk between.  The pages
    it starts from: those the question names, then those of its query nodes' best matches (:data:`MATCHED`)."""
    return plan_over(entity_pages(index), question, gm.matches if gm is not None else [])


def plan_over(pages: EntityPages, question: str, matches: Sequence[Match]) -> Walk | None:
    """:func:`plan` over a collection's ``pages`` and its query nodes' ``matches``."""
    if not ENABLED or len(pages.title) < 2 or pages.encyclopedic < MIN_ENCYCLOPEDIC:
        return None
    named = named_pages(question, pages)
    for match in matches:
        if match.rank == 0 and match.score >= MATCHED and match.node_type == "entity":
            named += [doc for doc in pages.pages_named(match.label)[:BRANCHING] if doc not in named]
    comparison = len(named) >= 2 and bool(COMPARATIVE.search(question))
    return Walk(asked_relations(question), named, comparison)


def rank_multihop(index: Index, question: str, gm: GraphMatch, options: RetrievalOptions,
                  walk: Walk) -> tuple[list[SelectedSentence], int]:
    """The fused ranking with ``walk`` run on its order; each walked sentence's ``signals["path"]`` says how."""
    allowed = gm.scope if gm.scope is not None else np.ones(len(index.sentences), dtype=bool)
    # No weight for the question's names (kgcore.query.names): a chained question's second page is the one it
    # does not name.  HotpotQA dev (52 questions), both facts found at 500 / 1,000 words: 0.904 / 1.000 without
    # them, 0.865 / 0.962 with them.
    kept, candidates = rank_fused(index, question, gm, options, names_weight=0.0,
                                  reorder=lambda order, final: walk_order(index, walk, order, final, allowed))
    for s in kept:
        row = index.sentence_row(s.id)
        if row in walk.paths:
            s.signals["path"] = walk.paths[row]
    return kept, candidates
