"""Chroma as a server: a real ``chroma run`` on loopback against the embedded Chroma.

One Peter Rabbit index is built against each; Chroma retrieval (``use_chroma=True``) must give identical
results, the server's collections are namespaced per store and collection, deleting a collection deletes
them, and a stopped server is an error naming it and what to do.
"""

from __future__ import annotations

import csv

import pytest
from chromakit import start_chroma

from kgcore.cli import main
from kgcore.core.errors import ServiceUnavailableError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import index_file
from kgcore.index.store import chroma
from kgcore.index.store.chroma import ChromaServer
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine
from paths import DEV_QA, PETER, PETER_ID

OPTIONS = (RetrievalOptions(), RetrievalOptions(budget_words=200), RetrievalOptions(k=5, budget_words=0))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_chroma(tmp_path_factory.mktemp("chroma") / "db")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def stores(server, tmp_path_factory):
    """(embedded store, server store), each with its own Peter Rabbit index."""
    embedded = Store(tmp_path_factory.mktemp("embedded"), chroma="embedded")
    remote = Store(tmp_path_factory.mktemp("remote"), chroma=ChromaServer(server.url))
    for store in (embedded, remote):
        index_file(PETER, store, name=PETER_ID)
    return embedded, remote


def _questions() -> list[str]:
    with DEV_QA.open(encoding="utf-8") as fh:
        return [row["question"] for row in csv.DictReader(fh)][:8]


def _retrieved(engine: QueryEngine, question: str, options: RetrievalOptions) -> tuple:
    result = engine.retrieve(PETER_ID, question, options, use_chroma=True)
    return ([(m.query_node, m.node_id, m.score, m.rank) for m in result.matches],
            [(s.id, s.rank) for s in result.sentences])


def test_server_and_embedded_chroma_retrieve_identically(stores):
    embedded, remote = (QueryEngine(s) for s in stores)
    for question in _questions():
        for options in OPTIONS:
            a, b = _retrieved(embedded, question, options), _retrieved(remote, question, options)
            assert a == b, (question, options)
            assert a[0] and a[1]


def test_the_server_holds_the_collection_under_namespaced_names(stores, server):
    embedded, remote = stores
    copy = remote.chroma_copy(PETER_ID)
    assert copy.prefix.startswith(f"kg-{chroma.store_id(remote.root)}-peter-rabbit-")
    client = chroma.http_client(ChromaServer(server.url))
    manifest = remote.manifest(PETER_ID)
    assert client.get_collection(copy.names[0]).count() == manifest.counts.sentences
    assert client.get_collection(copy.names[1]).count() == manifest.counts.nodes
    assert [p.name for p in copy.folder.iterdir()] == ["generation"]  # the vectors live on the server only
    assert chroma.generation(copy) == manifest.generation
    assert (embedded.root / PETER_ID / "chroma" / "chroma.sqlite3").is_file()  # embedded: unchanged layout
    other = Store(remote.root.parent / "another-store", chroma=ChromaServer(server.url))
    assert set(other.chroma_copy(PETER_ID).names).isdisjoint(copy.names)  # a second store on the same server


def test_community_summaries_on_the_server_retrieve_as_embedded(stores, server):
    embedded, remote = (QueryEngine(s) for s in stores)
    options = RetrievalOptions(method="community", budget_words=300)
    for question in _questions()[:4]:
        a = embedded.retrieve(PETER_ID, question, options, use_chroma=True)
        b = remote.retrieve(PETER_ID, question, options, use_chroma=True)
        assert [(s.id, s.unit) for s in a.sentences] == [(s.id, s.unit) for s in b.sentences]
        assert a.summaries == b.summaries and a.summaries
    copy = stores[1].chroma_copy(PETER_ID)
    client = chroma.http_client(ChromaServer(server.url))
    assert client.get_collection(copy.summary_name).count() == b.candidates  # every summary of the collection


