"""Where the audit database lives and how it is reached: a SQLite file (the default) or a PostgreSQL server.

A location is a file path (SQLite, ``<store>/audit.sqlite`` by default) or
a database URL: ``postgresql+psycopg://user:password@host:port/database``
(``postgresql://`` means the same; psycopg 3 is the driver) or
``sqlite:///path``.  The URL may carry a password: :class:`Location` keeps
it out of its ``repr`` and every message shows :attr:`Location.shown`,
where the password is ``***``.

Writes are one short transaction each, one writer at a time on either
database, so the rules checked inside a transaction (a reviewer reviews a
record once, names stay unique) hold without depending on isolation levels:
SQLite takes its write lock with ``BEGIN IMMEDIATE``; PostgreSQL takes a
transaction-level advisory lock (:data:`WRITE_LOCK`).  Waiting for the lock
is bounded (SQLite's busy timeout, PostgreSQL's ``lock_timeout``) and the
caller retries (:func:`busy`).  Reads never wait for writers on either.

>>> locate("/tmp/audit.sqlite").shown
'/tmp/audit.sqlite'
>>> loc = locate("postgresql://kg:s3cret@db.example:5432/audit", SETTING)
>>> loc.dialect, loc.shown, "s3cret" in repr(loc)
('postgresql', 'postgresql+psycopg://kg:***@db.example:5432/audit', False)
>>> locate("mysql://kg:s3cret@db/audit", SETTING)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
kgcore.core.errors.InputError: KGCORE_AUDIT_DB_URL: mysql://kg:***@db/audit is not a supported audit database
    (use postgresql+psycopg://user:password@host:port/database, or leave it empty for the SQLite file in the store)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from kgcore.audit.sql import POSTGRESQL, SQLITE, Conn
from kgcore.core.errors import AuditError, InputError

if TYPE_CHECKING:
    from sqlalchemy.engine import URL, Engine

#: The environment variable (and :class:`~kgcore.core.settings.Settings` field ``audit_db_url``) naming the database.
SETTING = "KGCORE_AUDIT_DB_URL"
#: The PostgreSQL advisory lock every audit write holds until it commits ("kgcore" in ASCII).
WRITE_LOCK = 0x6B67636F7265
_EXPECTED = ("use postgresql+psycopg://user:password@host:port/database, or leave it empty for the SQLite file "
             "in the store")
_POSTGRES_DRIVERS = ("postgresql", "postgres", "postgresql+psycopg")
#: SQLSTATEs worth retrying: serialization failure, deadlock, lock wait timed out.
_RETRY_STATES = frozenset({"40001", "40P01", "55P03"})


@dataclass(frozen=True)
class Location:
    """A parsed audit database location: ``url`` (with any password) for connecting, ``shown`` for messages."""

    dialect: str
    shown: str
    url: str = field(repr=False)
    path: Path | None = None
    password: str = field(default="", repr=False)

    def scrub(self, text: str) -> str:
        """``text`` with the password (if any) replaced by ``***``.

        >>> Location("postgresql", "u", "postgresql://a:pw@h/d", password="pw").scrub("login pw failed")
        'login *** failed'
        """
        return text.replace(self.password, "***") if self.password else text


def locate(where: str | Path, setting: str = "path") -> Location:
    """The location of ``where`` (a file path or a database URL); a bad one is an InputError naming ``setting``."""
    text = str(where).strip()
    if not text:
        raise InputError(setting, f"is empty ({_EXPECTED})")
    if "://" not in text:
        return Location(SQLITE, text, text, Path(text))
    _check_userinfo(text, setting)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(text)
    except (ArgumentError, ValueError):  # the value itself is not shown: it may hold a password
        raise InputError(setting, f"is not a database URL ({_EXPECTED})") from None
    shown = url.render_as_string(hide_password=True)
    if url.drivername == "sqlite" and url.database and url.database != ":memory:":
        return Location(SQLITE, url.database, text, Path(url.database))
    if url.drivername not in _POSTGRES_DRIVERS:
        raise InputError(setting, f"{shown} is not a supported audit database ({_EXPECTED})")
    if not url.database:
        raise InputError(setting, f"{shown} names no database ({_EXPECTED})")
    url = url.set(drivername="postgresql+psycopg")
    return Location(POSTGRESQL, url.render_as_string(hide_password=True), url.render_as_string(hide_password=False),
                    password=url.password or "")


#: Characters a URL's password must percent-encode, with their codes.
ENCODED = {"@": "%40", "#": "%23", "/": "%2F", "?": "%3F"}


def _check_userinfo(text: str, setting: str) -> None:
    """Refuse a URL whose user or password holds an unencoded ``@``, ``#``, ``/`` or ``?``: it would be read as
    another host, part of the password shown in messages.  Nothing of the value is repeated.

    >>> _check_userinfo("postgresql+psycopg://kgcore:p%40ss@h:5432/db", "KGCORE_AUDIT_DB_URL")
    >>> _check_userinfo("postgresql+psycopg://kg:pw@db/kg?sslrootcert=/etc/ca@2024.pem", "KGCORE_AUDIT_DB_URL")
    >>> _check_userinfo("sqlite:////srv/audit/team@lab/audit.db", "KGCORE_AUDIT_DB_URL")
    >>> try:
    ...     _check_userinfo("postgresql+psycopg://kgcore:p@ss#word@h:5432/db", "KGCORE_AUDIT_DB_URL")
    ... except InputError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    KGCORE_AUDIT_DB_URL: its user or password holds "@", "#", "/" or "?" unencoded: ... (@ as %40, # as %23, ...)
    """
    scheme, rest = text.split("://", 1)
    if scheme.startswith("sqlite"):
        return  # a file path, which may hold any character
    rest = re.split(r"\?(?=[\w.]+=)", rest, maxsplit=1)[0]  # the query's options ("?sslrootcert=/ca@x.pem") aside
    at = rest.rfind("@")
    if at < 0:
        return
    userinfo = rest[:at]
    if "@" in userinfo or any(c in userinfo for c in "#/?"):
        codes = ", ".join(f"{c} as {code}" for c, code in ENCODED.items())
        raise InputError(setting, f'its user or password holds "@", "#", "/" or "?" unencoded: percent-encode them '
                                  f"in the URL ({codes})")


def create_engine(location: Location, timeout_s: float) -> Engine:
    """A SQLAlchemy engine for ``location``.

    SQLite: a new connection per use, as before the port (nothing stays open
    on a store that may be deleted; the last one to close checkpoints the
    WAL), with foreign keys and a busy timeout, transactions begun explicitly.  PostgreSQL: a pool of
    connections, checked before use (a restarted server is reconnected).
    """
    import sqlalchemy as sa
    from sqlalchemy.pool import NullPool

    if location.dialect == SQLITE:
        engine = sa.create_engine(_sqlite_url(location), poolclass=NullPool, connect_args={"timeout": timeout_s})
        sa.event.listen(engine, "connect", partial(_sqlite_setup, int(timeout_s * 1000)))
        return engine
    try:
        return sa.create_engine(location.url, pool_size=4, max_overflow=8, pool_pre_ping=True,
                                connect_args={"connect_timeout": max(1, round(timeout_s))})
    except ImportError as exc:  # the driver is an optional install
        raise InputError("KGCORE_AUDIT_DB_URL", f"PostgreSQL needs the psycopg driver ({exc}): pip install -r "
                                                "requirements-postgres.txt") from None


def _sqlite_url(location: Location) -> URL:
    from sqlalchemy.engine import URL

    return URL.create("sqlite", database=str(location.path))


def _sqlite_setup(busy_ms: int, dbapi_connection, _record) -> None:
    """Every new SQLite connection: no implicit transactions (writes begin ``IMMEDIATE``), busy timeout, keys."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    for pragma in (f"busy_timeout = {busy_ms}", "foreign_keys = ON", "synchronous = NORMAL"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def begin_write(conn: Conn, timeout_s: float) -> None:
    """Start the write transaction of ``conn``: one writer at a time, waiting at most ``timeout_s`` for the lock."""
    if conn.dialect == SQLITE:
        conn.ddl("BEGIN IMMEDIATE")
    else:
        conn.ddl(f"SET LOCAL lock_timeout = {max(1, int(timeout_s * 1000))}")
        conn.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))


