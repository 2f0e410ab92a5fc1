"""Pure builders for the Library page: the collections and documents tables, what an indexing run did to each
document, collection names and what to say about a narrator.

>>> from kgcore.index.store.collection import CollectionManifest, DocumentEntry
>>> from kgcore.index.store.manifest import Manifest
>>> shelf = CollectionManifest("shelf", (DocumentEntry(Manifest("peter", source_file="peter.txt"), "peter.1"),))
>>> collections_table([shelf])[["collection", "documents"]].values.tolist()
[['shelf', 1]]
>>> documents_table(shelf)[["document", "file"]].values.tolist()
[['peter', 'peter.txt']]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from kgcore.api import CollectionManifest, CollectionOutcome, IndexOptions, Manifest, Narrator, doc_id_for

from .labels import COREF_LABELS, EMBEDDING_LABELS, PARSER_LABELS, label
from .markup_html import md_escape


def _when(stamp: str):
    return pd.to_datetime(stamp or None, errors="coerce", utc=True)


def collections_table(manifests: Sequence[CollectionManifest]) -> pd.DataFrame:
    """One row per collection: its size (documents, sentences, words, nodes, edges, shared entities), when changed."""
    return pd.DataFrame([{
        "collection": m.name, "documents": m.counts.documents or len(m.documents),
        "sentences": m.counts.sentences, "words": m.counts.words, "nodes": m.counts.nodes, "edges": m.counts.edges,
        "shared entities": m.counts.shared_entities, "updated": _when(m.updated_at or m.created_at),
    } for m in manifests], columns=["collection", "documents", "sentences", "words", "nodes", "edges",
                                    "shared entities", "updated"])


def documents_table(collection: CollectionManifest) -> pd.DataFrame:
    """One row per document of a collection: its file, size, narrator, when it was indexed and how long it took."""
    return pd.DataFrame([{
        "document": m.doc_id, "file": m.source_file, "sentences": m.counts.sentences, "words": m.counts.words,
        "nodes": m.counts.nodes, "narrator": m.narrator.name if m.narrator else "",
        "indexed at": _when(m.created_at), "seconds": m.seconds,
    } for m in (d.manifest for d in collection.documents)],
        columns=["document", "file", "sentences", "words", "nodes", "narrator", "indexed at", "seconds"])


@dataclass(frozen=True)
class DocumentLine:
    """What one indexing run did to one file: ``added``, ``reused`` or ``failed`` (with the reason)."""

    collection: str
    status: Literal["added", "reused", "failed"]
    filename: str
    manifest: Manifest | None = None
    reason: str = ""

    @property
    def doc_id(self) -> str:
        return self.manifest.doc_id if self.manifest else ""


def document_lines(outcomes: Sequence[CollectionOutcome]) -> list[DocumentLine]:
    """Every file of a run, collection by collection: failures first (they need action), then added, reused.

    >>> from kgcore.index.store.collection import CollectionOutcome
    >>> o = CollectionOutcome("shelf", None, added=(Manifest("a", source_file="a.txt"),),
    ...                       failed=(("A.TXT", "maps to the same document id 'a' as a.txt"),))
    >>> [(line.status, line.filename, line.doc_id) for line in document_lines([o])]
    [('failed', 'A.TXT', ''), ('added', 'a.txt', 'a')]
    """
    lines = []
    for o in outcomes:
        lines += [DocumentLine(o.name, "failed", filename, reason=reason) for filename, reason in o.failed]
        lines += [DocumentLine(o.name, "added", m.source_file, m) for m in o.added]
        lines += [DocumentLine(o.name, "reused", m.source_file, m) for m in o.reused]
    return lines


def collection_name(text: str) -> str:
    """The collection name typed on the page, made a safe folder name (letters, digits, ``-``, ``_``).

    >>> collection_name("  My Shelf (2026) ")
    'my-shelf-2026'
    >>> collection_name("")
    ''
    """
    return doc_id_for(text.strip()) if text.strip() else ""


def options_summary(options: IndexOptions) -> str:
    """The index options of a collection in words (markdown).

    >>> options_summary(IndexOptions()).split(", ")[:2]
    ['parser *SRL (spaCy frames)*', 'coreference *Heuristic (spaCy rules']
    """
    return (f"parser *{label(PARSER_LABELS, options.parser)}*, coreference *{label(COREF_LABELS, options.coref)}*, "
            f"embedding *{label(EMBEDDING_LABELS, options.embedding)}*, narrator *{md_escape(options.narrator)}*")


def narrator_message(narrator: Narrator | None) -> tuple[Literal["caption", "warning"], str] | None:
    """What to tell the analyst about a first-person book (markdown, document text escaped), or None.

    >>> narrator_message(Narrator("Robinson Crusoe", 0.62, "text", "I, Robinson Crusoe", 812))[1][:60]
    ':material/record_voice_over: First-person book (62% of sente'
    >>> narrator_message(Narrator("", 0.5, "none"))[0]
    'warning'
    >>> narrator_message(None) is None
    True
    """
    if narrator is None:
        return None
    share = f"{narrator.first_person_share:.0%}"
    if not narrator.name:
        return "warning", (f"First-person book ({share} of sentences) that never names its narrator: questions that "
                           "name them will not reach “I”. Type the narrator's name above and re-index.")
    how = f"found in “{md_escape(narrator.evidence)}”" if narrator.source == "text" else "as given"
    return "caption", (f":material/record_voice_over: First-person book ({share} of sentences): “I” outside quotes "
                       f"was resolved to **{md_escape(narrator.name)}**, {how} — {narrator.resolved:,} pronouns.")
