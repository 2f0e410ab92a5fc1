"""A registry of named backends: what a choice (``--method``, ``--answerer``) may be, in menu order.

Entries are any objects with a ``name``.  Iterating a registry yields the names and ``in`` tests a name, as the
tuple of names it replaces did, so a registry serves as the ``choices`` of a command-line option and as the
options of a menu; :meth:`Registry.get` gives the entry and :meth:`Registry.entries` all of them.  An unknown name
is an :class:`~kgcore.core.errors.InputError` naming the field and the choices.

>>> from types import SimpleNamespace as Entry
>>> answerers = Registry("answerer", [Entry(name="extractive"), Entry(name="openai")])
>>> list(answerers), "openai" in answerers, answerers.get("openai").name
(['extractive', 'openai'], True, 'openai')
>>> with answerers.registered(Entry(name="toy")):
...     ", ".join(answerers)
'extractive, openai, toy'
>>> answerers.get("toy")
Traceback (most recent call last):
...
kgcore.core.errors.InputError: answerer: unknown value 'toy' (choose one of extractive, openai)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar

from kgcore.core.errors import InputError


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    """Entries by name, in the order they were registered; ``kind`` names the choice in error messages."""

    def __init__(self, kind: str, entries: Iterable[T] = ()):
        self.kind = kind
        self._entries: dict[str, T] = {}
        for entry in entries:
            self.register(entry)

    def register(self, entry: T) -> T:
        """Add ``entry``; a name already taken is refused."""
        if entry.name in self._entries:
            raise InputError(self.kind, f"{entry.name!r} is registered already")
        self._entries[entry.name] = entry
        return entry

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)

    @contextmanager
    def registered(self, entry: T) -> Iterator[T]:
        """``entry`` registered for the duration of a ``with`` block (a test, an experiment)."""
        self.register(entry)
        try:
            yield entry
        finally:
            self.unregister(entry.name)

    def get(self, name: str) -> T:
        """The entry called ``name``."""
        try:
            return self._entries[name]
        except KeyError:
            raise InputError(self.kind, f"unknown value {name!r} (choose one of {', '.join(self._entries)})") from None

    def names(self) -> list[str]:
        return list(self._entries)

    def entries(self) -> list[T]:
        return list(self._entries.values())

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)
