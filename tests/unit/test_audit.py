"""Audit database without models: the module doctests, the file format and refusing foreign files."""

from __future__ import annotations

import doctest
import importlib
import sqlite3

import pytest

from kgcore.audit import (
    SCHEMA_VERSION,
    AuditDB,
)
from kgcore.core.errors import AuditError, InputError


@pytest.mark.parametrize("module", ["kgcore.audit.db", "kgcore.audit.model", "kgcore.evaluate.diagnose"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture
def db(tmp_path):
    return AuditDB(tmp_path / "audit.sqlite")


def test_database_file_is_wal_and_versioned(db):
    with sqlite3.connect(db.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    with pytest.raises(InputError):
        db.add_label(12345, "correct", author="ada")  # no such record


def test_newer_or_foreign_files_are_refused(tmp_path):
    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(AuditError, match="newer"):
        AuditDB(newer)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all, just text" * 100)
    with pytest.raises(AuditError, match="junk.sqlite"):
        AuditDB(junk)
