"""The settings grid of an evaluation: methods × K × VectorSim τ × RetCount ≥ n × budget, without repeats.

>>> [setting_label(o) for o in settings_grid(["groundedkg", "dense", "none"], ks=[5, 10], budget_words=[0])]
['groundedkg k=5', 'groundedkg k=10', 'dense k=5', 'dense k=10', 'none']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from kgcore.core.errors import InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.query.methods import EVERYTHING, METHODS, NOTHING, RANKED


def canonical_options(options: RetrievalOptions) -> RetrievalOptions:
    """``options`` with the fields its method ignores reset, so equal runs are not repeated.

    What a method reads is its registry entry's ``reads`` (:mod:`kgcore.query.methods.base`): GroundedKG reads
    every option (τ and RetCount only it); ranked methods use K only without a budget; ``full`` uses budgets only;
    ``none`` uses nothing.

    >>> options = RetrievalOptions("dense", k=5, tau=0.2, budget_words=500)
    >>> canonical_options(options) == RetrievalOptions("dense", budget_words=500)
    True
    """
    o, reads = options, METHODS.get(options.method).reads
    if reads == NOTHING:
        return RetrievalOptions(o.method)
    if reads == EVERYTHING:
        return o
    budgeted = bool(o.budget_words or o.budget_sentences)
    k = o.k if reads == RANKED and not budgeted else RetrievalOptions.k
    return RetrievalOptions(o.method, k=k, budget_sentences=o.budget_sentences, budget_words=o.budget_words)


def settings_grid(methods: Sequence[str] | None = None, ks: Sequence[int] = (10,),
                  taus: Sequence[float | None] = (None,), min_counts: Sequence[int] = (1,),
                  budget_words: Sequence[int] = (0,), budget_sentences: Sequence[int] = (0,)) -> list[RetrievalOptions]:
    """Every combination, canonicalised and without repeats, grouped by method in the given order (default: every
    registered method)."""
    grid: list[RetrievalOptions] = []
    chosen = METHODS.names() if methods is None else methods
    combinations = itertools.product(chosen, budget_words, budget_sentences, ks, taus, min_counts)
    for method, words, sents, k, tau, count in combinations:
        options = canonical_options(RetrievalOptions(method, k, tau, count, sents, words))
        if options not in grid:
            grid.append(options)
    return grid


def setting_label(options: RetrievalOptions) -> str:
    """A short row label for a setting.

    >>> setting_label(RetrievalOptions("groundedkg", k=5, tau=0.2, min_count=2, budget_words=1000))
    'groundedkg k=5 tau=0.2 count>=2 budget=1000w'
    """
    o, parts, reads = canonical_options(options), [options.method], METHODS.get(options.method).reads
    if reads == EVERYTHING or (reads == RANKED and not (o.budget_words or o.budget_sentences)):
        parts.append(f"k={o.k}")
    if o.tau is not None:
        parts.append(f"tau={o.tau:g}")
    if o.min_count > 1:
        parts.append(f"count>={o.min_count}")
    if o.budget_words:
        parts.append(f"budget={o.budget_words}w")
    if o.budget_sentences:
        parts.append(f"budget={o.budget_sentences}s")
    return " ".join(parts)


def parse_values(raw: str, convert: Callable[[str], object], flag: str) -> list[Any]:
    """Comma-separated values of a command-line flag, converted; a bad piece is an InputError.

    >>> parse_values("5, 10", int, "--k"), parse_values("none,0.2", parse_tau, "--tau")
    ([5, 10], [None, 0.2])
    >>> parse_values("5,x", int, "--k")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: --k: 'x' is not a valid value
    """
    values = []
    for piece in (p.strip() for p in raw.split(",")):
        if not piece:
            continue
        try:
            values.append(convert(piece))
        except ValueError:
            raise InputError(flag, f"{piece!r} is not a valid value") from None
    if not values:
        raise InputError(flag, "needs at least one value")
    return values


def parse_tau(text: str) -> float | None:
    """A VectorSim threshold, or None for ``none``/``off``/``-``."""
    return None if text.lower() in ("none", "off", "-") else float(text)


def parse_method(text: str) -> str:
    """A retrieval method name, checked."""
    if text not in METHODS:
        raise InputError("--methods", f"unknown method {text!r} (choose from {', '.join(METHODS)})")
    return text
