"""Coreference resolution of sentences (paper section 4.3, "Coreference Resolution").

Every backend turns a sequence of :class:`~kgcore.core.types.Sentence` into new
sentences whose ``resolved`` text has third-person pronouns replaced by
their antecedents; sentence order, ids and count never change.  Backends,
one module each: ``heuristic`` (default, offline, spaCy rules),
``fastcoref`` (the paper's neural model, needs downloaded weights; torch is
imported only when it loads) and ``none``.  The protocol and the helpers
they share are in :mod:`kgcore.index.coref.base`.

>>> from kgcore.core.types import Sentence
>>> s = Sentence("text_0-0", 0, 0, 0, "He ran.", "He ran.", "")
>>> [x.resolved for x in get_resolver("none").resolve([s])]
['He ran.']
"""

from __future__ import annotations

from kgcore.core.errors import InputError
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import COREF_BACKENDS, Settings
from kgcore.index.bounds import SERIAL, Parallel
from kgcore.index.coref.base import CorefLink, CorefResolver, NoCoref, apply_replacements
from kgcore.index.coref.fastcoref import FastCoref
from kgcore.index.coref.heuristic import HeuristicCoref

__all__ = ["CorefLink", "CorefResolver", "FastCoref", "HeuristicCoref", "NoCoref", "apply_replacements", "get_resolver"]


def get_resolver(name: str = "heuristic", settings: Settings | None = None) -> CorefResolver:
    """The coreference backend called ``name`` (``heuristic``, ``fastcoref`` or ``none``).

    Only ``fastcoref`` imports torch, and only when its model loads.

    >>> get_resolver("none").name
    'none'
    >>> get_resolver("neural")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: coref: unknown backend 'neural' (choose one of heuristic, fastcoref, none)
    """
    if name == "none":
        return NoCoref()
    if name == "heuristic":
        nlp = load_spacy(settings.spacy_model) if settings is not None else None
        return HeuristicCoref(nlp=nlp, parallel=Parallel.of(settings) if settings is not None else SERIAL)
    if name == "fastcoref":
        settings = settings if settings is not None else Settings.from_env()
        path = settings.fastcoref_model
        kind = "lingmess" if "lingmess" in path.lower() else "fcoref"
        return FastCoref(path, kind=kind, device=settings.device, spacy_model=settings.spacy_model)
    raise InputError("coref", f"unknown backend {name!r} (choose one of {', '.join(COREF_BACKENDS)})")
