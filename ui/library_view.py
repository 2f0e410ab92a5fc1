"""Pure builders for the Library page: the documents table and what to say about a narrator.

>>> from kgcore.index.manifest import Manifest
>>> table = documents_table([Manifest("peter-rabbit", source_file="peter_rabbit.txt")])
>>> table[["document", "file", "parser"]].values.tolist()
[['peter-rabbit', 'peter_rabbit.txt', 'srl']]
"""

from __future__ import annotations

from typing import Literal

import pandas as pd

from kgcore.index.manifest import Manifest
from kgcore.index.narrator import Narrator

from .markup import md_escape


def documents_table(manifests: list[Manifest]) -> pd.DataFrame:
    """One row per indexed document: file, options, narrator, sizes, when and how long."""
    return pd.DataFrame([{
        "document": m.doc_id, "file": m.source_file,
        "parser": m.options.parser, "coref": m.options.coref, "embedding": m.options.embedding,
        "narrator": m.narrator.name if m.narrator else "",
        "sentences": m.counts.sentences, "words": m.counts.words, "nodes": m.counts.nodes, "edges": m.counts.edges,
        "indexed at": pd.to_datetime(m.created_at or None, errors="coerce"), "seconds": m.seconds,
    } for m in manifests])


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
