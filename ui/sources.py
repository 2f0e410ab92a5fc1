"""Copies of uploaded source files, kept so a document can be re-indexed.

They live in ``<store root>/.sources/<doc_id>/<file name>``; the store never
lists dot-folders, so they are invisible to kgcore.

>>> import tempfile
>>> root = tempfile.mkdtemp()
>>> p = keep_source(root, "notes", "Notes.md", b"# hi")
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


def keep_source(root: str | Path, doc_id: str, filename: str, data: bytes) -> Path:
    """Store ``data`` as the source of ``doc_id`` (replacing an older one)."""
    folder = _folder(root, doc_id)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (Path(filename.replace("\\", "/")).name or "source.txt")
    path.write_bytes(data)
    return path


def find_source(root: str | Path, doc_id: str) -> Path | None:
    folder = _folder(root, doc_id)
    files = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    return files[0] if files else None


def drop_source(root: str | Path, doc_id: str) -> None:
    shutil.rmtree(_folder(root, doc_id), ignore_errors=True)
