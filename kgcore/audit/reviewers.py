"""The reviewer registry of an audit database: who may label, under one spelling each.

Every human label names a registered reviewer.  A reviewer comes from the
local reviewer profile (``origin="local"``, chosen or added in the app or
on the command line), from sign-in (``"sign-in"``), or from the author of a label written before the registry existed
or through the API (``"labels"``).  A name whose
:func:`~kgcore.audit.names.reviewer_key` is already registered resolves to
the registered spelling, so one person never appears under two.

These functions take an open connection inside a write transaction
(:meth:`kgcore.audit.db.AuditDB.write`) or a read one.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.audit.names import clean_reviewer, reviewer_key
from kgcore.audit.sql import Conn
from kgcore.core.errors import InputError

ORIGINS = ("local", "sign-in", "labels")


@dataclass(frozen=True)
class Reviewer:
    """One registered reviewer and how many human labels it has written."""

    id: int
    name: str
    origin: str
    created_at: str
    labels: int = 0


def find(conn: Conn, name: str) -> str | None:
    """The registered spelling of ``name`` (same key), or None."""
    row = conn.execute("SELECT name FROM reviewers WHERE key = ?", (reviewer_key(name),)).fetchone()
    return row[0] if row else None


def register(conn: Conn, name: str, origin: str, created_at: str, exact: bool = True) -> str:
    """Register ``name``; returns the stored spelling.

    With ``exact`` a name already registered under another spelling is
    refused (the profile must choose the existing reviewer); without it,
    that spelling is returned (a label's author resolves to it).
    """
    if origin not in ORIGINS:
        raise InputError("origin", f"unknown value {origin!r} (choose one of {', '.join(ORIGINS)})")
    clean = clean_reviewer(name)
    existing = find(conn, clean)
    if existing is not None:
        if exact and existing != clean:
            raise InputError("reviewer", f"{clean!r} is already registered as {existing!r}; choose that reviewer")
        return existing
    conn.execute("INSERT INTO reviewers (name, key, origin, created_at) VALUES (?, ?, ?, ?)",
                 (clean, reviewer_key(clean), origin, created_at))
    return clean


def require(conn: Conn, name: str, field: str = "reviewer") -> str:
    """The registered spelling of ``name``; an unknown reviewer is an :class:`InputError` naming ``field``."""
    clean = clean_reviewer(name, field)
    existing = find(conn, clean)
    if existing is None:
        known = [r[0] for r in conn.execute("SELECT name FROM reviewers ORDER BY name").fetchall()]
        raise InputError(field, f"{clean!r} is not a registered reviewer "
                                f"(known: {', '.join(known) or 'none yet'}; add it to the reviewer profile first)")
    return existing


def listing(conn: Conn) -> list[Reviewer]:
    """Every registered reviewer with its number of human labels, alphabetically."""
    rows = conn.execute(
        "SELECT r.id, r.name, r.origin, r.created_at, (SELECT COUNT(*) FROM labels l WHERE l.author = r.name "
        "AND l.source = 'human') AS n FROM reviewers r ORDER BY r.key").fetchall()
    return [Reviewer(r[0], r[1], r[2], r[3], r[4]) for r in rows]
