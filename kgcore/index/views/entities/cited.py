"""Cited text an LLM writes: cut into sentences, each of which must cite sentence ids from an allowed set.

Used by the abstractive entity descriptions (:mod:`kgcore.index.views.entities.describe`): a reply whose sentence
cites nothing, or cites an id outside the entity's own grounding, is rejected with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class DescriptionSentence:
    """One sentence of a description and the grounding sentence ids it cites."""

    text: str
    cites: tuple[str, ...]


_CITE = re.compile(r"\[([^\[\]]+)\]")
_SPLIT = re.compile(r"(?<=\])\s+(?=[A-Z])|(?<=[.!?])\s+(?=[A-Z])")
_ABBREVIATION = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Prof|al|e\.g|i\.e|etc|Fig|Eq|No|vs)\.$")


def split_description(text: str) -> list[str]:
    """A reply cut into sentences: after a citation or sentence punctuation before a capital.

    >>> split_description("Peter is a rabbit [a]. Mr. McGregor chases him. [b] He hides.")
    ['Peter is a rabbit [a].', 'Mr. McGregor chases him. [b]', 'He hides.']
    """
    parts: list[str] = []
    for piece in _SPLIT.split(" ".join(text.split())):
        if parts and (_ABBREVIATION.search(parts[-1]) or not _CITE.search(parts[-1]) and piece.startswith("[")):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return [p for p in parts if p.strip()]


def check_description(text: str, allowed: set[str]) -> tuple[list[DescriptionSentence], str]:
    """The cited sentences of an LLM reply, and why it is rejected ('' when accepted): every sentence must
    cite, and cite only ids in ``allowed``.

    >>> ok, why = check_description("RAG retrieves passages [d/text_0-1, d/text_0-2].", {"d/text_0-1", "d/text_0-2"})
    >>> ok[0].cites, why
    (('d/text_0-1', 'd/text_0-2'), '')
    >>> check_description("RAG retrieves. It is fast [d/text_0-1].", {"d/text_0-1"})[1]
    "sentence 1 cites no sentence: 'RAG retrieves.'"
    >>> check_description("RAG retrieves [x/text_0-9].", {"d/text_0-1"})[1]
    "sentence 1 cites 'x/text_0-9', which does not mention the entity"
    """
    sentences = split_description(text)
    if not sentences:
        return [], "the reply is empty"
    out = []
    for n, sentence in enumerate(sentences, start=1):
        cites = [c.strip() for group in _CITE.findall(sentence) for c in re.split(r"[,;]", group) if c.strip()]
        if not cites:
            return [], f"sentence {n} cites no sentence: {sentence[:80]!r}"
        foreign = [c for c in cites if c not in allowed]
        if foreign:
            return [], f"sentence {n} cites {foreign[0]!r}, which does not mention the entity"
        out.append(DescriptionSentence(" ".join(_CITE.sub("", sentence).split()).replace(" .", "."),
                                       tuple(dict.fromkeys(cites))))
    return out, ""


def llm_prompt(name: str, lines: list[tuple[str, str]], rejected: str = "") -> str:
    """The request for an abstractive description of ``name`` from its grounding ``(id, text)`` lines.

    >>> print(llm_prompt("RAG", [("p/text_0-1", "RAG retrieves passages.")]))  # doctest: +ELLIPSIS
    Describe "RAG" in one to three short sentences, using only the numbered sentences below. ...
    [p/text_0-1] RAG retrieves passages.
    <BLANKLINE>
    Description:
    """
    again = f"\nYour previous description was rejected: {rejected}. Cite only the ids listed.\n" if rejected else ""
    listed = "\n".join(f"[{sid}] {text}" for sid, text in lines)
    return (f'Describe "{name}" in one to three short sentences, using only the numbered sentences below. '
            "End every sentence with the ids of the sentences it is based on in square brackets, e.g. "
            f"[{lines[0][0] if lines else 'doc/text_0-1'}].\n{again}\n{listed}\n\nDescription:")
