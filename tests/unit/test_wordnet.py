"""WordNet's noun files read for the kind of thing a noun names (kgcore.core.wordnet): a small database in
WordNet's own format, written here, and Debian's wordnet-base where it is installed (.ci/run installs it)."""

from pathlib import Path

import pytest
from wordnetkit import requires_wordnet

from kgcore.core import wordnet

LICENCE = "  1 This software and database is being provided ...\n"


def write_database(folder: Path, synsets: list[tuple[str, int, int | None]]) -> None:
    """index.noun and data.noun for ``synsets`` (lemma, lexicographer file number, the index of its hypernym's
    synset or None; a lemma's senses in the order given), with the byte offsets WordNet's index gives."""
    lines, offsets, at = [], [], len(LICENCE.encode())
    for lemma, _number, _parent in synsets:
        offsets.append(at)
        at += len(f"{0:08d} 00 n 01 {lemma} 0 000 | a gloss\n".encode()) + 22  # room for one pointer
    for (lemma, number, parent), offset in zip(synsets, offsets, strict=True):
        pointer = f"001 @ {offsets[parent]:08d} n 0000" if parent is not None else "000"
        line = f"{offset:08d} {number:02d} n 01 {lemma} 0 {pointer} | a gloss"
        lines.append(line.ljust(len(f"{0:08d} 00 n 01 {lemma} 0 000 | a gloss") + 22) + "\n")
    senses: dict[str, list[int]] = {}
    for (lemma, _n, _p), offset in zip(synsets, offsets, strict=True):
        senses.setdefault(lemma, []).append(offset)
    index = LICENCE + "".join(f"{lemma} n {len(o)} 0 {len(o)} 0 {' '.join(f'{x:08d}' for x in o)}  \n"
                              for lemma, o in sorted(senses.items()))
    (folder / "data.noun").write_text(LICENCE + "".join(lines), encoding="utf-8")
    (folder / "index.noun").write_text(index, encoding="utf-8")
    (folder / "noun.exc").write_text("larcenies larceny\n", encoding="utf-8")  # an "irregular" plural, for the test


@pytest.fixture
def database(tmp_path, monkeypatch):
    write_database(tmp_path, [("chum", 18, None), ("chum", 6, None), ("garden", 6, None), ("garden", 14, None),
                              ("queen's_academy", 14, None), ("crime", 4, None), ("theft", 4, 5), ("larceny", 4, 6)])
    monkeypatch.setenv("KGCORE_WORDNET", str(tmp_path))
    wordnet.forget()
    yield tmp_path
    wordnet.forget()


def test_each_sense_is_read_in_order_from_the_data_file(database):
    assert wordnet.available()
    assert wordnet.supersenses("chum") == ("person", "artifact")
    assert wordnet.supersenses("Garden ") == ("artifact", "group")
    assert wordnet.supersenses("Queen's Academy") == ("group",)
    assert wordnet.supersenses("zyzzyva") == ()


def test_a_kind_is_found_above_every_sense_of_a_noun(database):
    assert wordnet.is_a("larceny", "crime") and wordnet.is_a("thefts", "crime") and wordnet.is_a("crime", "crime")
    assert wordnet.is_a("larcenies", "crime")  # through noun.exc
    assert not wordnet.is_a("crime", "theft") and not wordnet.is_a("chum", "crime")
    assert wordnet.is_a("zyzzyva", "crime") is False


def test_a_damaged_data_file_answers_nothing_and_raises_nothing(database):
    data = database / "data.noun"
    data.write_bytes(data.read_bytes()[: len(LICENCE) + 30])  # cut inside the first synset's line
    wordnet.forget()
    assert wordnet.supersenses("larceny") == () and wordnet.is_a("larceny", "crime") is False


def test_without_the_files_nothing_is_known(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_WORDNET", str(tmp_path / "missing"))
    wordnet.forget()
    try:
        assert not wordnet.available()
        assert wordnet.supersenses("chum") is None and wordnet.is_a("theft", "crime") is None
        assert wordnet.known("chum") is None
    finally:
        wordnet.forget()


@requires_wordnet
def test_debians_wordnet_names_people_places_and_feelings():
    assert wordnet.supersenses("chum")[0] == "person"
    assert wordnet.supersenses("excitement")[0] == "feeling"
    assert wordnet.supersenses("kitchen") == ("artifact",) and wordnet.supersenses("place")[0] == "location"
    assert wordnet.supersenses("mice")[0] == "animal" and wordnet.supersenses("churches")[0] == "group"
    assert wordnet.is_a("execution", "punishment") and wordnet.is_a("concussion", "injury")
    assert wordnet.specific("crime") and not wordnet.specific("event")


def test_with_noun_files_only_words_are_known_as_nouns_and_nothing_raises(database):
    assert wordnet.known("chums") and wordnet.known("larcenies") and not wordnet.known("elliott")


@requires_wordnet
def test_debians_wordnet_knows_english_words_in_any_form():
    assert all(wordnet.known(w) for w in ("strapped", "teenagers", "happiest", "reexamine", "slaughter"))
    assert not any(wordnet.known(w) for w in ("Elliott", "Harvell", "nintenth", "supervszed"))
