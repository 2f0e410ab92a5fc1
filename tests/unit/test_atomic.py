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


def test_quiet_reports_a_store_it_cannot_write_instead_of_raising(tmp_path):
    target = tmp_path / "gone" / "view.npz"  # its folder does not exist: an OSError
    assert replace_text(target, "x", quiet=True) is False
    with pytest.raises(OSError):
        replace_text(target, "x")
    assert not target.parent.exists()
