"""An entity's neighbours with the real spaCy and MiniLM pipeline on four self-written documents: a common noun
found in every document ("information", one entity per document) is not listed though the entity shares actions
with it in three of them, nor is a quantity ("100 GB"), a year or a pronoun; a name is listed once; the entity
sharing most actions comes first."""

from __future__ import annotations

import pytest

from kgcore.api import entity_links, entity_neighbours, is_junk_label
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store

TEXTS = {
    "kestrel.txt": "Kestrel stores the information of every user. Kestrel replicates the write-ahead log to Harrow. "
                   "Kestrel keeps 100 GB of logs on each server. We built Kestrel in 2019.",
    "harrow.txt": "Harrow is a lock service. Kestrel sends the information to Harrow. Harrow elects a leader with "
                  "Paxos. Harrow grants leases to clients.",
    "paxos.txt": "Paxos orders the information of the replicas. Kestrel uses Paxos for the commit protocol. Paxos "
                 "tolerates the failure of a minority.",
    "quill.txt": "Quill indexes the information for search. Kestrel feeds the information to Quill. Quill ranks the "
                 "documents by BM25.",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("neighbours"))
    index_files([Job(name, data=text.encode()) for name, text in TEXTS.items()], store, "systems", workers=1)
    return store.load("systems")


def _kestrel(index):
    return next(g for g in entity_links(index).groups if g.name == "Kestrel")


def test_the_raw_links_hold_the_junk_the_page_must_leave_out(index):
    links = entity_links(index)
    row = links.groups.index(_kestrel(index))
    raw = [links.groups[n].name for n in links.matrix.indices[links.matrix.indptr[row]:links.matrix.indptr[row + 1]]]
    assert raw.count("information") >= 2  # one common-noun entity per document, each in one document
    assert {"100 GB", "Harrow"} <= set(raw)


def test_neighbours_leave_out_generic_nouns_quantities_and_pronouns_and_list_each_name_once(index):
    found = entity_neighbours(index, _kestrel(index).entity_id)
    names = [n.group.name for n in found]
    assert names and names[0] == "Harrow" and found[0].shared == 2
    assert "information" not in names and "100 GB" not in names and "we" not in names and "2019" not in names
    assert not any(is_junk_label(name) for name in names)
    assert len({name.lower() for name in names}) == len(names)
    assert all(n.sentence is None or index.has_sentence(n.sentence) for n in found)
