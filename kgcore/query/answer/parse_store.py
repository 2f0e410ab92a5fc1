"""Parsed sentences kept on disk, so that a sentence is parsed once per store, not once per process.

The offline answerers parse every sentence they quote or check (5-15 ms each with the small English pipeline;
about 50 per question on a paper, 0.5-1 s).  :class:`~kgcore.query.answer.base.ParseCache` keeps them in memory
while the app runs, but only a few thousand fit, a collection of papers holds tens of thousands, and a restart
loses them all.  A :class:`ParseStore` is a SQLite file beside the collections (``<store>/.parses/``) that maps
each text to its spaCy ``Doc`` bytes, written as texts are parsed and read back in about 1.4 ms per text.

The file is derived data: named after the pipeline and the spaCy version (docs of another version are never
read back), shared by every collection of the store (a text parses the same wherever it comes from), written in
WAL mode so that several app processes share it, and left alone when it cannot be written (a read-only store
simply parses as before).  The tok2vec tensor is not kept: nothing reads it once the doc is parsed.

>>> import spacy, tempfile
>>> nlp = spacy.blank("en")
>>> store = ParseStore(Path(tempfile.mkdtemp()) / "parses.sqlite", nlp)
>>> store.put({"A hat.": nlp("A hat.")})
1
>>> [t.text for t in store.get(["A hat.", "A cap."])["A hat."]], "A cap." in store.get(["A cap."])
(['A', 'hat', '.'], False)
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

#: The folder of the parse stores under a store root.
FOLDER = ".parses"
#: Bumped when what is stored changes, so an older file is never read.
VERSION = 1
#: Texts per SQLite statement (SQLite allows 32,766 parameters; fewer keep each lock short).
BATCH = 500
_EXCLUDE = ("tensor", "user_data")


def store_path(root: Path, nlp) -> Path:
    """The parse store of pipeline ``nlp`` under the store ``root``: one file per pipeline, its components and
    the spaCy version.

    >>> import spacy
    >>> store_path(Path("/s"), spacy.blank("en")).name.startswith("en_pipeline-")
    True
    """
    meta = nlp.meta
    key = "|".join([meta.get("lang", ""), meta.get("name", ""), meta.get("version", ""), *nlp.pipe_names,
                    version("spacy"), str(VERSION)])
    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
    return Path(root) / FOLDER / f"{meta.get('lang', 'xx')}_{meta.get('name', 'pipeline')}-{digest}.sqlite"


class ParseStore:
    """Docs of one spaCy pipeline by text, in a SQLite file (see the module's docstring).  Every method is safe
    from any thread (each opens its own connection) and never raises for a store it cannot read or write: it
    then holds nothing (:attr:`writable` turns False after a failed write)."""

    def __init__(self, path: Path, nlp):
        self.path = Path(path)
        self.vocab = nlp.vocab
        self.writable = True

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=30)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("CREATE TABLE IF NOT EXISTS docs (key BLOB PRIMARY KEY, doc BLOB NOT NULL)")
        return con

    def get(self, texts: Iterable[str]) -> dict[str, Any]:
        """The stored docs of those of ``texts`` that the store holds."""
        from spacy.tokens import Doc  # spaCy (and with it thinc and torch) only once a doc is read

        keys = {_key(t): t for t in texts}
        if not keys or not self.path.exists():
            return {}
        found: dict[str, Any] = {}
        try:
            with self._connect() as con:
                for chunk in _chunks(list(keys), BATCH):
                    marks = ",".join("?" * len(chunk))
                    for key, blob in con.execute(f"SELECT key, doc FROM docs WHERE key IN ({marks})", chunk):
                        found[keys[bytes(key)]] = Doc(self.vocab).from_bytes(blob)
        except (sqlite3.Error, OSError, ValueError):
            return found
        return found

    def put(self, docs: dict[str, Any]) -> int:
        """Store ``docs`` (text -> doc); how many were written (0 when the store cannot be written)."""
        if not docs or not self.writable:
            return 0
        rows = [(_key(text), doc.to_bytes(exclude=_EXCLUDE)) for text, doc in docs.items()]
        try:
            with self._connect() as con:
                con.executemany("INSERT OR REPLACE INTO docs (key, doc) VALUES (?, ?)", rows)
        except (sqlite3.Error, OSError):
            self.writable = False
            return 0
        return len(rows)

    def missing(self, texts: Sequence[str]) -> list[str]:
        """Those of ``texts`` the store does not hold (all of them when it cannot be read)."""
        keys = {_key(t): t for t in texts}
        if not self.path.exists():
            return list(dict.fromkeys(texts))
        held: set[bytes] = set()
        try:
            with self._connect() as con:
                for chunk in _chunks(list(keys), BATCH):
                    marks = ",".join("?" * len(chunk))
                    held.update(bytes(k) for (k,) in con.execute(f"SELECT key FROM docs WHERE key IN ({marks})",
                                                                 chunk))
        except (sqlite3.Error, OSError):
            return list(dict.fromkeys(texts))
        return [t for k, t in keys.items() if k not in held]


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _chunks(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
