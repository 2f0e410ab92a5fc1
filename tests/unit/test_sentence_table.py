"""The collection's sentence table read back: rows as written, rows of another type than declared read as the
documents' own files are, a row that is not JSON named with the table and its remedy."""

import math

import numpy as np
import pytest

from kgcore.core.errors import DamagedIndexError
from kgcore.core.types import Sentence
from kgcore.index.store.integrity import PackedDigests, digest_of
from kgcore.index.store.sentence_table import OFFSETS, TABLE, SentenceTable, _mapped, write_rows


def _table(folder, rows):
    files = write_rows(folder, [rows])
    return SentenceTable(*_mapped(folder, files), path=folder / TABLE), files


def test_rows_of_another_type_than_declared_are_read_as_the_documents_files_read_them(tmp_path):
    odd = Sentence("d/text_0-0", 0, 0, 0, "A.", "A.", "A.", "d", page=1.0,  # type: ignore[arg-type]
                   boxes=((1, 0.5, 1.0, math.nan, 2.0),))
    plain = Sentence("d/text_0-1", 0, 1, 1, "B.", "B.", "B.", "d", page=2)
    table, _ = _table(tmp_path, [odd, plain])
    assert table[0].page == 1.0 and table[0].boxes[0][:3] == (1, 0.5, 1.0) and table[1] == plain
    assert [s.id for s in table] == ["d/text_0-0", "d/text_0-1"]


def test_a_row_that_is_not_json_names_the_table_and_the_remedy(tmp_path):
    rows = [Sentence(f"d/text_0-{i}", 0, i, i, "Text.", "Text.", "Text.", "d") for i in range(3)]
    _, files = _table(tmp_path, rows)
    data = bytearray((tmp_path / TABLE).read_bytes())
    start = int(np.load(tmp_path / OFFSETS)[1])
    data[start:start + 6] = b"#" * 6  # a writer's fault: the digests are made to match
    (tmp_path / TABLE).write_bytes(bytes(data))
    table = SentenceTable(*_mapped(tmp_path, {**files, TABLE: digest_of(bytes(data))}), path=tmp_path / TABLE)
    assert table[0].id == "d/text_0-0" and table[2].id == "d/text_0-2"
    with pytest.raises(DamagedIndexError) as info:
        table[1]
    assert str(tmp_path / TABLE) in str(info.value) and "row 1 unreadable" in str(info.value)
    assert "index any document into the collection again" in str(info.value)


def test_a_subset_numbers_its_rows_from_zero_and_leaves_the_whole_table_as_it_was(tmp_path):
    rows = [Sentence(f"d/text_0-{i}", 0, i, i, f"S{i}.", f"S{i}.", f"S{i}.", "d") for i in range(5)]
    table, _ = _table(tmp_path, rows)
    part = table.subset(np.array([4, 1]))
    assert [(s.id, s.position) for s in part] == [("d/text_0-4", 0), ("d/text_0-1", 1)]
    assert [s.position for s in table] == list(range(5)) and len(part) == 2
    with pytest.raises(ValueError, match="subset of a subset"):
        part.subset(np.array([0]))


def test_digests_that_are_not_sha256_hex_are_kept_as_given():
    spaced = {"a.json": (3, "ab " * 21 + "a"), "b.json": (4, "cd" * 32)}
    assert PackedDigests.of(spaced) is spaced
    packed = PackedDigests.of({"a.json": (3, "ab" * 32), "b.json": (4, "cd" * 32)})
    assert isinstance(packed, PackedDigests) and packed["b.json"] == (4, "cd" * 32)
