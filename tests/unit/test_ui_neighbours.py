"""The Entity page's neighbours leave out names that say nothing: the ones the papers' pages listed."""

from __future__ import annotations

from ui.neighbours_view import is_junk_neighbour

#: (name, documents it is in) as the Chubby and Paxos pages listed them on a collection of 4 papers.
LISTED = [("2", 1), ("bug", 2), ("example", 4), ("cluster", 4), ("we", 4), ("system builder", 1), ("attempt", 2),
          ("5.2", 1), ("lock service", 1), ("Paxos", 3), ("master", 2), ("Bigtable", 4), ("replica", 1)]


def test_numbers_pronouns_section_numbers_and_generic_nouns_are_left_out():
    kept = [name for name, docs in LISTED if not is_junk_neighbour(name, docs, 4)]
    assert kept == ["lock service", "Paxos", "master", "Bigtable", "replica"]


def test_a_common_noun_in_every_document_is_generic_only_in_a_collection_large_enough_to_tell():
    assert is_junk_neighbour("cluster", 24, 24) and is_junk_neighbour("cluster", 19, 24)
    assert not is_junk_neighbour("cluster", 17, 24) and not is_junk_neighbour("cluster", 2, 2)
