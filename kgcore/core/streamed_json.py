"""A large JSON object read one element of its big arrays at a time, so that reading it leaves fewer holes in memory.

A collection's linked graph is one node-link JSON object (``{"directed": ..., "nodes": [...], "links": [...]}``,
:meth:`~kgcore.core.graph.GroundedGraph.to_node_link`), and its ``collection.json`` one object with a ``documents``
array.  ``json.loads`` builds the whole parse tree first, then the graph's nodes and edges (the documents' entries)
are built from it and the tree is freed: the freed dictionaries and strings lie between the kept objects in the
allocator's arenas, which can only be given back whole.  On 100,000 short documents (1.3 million nodes, 2.2 million
edges) the loaded graph's live objects were 835 MB and the process held 2,117 MB for them (37 s).  :func:`members`
walks the same text and hands over each element of the named arrays as soon as it is parsed
(``json.JSONDecoder.raw_decode``), so each element's parse tree is freed before the next one is parsed and its
memory is used again at once: 980 MB for the same graph (26.5 s).  It accepts what ``json.loads`` accepts for such
an object, except that a key written twice gives both values (``json.loads`` keeps the last; kgcore never writes
one twice).

>>> text = '{"directed": true, "graph": {}, "nodes": [{"id": "a"}, {"id": "b"}], "links": []}'
>>> list(members(text, ("nodes", "links")))
[('directed', True), ('graph', {}), ('nodes', {'id': 'a'}), ('nodes', {'id': 'b'})]
>>> list(members('{"nodes": [1, 2', ("nodes",)))
Traceback (most recent call last):
...
ValueError: JSON ends inside 'nodes' at character 15
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Generator, Iterator
from typing import Any

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def members(text: str, arrays: Collection[str]) -> Iterator[tuple[str, Any]]:
    """(key, element) for every element of the top-level arrays named ``arrays``, and (key, value) for every other
    top-level member, in the order written.  Not a JSON object, or a member named in ``arrays`` that is not an
    array: a ``ValueError`` saying where."""
    at = _skip(text, _expect(text, _skip(text, 0), "{"))
    if _peek(text, at) == "}":
        return _end(text, at + 1)
    while True:
        at = _skip(text, at)
        if _peek(text, at) != '"':
            raise ValueError(f"JSON: expected a key (a string) at character {at}")
        key, at = _DECODER.raw_decode(text, at)
        at = _expect(text, _skip(text, at), ":")
        if key in arrays:
            at = yield from _array(text, _skip(text, at), key)
        else:
            value, at = _DECODER.raw_decode(text, _skip(text, at))
            yield key, value
        at = _skip(text, at)
        if _peek(text, at) == "}":
            return _end(text, at + 1)
        at = _expect(text, at, ",")


def _array(text: str, at: int, key: str) -> Generator[tuple[str, Any], None, int]:
    """Each element of the array starting at ``at``, then (as the generator's value) the position after it."""
    at = _skip(text, _expect(text, at, "["))
    if _peek(text, at) == "]":
        return at + 1
    while True:
        element, at = _DECODER.raw_decode(text, at)
        yield key, element
        at = _skip(text, at)
        if at >= len(text):
            raise ValueError(f"JSON ends inside {key!r} at character {at}")
        if text[at] == "]":
            return at + 1
        at = _skip(text, _expect(text, at, ","))


def _end(text: str, at: int) -> None:
    """Nothing but white space after the object."""
    if _skip(text, at) != len(text):
        raise ValueError(f"JSON: extra data at character {_skip(text, at)}")


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _peek(text: str, at: int) -> str:
    return text[at] if at < len(text) else ""


def _expect(text: str, at: int, char: str) -> int:
    if _peek(text, at) != char:
        raise ValueError(f"JSON: expected {char!r} at character {at}")
    return at + 1
