"""One exception hierarchy for kgcore.

Every error a user can cause or fix (bad file, missing model, unknown
document, unreachable endpoint) is a :class:`KgcoreError`, so the CLI and
the app can show its message instead of a traceback.

>>> try:
...     raise InputError("book.exe", "unsupported extension '.exe'")
... except KgcoreError as exc:
...     print(exc)
book.exe: unsupported extension '.exe'
"""

from __future__ import annotations

import unicodedata


class KgcoreError(Exception):
    """Base class of every error kgcore raises on purpose."""


class InputError(KgcoreError):
    """A file, field or argument given by the user is unusable.

    The message always names the offending file or field and the reason.
    """

    def __init__(self, where: str, reason: str):
        self.where = where
        self.reason = reason
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):
        """Pickle with both parts (a worker process sends its errors back pickled).

        >>> import pickle
        >>> pickle.loads(pickle.dumps(InputError("a.pdf", "broken"))).reason
        'broken'
        """
        return InputError, (self.where, self.reason)


def clean_field(field: str, value: str | None, max_chars: int, empty_hint: str = "") -> str:
    """``value`` with whitespace collapsed; empty or over-long values are refused naming ``field``.

    >>> clean_field("question", "  Who   ran? ", 100)
    'Who ran?'
    >>> clean_field("author", " ", 100, "enter your name")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: author: is empty: enter your name
    >>> clean_field("question", "Who\x1b[31m ran?", 100)
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: question: contains the control character U+001B at position 4; remove it
    """
    text = " ".join((value or "").split())
    if not text:
        raise InputError(field, f"is empty: {empty_hint}" if empty_hint else "is empty")
    bad = next((i for i, ch in enumerate(text) if unicodedata.category(ch) == "Cc"), None)
    if bad is not None:
        raise InputError(field, f"contains the control character U+{ord(text[bad]):04X} at position {bad + 1}; "
                                "remove it")
    if len(text) > max_chars:
        raise InputError(field, f"is {len(text)} characters long; the limit is {max_chars}")
    return text


class ModelUnavailableError(KgcoreError):
    """A model or optional package is missing; the message says what to install or configure."""


class IndexNotFoundError(KgcoreError):
    """The requested document id has no index in the store."""


class DamagedIndexError(KgcoreError):
    """A stored file of an index is missing, truncated or corrupt; the message names it and the remedy.

    >>> print(DamagedIndexError("data/c/linked-2/graph.json", "truncated: 10 of 900 bytes"))
    data/c/linked-2/graph.json: damaged index file (truncated: 10 of 900 bytes); re-index with --force
    """

    def __init__(self, path: object, reason: str, remedy: str = "re-index with --force"):
        self.path, self.reason, self.remedy = str(path), reason, remedy
        super().__init__(f"{path}: damaged index file ({reason}); {remedy}")

    def __reduce__(self):
        return DamagedIndexError, (self.path, self.reason, self.remedy)


class IndexMismatchError(KgcoreError):
    """An index was built with settings that are incompatible with the request."""


class ServiceUnavailableError(KgcoreError):
    """A server kgcore is configured to use (the Chroma server) cannot be reached or refused the request; the
    message names it and what to do."""


class GenerationError(KgcoreError):
    """The answer generator failed (network, authentication, timeout, bad response)."""


class AuditError(KgcoreError):
    """The audit database or an audit import/export file is unusable."""


class Cancelled(BaseException):
    """Work stopped on request: a Cancel button, SIGTERM or Ctrl-C, or the process that started it gone.

    A :class:`BaseException` (like :class:`KeyboardInterrupt`), so no ``except Exception`` on the way
    mistakes it for a document's failure: it unwinds the whole call, and every ``finally`` on the way
    removes staging folders, releases locks and stops worker processes; nothing is committed.

    >>> try:
    ...     raise Cancelled("the app stopped")
    ... except Exception:
    ...     print("swallowed")
    ... except Cancelled as exc:
    ...     print(f"cancelled: {exc.reason}")
    cancelled: the app stopped
    """

    def __init__(self, reason: str = "cancelled"):
        self.reason = reason
        super().__init__(reason)

    def __reduce__(self):
        return Cancelled, (self.reason,)
