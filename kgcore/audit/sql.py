"""The SQL the audit modules write, run through SQLAlchemy Core on SQLite and PostgreSQL alike.

The audit modules write plain SQL with ``?`` placeholders, in the subset
both databases understand (no ``INSERT OR IGNORE``, no booleans summed,
ids returned with ``RETURNING id``).  :class:`Conn` turns each statement
into a SQLAlchemy :func:`~sqlalchemy.text` clause with named parameters,
so the driver (``sqlite3`` or psycopg) binds every value: nothing is ever
pasted into the SQL.  Rows come back as :class:`Row`, read by position or
by column name as ``sqlite3.Row`` was.

SQLAlchemy is imported on first use (it is not needed to import kgcore).

>>> named("SELECT * FROM labels WHERE id = ? AND author IN (?, ?)", (3, "ada", "bob"))
('SELECT * FROM labels WHERE id = :p0 AND author IN (:p1, :p2)', {'p0': 3, 'p1': 'ada', 'p2': 'bob'})
>>> row = Row.of(("id", "author"), (3, "ada"))
>>> row[0], row["author"], row.keys(), tuple(row)
(3, 'ada', ['id', 'author'], (3, 'ada'))
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from kgcore.core.errors import AuditError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

SQLITE, POSTGRESQL = "sqlite", "postgresql"


def named(sql: str, args: Iterable = ()) -> tuple[str, dict[str, Any]]:
    r"""``sql`` with its ``?`` placeholders named ``:p0``, ``:p1``... and the parameters by name.

    Inside a quoted literal a ``?`` is text and a ``:`` is escaped (SQLAlchemy would read ``:name`` as a parameter).

    >>> named("SELECT 'a?b :c', x FROM t WHERE y = ?", [1])
    ("SELECT 'a?b \\:c', x FROM t WHERE y = :p0", {'p0': 1})
    >>> named("SELECT 1 WHERE a = ?", ())
    Traceback (most recent call last):
    ...
    kgcore.core.errors.AuditError: SQL with 1 placeholder(s) got 0 value(s): SELECT 1 WHERE a = ?
    """
    values = tuple(args)
    pieces, count = [], 0
    for i, part in enumerate(sql.split("'")):  # odd parts are inside a literal ('' inside one stays balanced)
        if i % 2:
            pieces.append(part.replace(":", "\\:"))
            continue
        marks = part.split("?")
        pieces.append(marks[0] + "".join(f":p{count + j}{rest}" for j, rest in enumerate(marks[1:])))
        count += len(marks) - 1
    if count != len(values):
        raise AuditError(f"SQL with {count} placeholder(s) got {len(values)} value(s): {sql}")
    return "'".join(pieces), {f"p{i}": v for i, v in enumerate(values)}


@dataclass(frozen=True, slots=True)
class Row:
    """One result row, read by position (``row[0]``) or by column name (``row["id"]``)."""

    index: Mapping[str, int]
    values: tuple

    @classmethod
    def of(cls, keys: Sequence[str], values: Sequence) -> Row:
        return cls(MappingProxyType({k: i for i, k in enumerate(keys)}), tuple(values))

    def __getitem__(self, key: int | str) -> Any:
        return self.values[key if isinstance(key, int) else self.index[key]]

    def keys(self) -> list[str]:
        return list(self.index)

    def __iter__(self) -> Iterator:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class Result:
    """The rows of one statement (all fetched) and how many rows it changed."""

    rows: list[Row]
    rowcount: int

    def fetchone(self) -> Row | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Row]:
        return self.rows

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)


@dataclass(frozen=True)
class Conn:
    """An open connection to the audit database (inside a write transaction or for reading)."""

    raw: Connection
    dialect: str

    def execute(self, sql: str, args: Iterable = ()) -> Result:
        """Run one statement with ``?`` placeholders; the rows are fetched at once."""
        from sqlalchemy import text

        statement, params = named(sql, args)
        cursor = self.raw.execute(text(statement), params)
        if not cursor.returns_rows:
            return Result([], cursor.rowcount)
        index = MappingProxyType({k: i for i, k in enumerate(cursor.keys())})
        return Result([Row(index, tuple(r)) for r in cursor], cursor.rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence]) -> None:
        """Run one statement once per row of parameters."""
        from sqlalchemy import text

        if rows:
            statement = named(sql, rows[0])[0]
            self.raw.execute(text(statement), [named(sql, r)[1] for r in rows])

    def insert(self, sql: str, args: Iterable = ()) -> int:
        """Run an ``INSERT`` and return the new row's ``id``."""
        return int(self.execute(f"{sql} RETURNING id", args).rows[0][0])

    def ddl(self, statement: str) -> None:
        """Run a statement without parameters as it is (schema changes, triggers, pragmas)."""
        self.raw.exec_driver_sql(statement, execution_options={"no_parameters": True})
