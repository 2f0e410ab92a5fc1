"""WordNet's noun files read for the kind of thing a noun names (kgcore.core.wordnet): a small database in
WordNet's own format, written here, and Debian's wordnet-base where it is installed (.ci/run installs it)."""

from pathlib import Path

import pytest

from kgcore.core import wordnet

LICENCE = "  1 This software and database is being provided ...\n"


def write_database(folder: Path, senses: dict[str, list[int]]) -> None:
    """index.noun and data.noun for ``senses`` (lemma -> lexicographer file numbers, commonest first), with the
    byte offsets WordNet's index gives."""
    data, offsets, counter = LICENCE, {}, 0
    for lemma, files in senses.items():
        for number in files:
            offsets.setdefault(lemma, []).append(len(data.encode()))
            data += f"{len(data.encode()):08d} {number:02d} n 01 {lemma} {counter} 000 | a gloss\n"
            counter += 1
    index = LICENCE + "".join(f"{lemma} n {len(o)} 0 {len(o)} 0 {' '.join(f'{x:08d}' for x in o)}  \n"
                              for lemma, o in sorted(offsets.items()))
    (folder / "data.noun").write_text(data, encoding="utf-8")
    (folder / "index.noun").write_text(index, encoding="utf-8")


@pytest.fixture
def database(tmp_path, monkeypatch):
    write_database(tmp_path, {"chum": [18, 6], "garden": [6, 14], "queen's_academy": [14]})
    monkeypatch.setenv("KGCORE_WORDNET", str(tmp_path))
    wordnet._offsets.cache_clear()
    wordnet.supersenses.cache_clear()
    yield tmp_path
    wordnet._offsets.cache_clear()
    wordnet.supersenses.cache_clear()


def test_each_sense_is_read_in_order_from_the_data_file(database):
    assert wordnet.available()
    assert wordnet.supersenses("chum") == ("person", "artifact")
    assert wordnet.supersenses("Garden ") == ("artifact", "group")
    assert wordnet.supersenses("Queen's Academy") == ("group",)
    assert wordnet.supersenses("zyzzyva") == ()


def test_without_the_files_nothing_is_known(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_WORDNET", str(tmp_path / "missing"))
    wordnet._offsets.cache_clear()
    wordnet.supersenses.cache_clear()
    try:
        assert not wordnet.available()
        assert wordnet.supersenses("chum") is None
    finally:
        wordnet._offsets.cache_clear()
        wordnet.supersenses.cache_clear()


def test_debians_wordnet_names_people_places_and_feelings():
    assert wordnet.supersenses("chum")[0] == "person"
    assert wordnet.supersenses("excitement")[0] == "feeling"
    assert wordnet.supersenses("kitchen") == ("artifact",)
