"""A file replaced atomically keeps its old contents when the new ones cannot be written."""

from __future__ import annotations

import pytest

from kgcore.core.atomic import replace_file, replace_text


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    file = tmp_path / "graph.npz"
    replace_text(file, "old")

    def half_then_fail(fh):
        fh.write(b"new, half wr")
        raise ValueError("the writer broke")

    with pytest.raises(ValueError, match="broke"):
        replace_file(file, half_then_fail)
    assert file.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["graph.npz"]


def test_a_cleanup_a_read_only_store_refuses_does_not_hide_the_outcome(tmp_path, monkeypatch):
    """On a read-only mount even the unlink of a temporary file never made fails (EROFS): a quiet write still
    returns False, a loud one raises the write's own error."""
    import errno
    from pathlib import Path

    def refuse(*_args, **_kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(Path, "open", refuse)
    monkeypatch.setattr(Path, "unlink", refuse)
    assert replace_text(tmp_path / "view.npz", "x", quiet=True) is False
    with pytest.raises(OSError, match="Read-only"):
        replace_text(tmp_path / "view.npz", "x")


def test_quiet_reports_a_store_it_cannot_write_instead_of_raising(tmp_path):
    target = tmp_path / "gone" / "view.npz"  # its folder does not exist: an OSError
    assert replace_text(target, "x", quiet=True) is False
    with pytest.raises(OSError):
        replace_text(target, "x")
    assert not target.parent.exists()
