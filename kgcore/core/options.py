"""The options of one indexing run (:class:`IndexOptions`, stored in a manifest) and of one question
(:class:`RetrievalOptions`); :mod:`kgcore.core.settings` re-exports both beside the settings read from the
environment.

>>> RetrievalOptions(budget_words=500).to_dict()["budget_words"], IndexOptions().parser
(500, 'srl')
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from kgcore.core.errors import InputError

PARSERS = ("srl", "amr")
COREF_BACKENDS = ("heuristic", "fastcoref", "none")
EMBEDDING_VARIANTS = ("basic", "neighbor", "attention")
#: How GroundedKG ranks its sentences under a budget: ``fused`` (alignment, BM25 and dense relevance propagated
#: over the contextual graph, :mod:`kgcore.query.fused`) or ``graph-score`` (the earlier hand-weighted score).
RANKINGS = ("fused", "graph-score")
#: Longest narrator name accepted as an index option.
MAX_NAME_CHARS = 80
_NAME_CHARS_RE = re.compile(r"[A-Za-z][A-Za-z .'\-]*")


@dataclass(frozen=True)
class IndexOptions:
    """How a document is indexed; stored in the manifest.

    >>> IndexOptions(parser="xyz")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: parser: unknown value 'xyz' (choose one of srl, amr)
    """

    parser: str = "srl"
    coref: str = "heuristic"
    embedding: str = "basic"
    alpha: float = 0.5
    beta: float = 0.8
    #: Who "I" is in a first-person book: ``auto`` (found in the text), ``none``, or a name.
    narrator: str = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "narrator", check_narrator_option(self.narrator))
        _check_choice("parser", self.parser, PARSERS)
        _check_choice("coref", self.coref, COREF_BACKENDS)
        _check_choice("embedding", self.embedding, EMBEDDING_VARIANTS)
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise InputError(name, f"must be between 0 and 1, got {value}")

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class RetrievalOptions:
    """How a question is answered from an index.

    ``budget_words=0`` and ``budget_sentences=0`` mean no budget (for
    GroundedKG that is the paper's plain union).
    """

    #: A retrieval method by name (the registry of kgcore.query.methods; checked by the engine).
    method: str = "groundedkg"
    k: int = 10
    tau: float | None = None
    min_count: int = 1
    budget_sentences: int = 0
    budget_words: int = 0
    #: Retrieve only from these documents of the collection (empty: all of them).
    documents: tuple[str, ...] = ()
    #: Let title pages, contents and headings into the context (kept out by default).
    front_matter: bool = False
    #: GroundedKG's ranking under a budget (:data:`RANKINGS`); without a budget it returns the paper's union.
    ranking: str = "fused"
    #: Read a question word the collection never writes, and English does not know, in the collection's nearest
    #: spelling ("Elliott" asked of a book writing "Elliot"), and say so in the result's notes
    #: (:mod:`kgcore.query.spelling`); every method gets the respelt question.
    respell: bool = True

    def __post_init__(self) -> None:
        for name in ("k", "min_count", "budget_sentences", "budget_words"):
            object.__setattr__(self, name, _check_whole(name, getattr(self, name)))
        if isinstance(self.documents, str):
            raise InputError("documents", f"give a list of document ids, not {self.documents!r}")
        documents = tuple(self.documents)  # read once: a generator is given only once
        if not all(isinstance(d, str) for d in documents):
            raise InputError("documents", f"give a list of document ids, not {documents!r}")
        if self.tau is not None and (isinstance(self.tau, bool) or not isinstance(self.tau, numbers.Real)):
            raise InputError("tau", f"must be a number or None, not {self.tau!r}")
        object.__setattr__(self, "documents", tuple(dict.fromkeys(d.strip() for d in documents if d.strip())))
        _check_choice("ranking", self.ranking, RANKINGS)
        if self.k < 1:
            raise InputError("k", f"must be at least 1, got {self.k}")
        if self.min_count < 1:
            raise InputError("min_count", f"must be at least 1, got {self.min_count}")
        if min(self.budget_sentences, self.budget_words) < 0:
            raise InputError("budget_sentences" if self.budget_sentences < 0 else "budget_words", "must be 0 or more")
        if self.tau is not None and not -1.0 <= self.tau <= 1.0:
            raise InputError("tau", f"must be a cosine between -1 and 1, got {self.tau}")

    def to_dict(self) -> dict:
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> RetrievalOptions:
        """Options from a stored ``to_dict()`` (unknown keys ignored, lists back to tuples)."""
        names = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names}
        return cls(**values)


def _check_whole(name: str, value: object) -> int:
    """A count as an int (numpy's too); one that is not a whole number ("5", 2.5, True) is refused before a
    comparison or a slice fails on it.

    >>> _check_whole("k", 2.5)
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: k: must be a whole number, not 2.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(name, f"must be a whole number, not {value!r}")
    return int(value)


def check_narrator_option(value: str) -> str:
    """Validate the ``narrator`` index option: ``auto``, ``none`` or a name.

    >>> check_narrator_option("  Robinson Crusoe ")
    'Robinson Crusoe'
    >>> check_narrator_option("Jane\\nEyre")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: narrator: expected auto, none or a name
        (letters, spaces, . ' -; at most 80 characters), got 'Jane\\nEyre'
    """
    stripped = value.strip()
    if stripped.lower() in ("auto", "none"):
        return stripped.lower()
    if len(stripped) > MAX_NAME_CHARS or not _NAME_CHARS_RE.fullmatch(stripped):
        raise InputError("narrator", f"expected auto, none or a name (letters, spaces, . ' -; at most {MAX_NAME_CHARS} "
                                     f"characters), got {value!r}")
    return " ".join(stripped.split())


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(name, f"unknown value {value!r} (choose one of {', '.join(choices)})")
