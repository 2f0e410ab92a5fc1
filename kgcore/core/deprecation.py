"""Old names kept for one version, each with a warning that names the new one (as penman's ``interface`` does).

A collection's name was called ``doc_id`` in the query engine's arguments, on a loaded :class:`Index` and on a
:class:`QueryResult`, while ``doc_id`` also named a document.  ``collection`` is now the collection's name
everywhere and ``doc_id`` a document's; the old spelling still works until kgcore 0.4 and warns with
:class:`KgcoreDeprecationWarning` (a ``DeprecationWarning``).

>>> import warnings
>>> @renamed_argument("doc_id", "collection")
... def ask(collection: str, question: str = "") -> str:
...     return collection
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     ask(doc_id="peter-rabbit"), str(caught[0].message)
('peter-rabbit', "the argument 'doc_id' is deprecated and goes in kgcore 0.4: use 'collection'")
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
#: The version in which the old names go.
REMOVED_IN = "0.4"


class KgcoreDeprecationWarning(DeprecationWarning):
    """An old kgcore name was used; the message names the new one."""


def deprecated(old: str, new: str) -> None:
    """Warn that ``old`` (as the message should name it) is deprecated in favour of ``new``."""
    warnings.warn(f"{old} is deprecated and goes in kgcore {REMOVED_IN}: use {new}", KgcoreDeprecationWarning,
                  stacklevel=3)


def renamed_argument(old: str, new: str) -> Callable[[F], F]:
    """Let callers still pass keyword ``old`` for ``new``, with a warning."""
    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                deprecated(f"the argument {old!r}", repr(new))
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
    return decorate


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` returning attribute ``new``, with a warning."""
    def get(self: Any) -> Any:
        deprecated(f"{type(self).__name__}.{old}", f"{type(self).__name__}.{new}")
        return getattr(self, new)
    return property(get, doc=f"Deprecated: use ``{new}`` (goes in kgcore {REMOVED_IN}).")
