"""Pure builders of the Entity page: the entity list, its header, aliases, cited description, documents and
neighbours.  Every document string is escaped (:mod:`ui.markup_html`); nothing here imports streamlit.

>>> from kgcore.index.views.entities import Alias, EntityGroup
>>> g = EntityGroup("rag", "RAG <b>", ("rag", "p/rag"), (Alias("RAG", "rag", "canonical", 1.0),
...                 Alias("retrieval-augmented generation", "p/rag", "acronym", 0.93)), "method", 0.81,
...                 ("p", "q"), ("p/text_0-1", "q/text_0-4"))
>>> header_html(g)  # doctest: +NORMALIZE_WHITESPACE
'<h3>RAG &lt;b&gt;</h3><p>method <span class="kg-badge">confidence 0.81</span>
    · 2 documents · 2 sentences · 2 nodes</p>'
>>> aliases_table(g)["rule"].tolist()
['canonical', 'acronym']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlencode

import pandas as pd

from kgcore.api import Description, EntityGroup, is_pronoun_label

from .ask_view import sentence_link
from .markup_html import badge, counted, esc

#: Entities listed by the search (the most grounded first).
MAX_LISTED = 300


def entity_link(collection: str, entity_id: str) -> str:
    """Relative URL of the Entity page for one entity.

    >>> entity_link("shelf", "p/rag")
    'entity?doc=shelf&entity=p%2Frag'
    """
    return "entity?" + urlencode({"doc": collection, "entity": entity_id})


def search_entities(groups: Sequence[EntityGroup], query: str = "", entity_type: str = "") -> list[EntityGroup]:
    """Entities whose name or an alias contains ``query`` (case-insensitive), of ``entity_type`` when given;
    exact names first, then the most grounded, pronouns ("I": every unnamed speaker) last.

    >>> from kgcore.index.views.entities import Alias, EntityGroup
    >>> mk = lambda i, n, k: EntityGroup(i, n, (i,), (Alias(n, i, "canonical", 1.0),), "person", 0.5, ("d",),
    ...                                  tuple(f"d/text_0-{j}" for j in range(k)))
    >>> [g.name for g in search_entities([mk("a", "Peter Pan", 5), mk("b", "Peter", 2), mk("c", "Wendy", 9)], "peter")]
    ['Peter', 'Peter Pan']
    >>> [g.name for g in search_entities([mk("i", "I", 99), mk("c", "Wendy", 9)])]
    ['Wendy', 'I']
    """
    q = query.strip().lower()
    found = [g for g in groups if (not entity_type or g.entity_type == entity_type)
             and (not q or q in g.name.lower() or any(q in a.name.lower() for a in g.aliases))]
    found.sort(key=lambda g: (g.name.lower() != q, is_pronoun_label(g.name), -len(g.grounded_texts), g.name.lower()))
    return found[:MAX_LISTED]


def entity_label(g: EntityGroup) -> str:
    """How an entity is listed in the picker.

    >>> from kgcore.index.views.entities import EntityGroup
    >>> entity_label(EntityGroup("x", "Wendy", ("x",), (), "person", 0.9, ("d",), ("d/text_0-1",)))
    'Wendy (person, 1 sentence)'
    """
    return f"{g.name} ({g.entity_type}, {counted(len(g.grounded_texts), 'sentence')})"


def header_html(g: EntityGroup) -> str:
    """Name, type with its confidence, and counts."""
    counts = " · ".join((counted(len(g.documents), "document"), counted(len(g.grounded_texts), "sentence"),
                         counted(g.size, "node")))
    return (f"<h3>{esc(g.name)}</h3><p>{esc(g.entity_type)} {badge(f'confidence {g.type_confidence:.2f}')} · "
            f"{counts}</p>")


def aliases_table(g: EntityGroup) -> pd.DataFrame:
    """One row per member node: the name it goes by, its node id and the rule (with score) that merged it."""
    return pd.DataFrame([{"alias": a.name, "node id": a.node_id, "rule": a.rule, "score": round(a.score, 3)}
                         for a in g.aliases], columns=["alias", "node id", "rule", "score"])


def description_html(d: Description | None, collection: str, text_of: Callable[[str], str]) -> str:
    """The description, each sentence followed by links to the sentences it cites; for an abstractive one the
    cited sentences are quoted below it.

    >>> from kgcore.index.views.entities.describe import DescriptionSentence
    >>> d = Description("rag", "RAG", (DescriptionSentence("RAG <i>retrieves</i>.", ("p/text_0-1",)),), "llm", "h")
    >>> html = description_html(d, "shelf", lambda sid: "It retrieves & reads.")
    >>> 'href="sentence?doc=shelf&amp;sid=p%2Ftext_0-1"' in html, "RAG &lt;i&gt;" in html, "&amp; reads" in html
    (True, True, True)
    >>> description_html(None, "shelf", str)
    '<p class="kg-muted">No description: the entity is grounded in too few sentences.</p>'
    """
    if d is None:
        return '<p class="kg-muted">No description: the entity is grounded in too few sentences.</p>'
    parts = [f'<p>{badge(d.method)}{" " + esc(d.note) if d.note else ""}</p>', "<ol>"]
    for s in d.sentences:
        links = " ".join(_sid(collection, sid) for sid in s.cites)
        quoted = "" if d.method == "extractive" else "".join(
            f'<blockquote>{esc(text_of(sid))}</blockquote>' for sid in s.cites)
        parts.append(f"<li>{esc(s.text)} {links}{quoted}</li>")
    return "".join(parts + ["</ol>"])


def descriptions_caption(built: int, reused: int, loaded: int, seconds: float) -> str:
    """How this collection version's descriptions were obtained.

    >>> descriptions_caption(3, 40, 0, 1.25)
    '43 entity descriptions: 3 described now, 40 reused from the previous version (1.2 s).'
    >>> descriptions_caption(0, 0, 43, 0.0)
    '43 entity descriptions, read from the collection.'
    """
    if loaded:
        return f"{loaded} entity descriptions, read from the collection."
    return (f"{built + reused} entity descriptions: {built} described now, {reused} reused from the previous "
            f"version ({seconds:.1f} s).")


def _sid(collection: str, sid: str) -> str:
    return f'<a class="kg-sid" href="{esc(sentence_link(collection, sid))}" target="_blank">{esc(sid)}</a>'


def documents_table(g: EntityGroup, files: dict[str, str], doc_of: Callable[[str], str]) -> pd.DataFrame:
    """The documents the entity appears in, with how many of its sentences each holds.

    >>> from kgcore.index.views.entities import EntityGroup
    >>> g = EntityGroup("x", "X", ("x",), (), "concept", 0.5, ("a", "b"), ("a/text_0-1", "a/text_0-2", "b/text_0-1"))
    >>> documents_table(g, {"a": "a.pdf"}, lambda s: s.split("/")[0]).values.tolist()
    [['a', 'a.pdf', 2], ['b', '', 1]]
    """
    counts: dict[str, int] = {}
    for sid in g.grounded_texts:
        doc = doc_of(sid)
        counts[doc] = counts.get(doc, 0) + 1
    return pd.DataFrame([{"document": d, "file": files.get(d, ""), "sentences": counts.get(d, 0)}
                         for d in g.documents], columns=["document", "file", "sentences"])


def neighbours_html(rows: Sequence[tuple[EntityGroup, int, str | None]], collection: str,
                    text_of: Callable[[str], str]) -> str:
    """Neighbour entities (entity, actions shared, a sentence joining them), each linking to its own page.

    >>> from kgcore.index.views.entities import EntityGroup
    >>> n = EntityGroup("p/tea", "tea", ("p/tea",), (), "object", 0.4, ("p",), ("p/text_0-9",))
    >>> html = neighbours_html([(n, 2, "p/text_0-9")], "shelf", lambda s: "She made <tea>.")
    >>> 'href="entity?doc=shelf&amp;entity=p%2Ftea"' in html, "2 shared actions" in html, "&lt;tea&gt;" in html
    (True, True, True)
    >>> "1 shared action —" in neighbours_html([(n, 1, "p/text_0-9")], "shelf", lambda s: "She made tea.")
    True
    """
    if not rows:
        return '<p class="kg-muted">No neighbour: the entity shares no action with another entity.</p>'
    items = []
    for g, shared, sid in rows:
        link = f'<a href="{esc(entity_link(collection, g.entity_id))}" target="_self">{esc(g.name)}</a>'
        quote = f" — {esc(text_of(sid))} {_sid(collection, sid)}" if sid else ""
        actions = "1 shared action" if shared == 1 else f"{shared} shared actions"
        items.append(f"<li>{link} {badge(g.entity_type)} {actions}{quote}</li>")
    return "<ul>" + "".join(items) + "</ul>"
