"""Every stored file truncated or corrupted: a clear error naming it (never a traceback, never "reused"), the other
collection intact, and the documents committed before all back after the repair the message names.

Probes: 16 files of a collection (a document's shard, the linked graph, the collection manifest) x truncated and
corrupted, the Chroma copy, and the audit database.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faultkit import TEXTS, consistent, write_texts

from kgcore.audit import AuditDB
from kgcore.cli import main
from kgcore.core.errors import AuditError, DamagedIndexError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store import chroma, shard
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine

SHARD = [*shard.SHARD_FILES, shard.REFERENCES, "source/rabbit.txt"]
LINKED = ["graph.json", "node_ids.json", "node_vectors.npy", "sentence_vectors.npy", "sentences.jsonl",
          "sentence_offsets.npy"]
FILES = [("shard", n) for n in SHARD] + [("linked", n) for n in LINKED] + [("collection", "collection.json")]
#: Files Store.load reads (and hashes); the others it only measures, so a same-size corruption shows on reuse.  A
#: document's own sentences and their vectors are not read: the collection's (linked) table and matrix are mapped.
READ_AT_LOAD = {("collection", "collection.json"), *(("linked", n) for n in LINKED)}


def target(store: Store, where: str, name: str) -> Path:
    manifest = store.manifest("c")
    folder = {"shard": store.doc_path("c") / "documents" / manifest.document("rabbit").folder,
              "linked": store.doc_path("c") / f"linked-{manifest.generation}",
              "collection": store.doc_path("c")}[where]
    return folder / name


def damage(path: Path, how: str, offset: int | None = None) -> None:
    """``truncate``: keep the first half (an empty file gets a stray byte); ``corrupt``: overwrite 16 bytes in
    the middle (or at ``offset``) keeping the size."""
    data = path.read_bytes()
    if not data:
        path.write_bytes(b"{")
    elif how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    else:
        at = len(data) // 2 if offset is None else offset
        path.write_bytes(data[:at] + b"#" * len(data[at:at + 16]) + data[at + 16:])


def cli(capsys, *args: str | Path) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("how", ["truncate", "corrupt"])
@pytest.mark.parametrize("where, name", FILES)
def test_a_damaged_file_is_named_and_repaired_without_loss(store_copy, tmp_path, capsys, where, name, how):
    store, expected = store_copy
    path = target(store, where, name)
    damage(path, how)
    found = how == "truncate" or (where, name) in READ_AT_LOAD or path.stat().st_size == 1
    if found:
        with pytest.raises(DamagedIndexError) as info:
            store.load("c")
        assert str(path) in str(info.value) and "--force" in str(info.value)
        code, _, err = cli(capsys, "ask", "--collection", "c", "--json", "Who was Peter?", "--store", store.root)
        assert code == 2 and str(path) in err and err.startswith("error: ")
    else:  # read on demand only: loading works, checking the files names it
        store.load("c")
        assert [p.path for p in store.verify("c")] == [str(path)]
    assert consistent(store, "other") == expected["other"]  # the other collection is untouched
    files = write_texts(tmp_path / "in", ["rabbit.txt"])
    force = ["--force"] if where == "collection" else []  # a damaged manifest: rebuilt from the whole shards
    code, out, err = cli(capsys, "index", files["rabbit.txt"], "--collection", "c", *force, "--quiet", "--store",
                         store.root)
    assert code == 0, err
    status = json.loads(out.splitlines()[0])["status"]
    assert status == ("reused" if where == "linked" else "added")  # the linked graph is linked again
    assert consistent(store, "c") == expected["c"]  # nothing committed before is lost


def test_a_damaged_collection_is_listed_as_damaged_and_can_be_deleted(store_copy, capsys):
    store, expected = store_copy
    damage(store.doc_path("c") / "collection.json", "truncate")
    code, out, err = cli(capsys, "list", "--store", store.root)
    listed = {entry["collection"]: entry for entry in json.loads(out)}
    assert code == 0 and "collection.json" in listed["c"]["damaged"] and listed["other"]["documents"] == ["garden"]
    code, out, err = cli(capsys, "delete", "--collection", "c", "--store", store.root)
    assert code == 0 and json.loads(out) == {"deleted": "c"} and not store.doc_path("c").exists()
    assert [m.name for m in store.list()] == ["other"] and consistent(store, "other") == expected["other"]


@pytest.mark.parametrize("how", ["truncate", "corrupt"])
def test_a_damaged_chroma_copy_is_rebuilt_from_the_documents(store_copy, how):
    store, expected = store_copy
    damage(store.doc_path("c") / "chroma" / "chroma.sqlite3", how)
    assert consistent(store, "c") == expected["c"]  # Chroma is a copy: the collection itself is whole
    result = QueryEngine(store).retrieve("c", "Who ate radishes?", RetrievalOptions(), use_chroma=True)
    assert result.sentences
    (outcome,) = index_files([Job("kettle.txt", data=TEXTS["kettle.txt"].encode())], store, "c", workers=1)
    assert not outcome.failed and consistent(store, "c") == {**expected["c"], "kettle": 3}
    manifest = store.manifest("c")
    assert chroma.healthy(store.doc_path("c") / "chroma", manifest.counts.sentences, manifest.counts.nodes)


@pytest.mark.parametrize("how", ["truncate", "corrupt"])
def test_a_damaged_audit_database_is_named_with_what_to_do(store_copy, how):
    store, expected = store_copy
    engine = QueryEngine(store)
    db = AuditDB.for_store(store.root)
    result, answer = engine.ask("c", "Who ate radishes?", RetrievalOptions(method="bm25"), "extractive")
    db.save_record(result, answer, engine.index("c").manifest, gold=["Peter"])
    assert len(db.list_records()) == 1
    damage(db.path, how, offset=None if how == "truncate" else 96)  # corrupt: the first page's b-tree header
    with pytest.raises(AuditError) as info:
        AuditDB.for_store(store.root).list_records()
    assert str(db.path) in str(info.value) and ("damaged" in str(info.value) or "not an audit" in str(info.value))
    assert consistent(store, "c") == expected["c"] and consistent(store, "other") == expected["other"]


def test_a_failed_first_commit_leaves_no_half_written_collection(tmp_path):
    """Chroma unreachable while a new collection is committed: the job fails with the reason, and the store holds
    no "damaged" collection afterwards (nothing of it existed before), so a later upload just works."""
    from netkit import free_port

    from kgcore.index.pipeline import Job, index_files
    from kgcore.index.store.chroma import ChromaServer
    from kgcore.index.store.disk import Store

    store = Store(tmp_path / "store", chroma=ChromaServer(f"http://127.0.0.1:{free_port()}"))  # nobody listens
    with pytest.raises(Exception, match="Chroma server"):
        index_files([Job("bridge.txt", data=b"Peter went to the garden. He ate lettuces.")], store, "bridge-docs",
                    workers=1)
    assert store.list() == [] and not (store.root / "bridge-docs").exists()
    (outcome,) = index_files([Job("bridge.txt", data=b"Peter went to the garden. He ate lettuces.")],
                             Store(tmp_path / "store", chroma="embedded"), "bridge-docs", workers=1)
    assert not outcome.failed and [m.name for m in Store(tmp_path / "store").list()] == ["bridge-docs"]
