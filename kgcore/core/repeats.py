"""When two sentences repeat each other: their texts are equal with whitespace and case aside.

A collection repeats headings and phrases ("Conflicts of interest." four times in one rulebook, '"Yes."' a hundred
times in a novel); the rankings leave a repeat out of a context (:func:`kgcore.query.fused.first_of_each_text`,
and across shards :func:`kgcore.query.shard_graph.text_keys`), and the answer's next best sentences leave out one
repeating the answer's own (:func:`kgcore.query.answer.extractive.alternatives`).  All three compare the same key:

>>> text_key("Conflicts  of Interest. ") == text_key("conflicts of interest.")
True
"""

from __future__ import annotations


def text_key(text: str) -> str:
    """``text`` lower-cased, its whitespace runs one space and its ends stripped."""
    return " ".join(text.lower().split())
