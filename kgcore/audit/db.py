"""Audit records and error labels in a SQLite database under the store root.

An **audit record** is one answered question frozen with everything needed
to show it again or re-run it: document id and index manifest hash, the
question, gold answers, method and settings, query graph, matches, context
sentences (ids and texts), answer, citations, model names and versions and
timings.  The result itself is kept as :func:`record_payload` JSON (the
CLI's :func:`~kgcore.query.engine.result_to_json` plus what that leaves out);
the fields used for filtering are also columns.

A **label** says which stage failed (paper section 6 / Table 5) and points
at the artifact that failed:

==========================  ============================================
type                        artifact kinds (``artifact_id``)
==========================  ============================================
``I``   graph construction  ``node`` (node id), ``edge`` (``src|role|dst``), ``sentence``
``II``  retrieval           ``match`` (``query_node|node_id``), ``sentence`` (should have been retrieved)
``III`` answer generation   ``answer_sentence`` (index in the citations)
``correct``                 ``record``
``gold-not-in-document``    ``record``
==========================  ============================================

Every type also accepts ``record`` (no single artifact).  Labels from
:mod:`kgcore.evaluate.diagnose` have ``source="automatic"``: they are suggestions an
analyst accepts or overrides, which creates a *human* label that points at
the suggestion through ``suggestion_id``.

The database is a SQLite file under the store root by default, or a
PostgreSQL database named by ``KGCORE_AUDIT_DB_URL``
(``postgresql+psycopg://user:password@host:port/database``, see
:mod:`~kgcore.audit.backend`); both run the same SQL through SQLAlchemy
Core (:mod:`~kgcore.audit.sql`).  Every write is one short transaction,
one writer at a time (SQLite ``BEGIN IMMEDIATE``, a PostgreSQL advisory
lock), retried while another writer holds the lock.  The schema is
versioned with ordered :data:`~kgcore.audit.schema.MIGRATIONS`, applied
when the database is opened; a SQLite file runs in WAL mode.  Creating the
database is retried the same way (several processes may create it at
once), and a damaged file is an :class:`~kgcore.core.errors.AuditError`
naming it and what to do.

>>> import tempfile
>>> from kgcore.audit.schema import SCHEMA_VERSION
>>> db = AuditDB(Path(tempfile.mkdtemp()) / "audit.sqlite")
>>> db.schema_version == SCHEMA_VERSION, db.list_records(), db.dialect
(True, [], 'sqlite')
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kgcore.audit import backend
from kgcore.audit import reviewers as registry
from kgcore.audit.bundles import bundle
from kgcore.audit.model import (
    AuditRecord,
    Label,
    as_tuple,
    gold_list,
    record_models,
    record_payload,
    record_uid,
    sql_filter,
    utc_now,
)
from kgcore.audit.rows import insert_label, label_from_row, record_from_row
from kgcore.audit.schema import apply_migrations, schema_version
from kgcore.audit.sql import SQLITE, Conn, Row
from kgcore.core.errors import AuditError, InputError
from kgcore.core.settings import Settings
from kgcore.core.types import Answer, QueryResult
from kgcore.index.store.collection import CollectionManifest
from kgcore.index.store.disk import Index

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

DB_NAME = "audit.sqlite"
T = TypeVar("T")

_LIST_COLUMNS = ("id", "uid", "created_at", "doc_id", "manifest_hash", "question", "method", "answerer", "answer",
                 "gold_json", "settings_json", "models_json")


class AuditDB:
    """The audit database at ``path`` (a SQLite file path or a database URL; created and migrated on open).

    Every call takes its own connection (a new one for SQLite, one from a
    pool for PostgreSQL), so one object can be shared by the threads of a web
    server and several processes can write to the same database.
    ``setting`` names where ``path`` came from in the error a bad one gives.
    """

    def __init__(self, path: str | Path, timeout_s: float = 10.0, retries: int = 20, *, setting: str = "path"):
        self.location = backend.locate(path, setting)
        self.setting = setting
        self.path = self.location.path
        self.timeout_s = timeout_s
        self.retries = retries
        self._engine_pid: tuple[Engine, int] | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._migrate()

    @classmethod
    def for_store(cls, store_root: str | Path, settings: Settings | None = None) -> AuditDB:
        """The audit database of the index store at ``store_root``: ``<root>/audit.sqlite``, or the database
        of ``KGCORE_AUDIT_DB_URL`` when it is set (one database for every store)."""
        url = (settings or Settings.from_env()).audit_db_url
        return cls(url, setting=backend.SETTING) if url else cls(Path(store_root) / DB_NAME)

    def __repr__(self) -> str:
        return f"AuditDB({self.where!r})"

    @property
    def where(self) -> str:
        """The database for messages: the file path, or the URL with its password masked."""
        return self.location.shown

    @property
    def url(self) -> str:
        """The database's full URL (with its password: pass it on, never show it) or file path."""
        return self.location.url

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.location.dialect

    # -- connections -------------------------------------------------------------
    def _engine(self) -> Engine:
        """This process's engine (a forked child never reuses its parent's pooled connections)."""
        if self._engine_pid is None or self._engine_pid[1] != os.getpid():
            if self._engine_pid is not None:
                self._engine_pid[0].dispose(close=False)
            self._engine_pid = (backend.create_engine(self.location, self.timeout_s), os.getpid())
        return self._engine_pid[0]

    def close(self) -> None:
        """Close the pooled connections (a later call opens new ones)."""
        if self._engine_pid is not None and self._engine_pid[1] == os.getpid():
            self._engine_pid[0].dispose()
        self._engine_pid = None

    def query(self, sql: str, args: Iterable = ()) -> list[Row]:
        """Rows of one read-only statement (``?`` placeholders), readable by position and by column name."""
        return self.read(lambda conn: conn.execute(sql, args).rows)

    def _connect(self) -> Connection:
        """A connection (SQLite: a new one; PostgreSQL: checked out of the pool); AuditError when none opens."""
        try:
            return self._engine().connect()
        except Exception as exc:
            if not backend.is_database_error(exc):
                raise
            raise backend.error(self.location, exc, self.setting, connecting=True) from exc

    def read(self, work: Callable[[Conn], T]) -> T:
        """Run ``work(conn)`` on a connection outside any write transaction."""
        try:
            with self._connect() as raw:
                return work(Conn(raw, self.dialect))
        except Exception as exc:
            if not backend.is_database_error(exc):
                raise
            raise self._error(exc) from exc

    def _error(self, exc: BaseException) -> AuditError:
        return backend.error(self.location, exc, self.setting)

    def write(self, work: Callable[[Conn], T]) -> T:
        """Run ``work(conn)`` in one write transaction (one writer at a time), retried while another writer
        holds the lock; nothing of it is kept unless all of it is."""
        delay = 0.01
        for attempt in range(self.retries + 1):
            try:
                with self._connect() as raw:
                    conn = Conn(raw, self.dialect)
                    backend.begin_write(conn, self.timeout_s)
                    value = work(conn)
                    raw.commit()
                    return value
            except Exception as exc:  # leaving the block rolled the transaction back
                if not backend.is_database_error(exc):
                    raise
                if not backend.busy(exc) or attempt == self.retries:
                    raise self._error(exc) from exc
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")

    def _migrate(self) -> None:
        """Apply the migrations (a SQLite file switches to WAL first); an error names the database."""
        try:
            if self.dialect == SQLITE:
                self._wal()
            self.write(apply_migrations)
        except AuditError as exc:
            if str(exc).startswith(self.where):
                raise
            raise AuditError(f"{self.where}: {exc}") from exc

    def _wal(self) -> None:
        """Switch a SQLite file to WAL, retried while another process creates it (switching the journal mode can
        fail at once with "database is locked", without waiting)."""
        delay = 0.01
        for attempt in range(self.retries + 1):
            try:
                with self._connect() as raw:
                    raw.exec_driver_sql("PRAGMA journal_mode = WAL").fetchone()
                return
            except Exception as exc:
                if not backend.is_database_error(exc):
                    raise
                if backend.damaged(exc):
                    raise self._error(exc) from exc
                if not backend.busy(exc) or attempt == self.retries:
                    raise AuditError(f"{self.where}: not an audit database ({backend.message(exc)})") from exc
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.5)

    @property
    def schema_version(self) -> int:
        return self.read(schema_version)

    # -- records -----------------------------------------------------------------
    def save_record(self, result: QueryResult, answer: Answer | None, doc_manifest: CollectionManifest,
                    gold=None) -> int:
        """Store a result and its answer; returns the record id.

        The record's ``uid`` is :func:`record_uid` of its content, so saving
        the same result again returns the existing id (and adds any new gold
        answers to it) instead of duplicating it.
        """
        if doc_manifest.name != result.collection:
            raise InputError("doc_manifest", f"is the manifest of {doc_manifest.name!r}, not of {result.collection!r}")
        payload = record_payload(result, answer)
        ihash = doc_manifest.content_hash
        uid, golds = record_uid(payload, ihash), gold_list(gold)
        models = record_models(doc_manifest, answer)

        def work(conn: Conn) -> int:
            row = conn.execute("SELECT id, gold_json FROM records WHERE uid = ?", (uid,)).fetchone()
            if row is not None:
                merged = list(dict.fromkeys(json.loads(row["gold_json"]) + golds))
                conn.execute("UPDATE records SET gold_json = ? WHERE id = ?", (json.dumps(merged), row["id"]))
                return row["id"]
            return conn.insert(
                "INSERT INTO records (uid, created_at, doc_id, manifest_hash, question, method, answerer, answer,"
                " gold_json, settings_json, models_json, result_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (uid, utc_now(), result.collection, ihash, result.question, result.method, payload["answerer"],
                 payload["answer"], json.dumps(golds), json.dumps(payload["settings"]), json.dumps(models),
                 json.dumps(payload)),
            )

        return self.write(work)

    def set_gold(self, record_id: int, gold) -> None:
        """Replace the gold answers of a record."""
        golds = gold_list(gold)
        self.get_record(record_id)
        self.write(lambda conn: conn.execute("UPDATE records SET gold_json = ? WHERE id = ?",
                                             (json.dumps(golds), record_id)))

    def get_record(self, record_id: int) -> AuditRecord:
        rows = self.query("SELECT * FROM records WHERE id = ?", (record_id,))
        if not rows:
            raise InputError("record_id", f"there is no audit record {record_id} in {self.where}")
        return record_from_row(rows[0])

    def has_record(self, record_id: int) -> bool:
        """Whether record ``record_id`` exists (without reading it)."""
        return bool(self.query("SELECT 1 FROM records WHERE id = ?", (record_id,)))

    def list_records(self, doc_ids=None, methods=None, label_types=None, authors=None, since=None, until=None,
                     with_payload: bool = True) -> list[AuditRecord]:
        """Records, newest first; every filter is optional (a value or a list of values).

        ``label_types``/``authors`` keep records with at least one such label;
        ``since``/``until`` are ISO dates or timestamps (UTC), both inclusive.
        ``with_payload=False`` leaves ``payload`` empty (cheap listings of
        records whose stored context is a whole book).
        """
        where, args = sql_filter(doc_ids, methods, label_types, authors, since, until)
        columns = "r.*" if with_payload else ", ".join(f"r.{c}" for c in _LIST_COLUMNS)
        sql = f"SELECT {columns} FROM records r WHERE {where} ORDER BY r.created_at DESC, r.id DESC"
        return [record_from_row(r) for r in self.query(sql, args)]

    def delete_record(self, record_id: int) -> None:
        """Delete a record and its labels."""
        self.write(lambda conn: conn.execute("DELETE FROM records WHERE id = ?", (record_id,)))

    # -- labels ------------------------------------------------------------------
    def add_label(self, record_id: int, label_type: str, artifact_kind: str = "record", artifact_id: str = "",
                  note: str = "", author: str = "", source: str = "human", suggestion_id: int | None = None,
                  details: dict | None = None) -> int:
        """Attach a label to a record; returns the label id (see the module doc for types and artifacts).

        Automatic labels (suggestions) get the author :data:`AUTOMATIC_AUTHOR`
        unless one is given; human labels need an author.
        """
        return self.write(lambda conn: insert_label(conn, record_id, label_type, artifact_kind, artifact_id, note,
                                                    author, source, suggestion_id, details))

    def get_label(self, label_id: int) -> Label:
        rows = self.query("SELECT * FROM labels WHERE id = ?", (label_id,))
        if not rows:
            raise InputError("label_id", f"there is no label {label_id} in {self.where}")
        return label_from_row(rows[0])

    def labels_for(self, record_id: int) -> list[Label]:
        """The labels of one record, oldest first."""
        rows = self.query("SELECT * FROM labels WHERE record_id = ? ORDER BY created_at, id", (record_id,))
        return [label_from_row(r) for r in rows]

    def list_labels(self, doc_ids=None, methods=None, label_types=None, authors=None, sources=None, since=None,
                    until=None, roles=None) -> list[Label]:
        """Labels whose record passes the record filters and which have the given types/authors/sources/roles."""
        where, args = sql_filter(doc_ids, methods, None, None, None, None)
        for column, values in (("l.label_type", label_types), ("l.author", authors), ("l.source", sources),
                               ("l.role", roles)):
            values = as_tuple(values)
            if values:
                where += f" AND {column} IN ({','.join('?' * len(values))})"
                args += list(values)
        if since:
            where, args = where + " AND l.created_at >= ?", args + [str(since)]
        if until:
            where, args = where + f" AND substr(l.created_at, 1, {len(str(until))}) <= ?", args + [str(until)]
        sql = f"SELECT l.* FROM labels l JOIN records r ON r.id = l.record_id WHERE {where} ORDER BY l.created_at, l.id"
        return [label_from_row(r) for r in self.query(sql, args)]

    def delete_label(self, label_id: int, by: str = "") -> None:
        """Delete a label; a trigger keeps it in ``label_history``, here with who deleted it (``by``)."""
        label = self.get_label(label_id)

        def work(conn: Conn) -> None:
            conn.execute("DELETE FROM labels WHERE id = ?", (label_id,))
            conn.execute("UPDATE label_history SET deleted_by = ? WHERE id = (SELECT MAX(id) FROM label_history "
                         "WHERE label_uid = ? AND event = 'deleted')", (by, label.uid))

        self.write(work)

    def label_uids(self) -> set[str]:
        return {r[0] for r in self.query("SELECT uid FROM labels")}

    def authors(self) -> list[str]:
        """Authors of human labels, alphabetically."""
        return [r[0] for r in self.query("SELECT DISTINCT author FROM labels WHERE source = 'human' ORDER BY author")]

    # -- reviewers (see kgcore.audit.reviewers) ------------------------------------------
    def add_reviewer(self, name: str, origin: str = "local") -> str:
        """Register a reviewer (the local profile's "new reviewer"); returns the stored spelling."""
        return self.write(lambda conn: registry.register(conn, name, origin, utc_now()))

    def reviewers(self) -> list[registry.Reviewer]:
        """The registered reviewers with their label counts, alphabetically."""
        return self.read(registry.listing)

    def require_reviewer(self, name: str, field: str = "reviewer") -> str:
        """The registered spelling of ``name``; an unknown one is an InputError naming ``field``."""
        return self.read(lambda conn: registry.require(conn, name, field))

    def accept_suggestion(self, label_id: int, author: str, note: str = "") -> int:
        """A human label agreeing with the automatic suggestion ``label_id``."""
        s = self._suggestion(label_id)
        return self.add_label(s.record_id, s.label_type, s.artifact_kind, s.artifact_id,
                              note or f"Accepted the automatic diagnosis: {s.note}", author, "human", s.id, s.details)

    def override(self, label_id: int, author: str, label_type: str, artifact_kind: str = "record",
                 artifact_id: str = "", note: str = "") -> int:
        """A human label that replaces the automatic suggestion ``label_id`` with the analyst's own verdict."""
        s = self._suggestion(label_id)
        return self.add_label(s.record_id, label_type, artifact_kind, artifact_id,
                              note or f"Overrode the automatic diagnosis ({s.label_type}).", author, "human", s.id)

    def _suggestion(self, label_id: int) -> Label:
        label = self.get_label(label_id)
        if label.source != "automatic":
            raise InputError("label_id", f"label {label_id} is a human label, not an automatic suggestion")
        return label

    def audit_bundle(self, record_id: int, index: Index) -> dict:
        """One record with its labels, matched subgraph and sentence texts (see :func:`~kgcore.audit.model.bundle`)."""
        return bundle(self.get_record(record_id), self.labels_for(record_id), index)
