"""Resource limits: the most work one input may cause, each an environment variable with a clear refusal.

Every limit is a :class:`~kgcore.core.settings.Settings` field named in
:data:`LIMITS` with its unit; ``KGCORE_<NAME>`` sets it.  A value over a limit
is refused with an :class:`~kgcore.core.errors.InputError` that names the
file or field, the limit and the variable that raises it:

>>> raise limit_error("tarzan.pdf", "max_pdf_pages", 20_002, 2_000)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
kgcore.core.errors.InputError: tarzan.pdf: 20,002 pages exceed the limit of 2,000 pages per PDF
    (raise it with the environment variable KGCORE_MAX_PDF_PAGES); it protects the time of reading one PDF
    (a file of blank pages can hold millions)

Limits that are checked while work runs (the wall time of a document) use a
:class:`Deadline`, asked at every progress report.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from kgcore.core.errors import InputError

#: Every resource limit: setting -> (unit, what it is per).  Each is read from ``KGCORE_<NAME>``.
LIMITS: dict[str, tuple[str, str]] = {
    "max_file_mb": ("MB", "per file"),
    "max_pdf_pages": ("pages", "per PDF"),
    "max_page_stream_mb": ("MB", "of decompressed content per PDF page"),
    "max_pdf_stream_mb": ("MB", "of decompressed content per PDF"),
    "max_text_chars": ("characters", "of text per document"),
    "max_document_seconds": ("seconds", "of indexing per document"),
    "max_sentence_words": ("words", "per sentence"),
    "max_parse_chars": ("characters", "of parser output per sentence"),
    "max_sentences": ("sentences", "per document"),
    "max_documents": ("documents", "per collection"),
    "max_question_chars": ("characters", "per question"),
    "max_batch": ("items", "per batch (files per index call, questions per questions file)"),
}

#: What each limit protects: said with every refusal, so whoever raises it knows what they risk.  The collection
#: and batch limits follow from the measured cost curves (``bench/scale_bench.py``): no count fails a machine
#: before its memory does, so they sit where indexing short documents peaks near 16 GB.
PROTECTS: dict[str, str] = {
    "max_file_mb": "the memory of reading one file whole",
    "max_pdf_pages": "the time of reading one PDF (a file of blank pages can hold millions)",
    "max_page_stream_mb": "the memory of one PDF page's content (a compression bomb)",
    "max_pdf_stream_mb": "the memory of one PDF's content (a compression bomb)",
    "max_text_chars": "the memory of one document's text and parse while it is indexed",
    "max_document_seconds": "a batch from one document that never finishes",
    "max_sentence_words": "the parser's time on one run-on sentence",
    "max_parse_chars": "the store from one sentence's parser output",
    "max_sentences": "the memory of one document's graph while it is built",
    "max_documents": "the memory of serving the collection, which keeps every sentence, node and vector loaded "
                     "(python -m kgcore doctor --collection NAME reports it)",
    "max_question_chars": "the time of parsing and embedding one question",
    "max_batch": "the memory of planning one call (every file is read and hashed before any is parsed)",
}


def limit_variable(name: str) -> str:
    """The environment variable of a limit.

    >>> limit_variable("max_sentences")
    'KGCORE_MAX_SENTENCES'
    """
    return f"KGCORE_{name.upper()}"


def number(value: float) -> str:
    """``1,234,567`` for whole numbers, ``2.5`` otherwise.

    >>> number(1234567), number(2.5), number(50.0)
    ('1,234,567', '2.5', '50')
    """
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


def limit_error(where: str, name: str, value: float, limit: float) -> InputError:
    """The refusal of ``value`` over limit ``name`` (a key of :data:`LIMITS`)."""
    unit, per = LIMITS[name]
    return InputError(where, f"{number(value)} {unit} exceed the limit of {number(limit)} {unit} {per} "
                             f"(raise it with the environment variable {limit_variable(name)}); "
                             f"it protects {PROTECTS[name]}")


def env_number(env: Mapping[str, str], name: str, default: float) -> float:
    """``env[name]`` as a number (``default`` when unset or empty); anything else is refused naming ``name``.

    >>> env_number({"X": "2.5"}, "X", 1.0), env_number({}, "X", 1.0)
    (2.5, 1.0)
    """
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        return float(raw)
    except ValueError:
        raise InputError(name, f"expected a number, got {raw!r}") from None


def env_limit(env: Mapping[str, str], name: str, default: int) -> int:
    """Limit ``name`` from its variable: a whole number of at least 1.

    >>> env_limit({"KGCORE_MAX_PDF_PAGES": "0"}, "max_pdf_pages", 2000)
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_MAX_PDF_PAGES: must be at least 1, got 0
    """
    value = int(env_number(env, limit_variable(name), default))
    if value < 1:
        raise InputError(limit_variable(name), f"must be at least 1, got {value}")
    return value


@dataclass
class Deadline:
    """The wall time one document may take (``max_document_seconds``), asked while the work runs.

    >>> Deadline("book.txt", 60).check()
    >>> Deadline("book.txt", 1, started=time.monotonic() - 2).check()  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: book.txt: indexing took more than the limit of 1 seconds of indexing per
        document (raise it with the environment variable KGCORE_MAX_DOCUMENT_SECONDS); it protects a batch from
        one document that never finishes
    """

    where: str
    seconds: float
    started: float = field(default_factory=time.monotonic)

    def check(self) -> None:
        """Raise the limit's :class:`InputError` once the time is over."""
        if time.monotonic() - self.started > self.seconds:
            unit, per = LIMITS["max_document_seconds"]
            raise InputError(self.where, f"indexing took more than the limit of {number(self.seconds)} {unit} {per} "
                                         f"(raise it with the environment variable "
                                         f"{limit_variable('max_document_seconds')}); "
                                         f"it protects {PROTECTS['max_document_seconds']}")