def test_deleting_a_collection_deletes_its_server_collections(server, tmp_path):
    store = Store(tmp_path / "store", chroma=ChromaServer(server.url))
    (tmp_path / "tea.txt").write_text("Peter drank camomile tea. His mother made the tea.", encoding="utf-8")
    index_file(tmp_path / "tea.txt", store, name="tea")
    copy = store.chroma_copy("tea")
    names = {c.name for c in chroma.http_client(ChromaServer(server.url)).list_collections()}
    assert set(copy.names) <= names
    store.delete("tea")
    names = {c.name for c in chroma.http_client(ChromaServer(server.url)).list_collections()}
    assert not set(copy.names) & names and not store.exists("tea")


def test_the_token_is_sent_and_never_shown(server, monkeypatch):
    monkeypatch.setenv("KGCORE_CHROMA_URL", server.url)
    monkeypatch.setenv("KGCORE_CHROMA_TOKEN", "tok-3141")
    found = ChromaServer.from_env()
    assert found == ChromaServer(server.url, "tok-3141") and "tok-3141" not in repr(found)
    assert found.headers() == {"Authorization": "Bearer tok-3141"}
    client = chroma.http_client(found)  # chroma run has no auth of its own: the header is for a proxy in front
    assert client.heartbeat() > 0
    assert client._server._session.headers["Authorization"] == "Bearer tok-3141"


def test_a_stopped_server_is_reported_with_what_to_do(tmp_path, monkeypatch, capsys):
    running = start_chroma(tmp_path / "db")
    store = Store(tmp_path / "store", chroma=ChromaServer(running.url))
    (tmp_path / "tea.txt").write_text("Peter drank camomile tea. His mother made the tea.", encoding="utf-8")
    index_file(tmp_path / "tea.txt", store, name="tea")
    engine = QueryEngine(store)
    assert engine.retrieve("tea", "What did Peter drink?", use_chroma=True).sentences
    running.stop()
    with pytest.raises(ServiceUnavailableError, match=rf"Chroma server {running.url}: .*chroma run --path"):
        engine.retrieve("tea", "What did Peter drink?", use_chroma=True)
    with pytest.raises(ServiceUnavailableError, match="KGCORE_CHROMA_URL"):
        store.delete("tea")
    assert store.exists("tea") and engine.retrieve("tea", "What did Peter drink?").sentences
    monkeypatch.setenv("KGCORE_CHROMA_URL", running.url)
    assert main(["delete", "--collection", "tea", "--store", str(store.root)]) == 2
    assert capsys.readouterr().err.startswith(f"error: Chroma server {running.url}: ")
    assert store.exists("tea") and chroma.generation(store.chroma_copy("tea")) == store.manifest("tea").generation
    with pytest.raises(ServiceUnavailableError):
        chroma.ping(ChromaServer(running.url), timeout_s=1.0)


def test_a_new_empty_server_gets_the_copy_rebuilt_from_the_store(tmp_path):
    first = start_chroma(tmp_path / "first")
    try:
        store = Store(tmp_path / "store", chroma=ChromaServer(first.url))
        (tmp_path / "tea.txt").write_text("Peter drank camomile tea. His mother made the tea.", encoding="utf-8")
        index_file(tmp_path / "tea.txt", store, name="tea")
    finally:
        first.stop()
    second = start_chroma(tmp_path / "second")
    try:
        moved = Store(store.root, chroma=ChromaServer(second.url))
        before = moved.manifest("tea").generation
        assert QueryEngine(moved).retrieve("tea", "What did Peter drink?", use_chroma=True).sentences
        copy = moved.chroma_copy("tea")
        names = {c.name for c in chroma.http_client(ChromaServer(second.url)).list_collections()}
        manifest = moved.manifest("tea")
        assert set(copy.names) <= names and chroma.generation(copy) == manifest.generation == before  # no relink
        assert chroma.healthy(copy, manifest.counts.sentences, manifest.counts.nodes)
    finally:
        second.stop()