def is_database_error(exc: BaseException) -> bool:
    """Whether ``exc`` came from the database or its driver (not from the work done in a transaction)."""
    from sqlalchemy.exc import DBAPIError

    return isinstance(exc, DBAPIError)


def busy(exc: BaseException) -> bool:
    """Whether ``exc`` only means another writer holds the database (worth retrying)."""
    orig = getattr(exc, "orig", exc)
    state = getattr(orig, "sqlstate", None)
    if state is not None:
        return state in _RETRY_STATES
    text = str(orig)
    return "locked" in text or "busy" in text


def damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says a SQLite file is damaged or is no database at all."""
    text = str(getattr(exc, "orig", exc))
    return "malformed" in text or "not a database" in text or "disk I/O" in text


def message(exc: BaseException) -> str:
    """The driver's own words for ``exc`` on one line (no SQL, no parameters, no SQLAlchemy links)."""
    text = str(getattr(exc, "orig", None) or exc)
    return " ".join(text.split())


def error(location: Location, exc: BaseException, setting: str, connecting: bool = False) -> AuditError:
    """The :class:`AuditError` for ``exc``: names the database (password masked) and what to do about it."""
    text = location.scrub(message(exc))
    if location.dialect == SQLITE and damaged(exc):
        return AuditError(f"{location.shown}: the audit database is damaged ({text}); restore it from an export, "
                          "or move it away to start a new one")
    if connecting and location.dialect == POSTGRESQL:
        return AuditError(f"{location.shown}: cannot connect to the audit database ({text}); check {setting} "
                          "(host, port, user, password, database) and that the server is running; nothing was "
                          "saved, so do it again once it answers")
    return AuditError(f"{location.shown}: {text}")
