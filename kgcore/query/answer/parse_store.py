"""Parsed sentences kept on disk, so that a sentence is parsed once per store, not once per process.

The offline answerers parse every sentence they quote or check (5-15 ms each with the small English pipeline;
about 50 per question on a paper, 0.5-1 s).  :class:`~kgcore.query.answer.base.ParseCache` keeps them in memory
while the app runs, but only a few thousand fit, a collection of papers holds tens of thousands, and a restart
loses them all.  A :class:`ParseStore` is a SQLite file beside the collections (``<store>/.parses/``) that maps
each text to its spaCy ``Doc`` bytes, written as texts are parsed and read back in about 1.2 ms per text.

The file is derived data, safe to delete:

- named after everything that decides a parse (:func:`store_path`: the model, its components and configuration,
  the tokenizer with this project's own rules, the spaCy version), so a doc parsed by another pipeline is never
  read back;
- shared by every collection of the store (a text parses the same wherever it comes from) and by the processes of
  one machine (SQLite's locks, which are unreliable on a network file system: hosts sharing a store there each
  keep theirs in a local folder, ``KGCORE_PARSE_STORE``);
- read-only where the store cannot be written (a read-only store parses what the file lacks, as before);
- bounded: past :data:`MAX_BYTES` nothing more is written (about 2.3 KB per text: a collection of 24 papers
  takes about 50 MB).

The tok2vec tensor is not kept: nothing reads it once the doc is parsed.

>>> import spacy, tempfile
>>> nlp = spacy.blank("en")
>>> store = ParseStore(Path(tempfile.mkdtemp()) / "parses.sqlite", nlp)
>>> store.put({"A hat.": nlp("A hat.")})
1
>>> [t.text for t in store.get(["A hat.", "A cap."])["A hat."]], "A cap." in store.get(["A cap."])
(['A', 'hat', '.'], False)
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import weakref
from collections.abc import Iterable, Iterator, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

#: The folder of the parse stores under a store root.
FOLDER = ".parses"
#: Bumped when what is stored changes, so an older file is never read.
VERSION = 2
#: Texts per SQLite statement (SQLite allows 32,766 parameters; fewer keep each lock short).
BATCH = 500
#: The size past which a parse store takes no more texts.
MAX_BYTES = 1 << 30
_EXCLUDE = ("tensor", "user_data")
_NAMES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def store_path(root: Path, nlp) -> Path:
    """The parse store of pipeline ``nlp`` in the folder ``root``/:data:`FOLDER`: one file per pipeline, named
    after its model, components, configuration and tokenizer (rules and exceptions included) and the spaCy
    version.

    >>> import spacy
    >>> a, b = spacy.blank("en"), spacy.blank("en")
    >>> b.tokenizer.add_special_case("Sra.", [{"ORTH": "Sra."}])
    >>> path = store_path(Path("/s"), a)
    >>> path.name.startswith("en_pipeline-"), path == store_path(Path("/s"), b)
    (True, False)
    """
    name = _NAMES.get(nlp)
    if name is None:
        meta = nlp.meta
        key = hashlib.sha1("|".join([*nlp.pipe_names, nlp.config.to_str(), version("spacy"), str(VERSION)]).encode())
        key.update(nlp.tokenizer.to_bytes(exclude=["vocab"]))
        name = _NAMES[nlp] = f"{meta.get('lang', 'xx')}_{meta.get('name', 'pipeline')}-{key.hexdigest()[:16]}.sqlite"
    return Path(root) / FOLDER / name


class ParseStore:
    """Docs of one spaCy pipeline by text, in a SQLite file (see the module's docstring).  Every method is safe
    from any thread (each opens its own connection) and never raises for a store it cannot read or write: it then
    holds nothing (:attr:`writable` turns False once a write is refused for good; a busy file refuses one write)."""

    def __init__(self, path: Path, nlp):
        self.path = Path(path)
        self.vocab = nlp.vocab
        self.writable = True

    @contextlib.contextmanager
    def _connect(self, write: bool) -> Iterator[sqlite3.Connection]:
        if write:
            self.path.parent.mkdir(exist_ok=True)  # in the store's root, which must exist: never recreated here
            con = sqlite3.connect(self.path, timeout=30)
        else:
            con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", timeout=30, uri=True)
        try:
            if write:
                con.execute("PRAGMA synchronous=NORMAL")  # derived data: a lost last batch is parsed again
                con.execute("CREATE TABLE IF NOT EXISTS docs (key BLOB PRIMARY KEY, doc BLOB NOT NULL)")
            with con:
                yield con
        finally:
            con.close()

    def get(self, texts: Iterable[str]) -> dict[str, Any]:
        """The stored docs of those of ``texts`` that the store holds."""
        from spacy.tokens import Doc  # spaCy (and with it thinc and torch) only once a doc is read

        keys = {_key(t): t for t in texts}
        found: dict[str, Any] = {}
        if not keys or not self.path.exists():
            return found
        try:
            with self._connect(write=False) as con:
                for key, blob in _rows(con, "key, doc", list(keys)):
                    found[keys[bytes(key)]] = Doc(self.vocab).from_bytes(blob)
        except (sqlite3.Error, OSError, ValueError):
            return found
        return found

    def missing(self, texts: Sequence[str]) -> list[str]:
        """Those of ``texts`` the store does not hold (all of them when it cannot be read)."""
        keys = {_key(t): t for t in texts}
        if not self.path.exists():
            return list(keys.values())
        try:
            with self._connect(write=False) as con:
                held = {bytes(k) for (k,) in _rows(con, "key", list(keys))}
        except (sqlite3.Error, OSError):
            return list(keys.values())
        return [t for k, t in keys.items() if k not in held]

    def put(self, docs: dict[str, Any]) -> int:
        """Store ``docs`` (text -> doc); how many were written (0 when the store cannot take them now)."""
        if not docs or not self.writable or (self.path.exists() and self.path.stat().st_size > MAX_BYTES):
            return 0
        rows = [(_key(text), doc.to_bytes(exclude=_EXCLUDE)) for text, doc in docs.items()]
        try:
            with self._connect(write=True) as con:
                con.executemany("INSERT OR REPLACE INTO docs (key, doc) VALUES (?, ?)", rows)
        except sqlite3.OperationalError as exc:
            self.writable = "locked" in str(exc) or "busy" in str(exc)  # busy: only this write is lost
            return 0
        except (sqlite3.Error, OSError):
            self.writable = False
            return 0
        return len(rows)


def _rows(con: sqlite3.Connection, columns: str, keys: list[bytes]) -> Iterator[tuple]:
    """The rows (``columns``) of those of ``keys`` the table holds, :data:`BATCH` keys per statement."""
    for start in range(0, len(keys), BATCH):
        chunk = keys[start:start + BATCH]
        yield from con.execute(f"SELECT {columns} FROM docs WHERE key IN ({','.join('?' * len(chunk))})", chunk)


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
