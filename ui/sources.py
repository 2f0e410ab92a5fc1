"""Copies of uploaded source files that older versions of the app kept so a document could be re-indexed.

The store now keeps each document's source in its shard; the Library page still finds (and, on removal, drops) a
copy in ``<store root>/.sources/<doc_id>/<file name>``.  The store never lists dot-folders, so they are invisible to
kgcore.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> (root / SOURCES_DIR / "notes").mkdir(parents=True)
>>> p = root / SOURCES_DIR / "notes" / "Notes.md"
>>> _ = p.write_bytes(b"# hi")
>>> find_source(root, "notes") == p, find_source(root, "other")
(True, None)
>>> drop_source(root, "notes"); find_source(root, "notes") is None
True
"""

from __future__ import annotations

import shutil
from pathlib import Path

SOURCES_DIR = ".sources"


def _folder(root: str | Path, doc_id: str) -> Path:
    if not doc_id or "/" in doc_id or "\\" in doc_id or doc_id.startswith("."):
        raise ValueError(f"invalid document id {doc_id!r}")
    return Path(root) / SOURCES_DIR / doc_id


def find_source(root: str | Path, doc_id: str) -> Path | None:
    folder = _folder(root, doc_id)
    files = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    return files[0] if files else None


def drop_source(root: str | Path, doc_id: str) -> None:
    shutil.rmtree(_folder(root, doc_id), ignore_errors=True)
