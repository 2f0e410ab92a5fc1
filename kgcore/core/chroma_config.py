"""Where a collection's Chroma copy lives and when it is written: the two Chroma settings, checked.

:class:`kgcore.core.settings.Settings` reads them from ``KGCORE_CHROMA_URL`` and ``KGCORE_CHROMA_SYNC``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from kgcore.core.errors import InputError

#: When a collection's Chroma copy is written (``Settings.chroma_sync``).
CHROMA_SYNCS = ("auto", "commit", "lazy")


def check_chroma_sync(value: str) -> str:
    """``KGCORE_CHROMA_SYNC`` checked (one of :data:`CHROMA_SYNCS`, case and spaces ignored).

    >>> check_chroma_sync(" Lazy ")
    'lazy'
    >>> check_chroma_sync("never")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_CHROMA_SYNC: expected one of auto, commit, lazy, got 'never'
    """
    choice = value.strip().lower()
    if choice not in CHROMA_SYNCS:
        raise InputError("KGCORE_CHROMA_SYNC", f"expected one of {', '.join(CHROMA_SYNCS)}, got {value!r}")
    return choice


def check_chroma_url(url: str) -> str:
    """``KGCORE_CHROMA_URL`` checked: empty (embedded Chroma) or ``http(s)://host:port`` (no path, no query).

    >>> check_chroma_url(" http://10.0.0.5:8000/ "), check_chroma_url("")
    ('http://10.0.0.5:8000', '')
    >>> check_chroma_url("10.0.0.5:8000")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_CHROMA_URL: expected http://host:port or https://host:port
        (the address of `chroma run`), got '10.0.0.5:8000'
    """
    url = url.strip().rstrip("/")
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        port, parts = None, urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None or parts.path or parts.query:
        raise InputError("KGCORE_CHROMA_URL", f"expected http://host:port or https://host:port (the address of "
                                              f"`chroma run`), got {url!r}")
    return url
