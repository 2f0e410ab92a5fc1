"""Collections with the real spaCy, MiniLM and Chroma: many documents in one grounded graph, added and removed
incrementally, asked across or within documents, with every sentence traceable to its source."""

import json
import multiprocessing
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import kgcore.index.pipeline as pipeline_mod
import kgcore.index.plan as plan_mod
from kgcore.cli import main
from kgcore.core.errors import InputError
from kgcore.core.settings import IndexOptions, RetrievalOptions, Settings
from kgcore.index.pipeline import Job, index_files, remove_documents
from kgcore.index.store import chroma
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine

# Three short documents written for these tests: Peter (a name) is in two of them; "father" (a common noun)
# is in two, and is somebody else in each.
RABBIT = ("Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by Mrs. McGregor. "
          "Peter squeezed under the gate of the garden and ate some radishes.")
PAN = ("Peter Pan flew over the roofs of London with Wendy and her brothers. Wendy's father was a clerk in the city. "
       "Captain Hook hated Peter because he had lost his hand to a crocodile.")
SHIP = ("The ship left the harbour at dawn with twelve sailors on board. A storm broke the mast on the third day. "
        "The captain ordered the crew to throw the cargo into the sea.")


def _job(name: str, text: str) -> Job:
    return Job(name, data=text.encode("utf-8"))


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("shelf"))
    (outcome,) = index_files([_job("rabbit.txt", RABBIT), _job("pan.txt", PAN), _job("ship.txt", SHIP)], store,
                             "shelf", workers=1)
    return store, outcome


def _grounded_docs(node):
    return {s.split("/")[0] for s in node.grounded_texts}


def test_every_document_is_in_one_grounded_graph(shelf):
    store, outcome = shelf
    assert [m.doc_id for m in outcome.added] == ["rabbit", "pan", "ship"] and not outcome.failed
    index = store.load("shelf")
    assert index.manifest.doc_ids == ("rabbit", "pan", "ship") and outcome.collection == index.manifest
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    assert [s.position for s in index.sentences] == list(range(len(index.sentences)))
    assert {s.id.split("/")[0] for s in index.sentences} == {"rabbit", "pan", "ship"}
    assert all(s.id.startswith(f"{s.doc_id}/text_") for s in index.sentences)
    # a name is one node across documents; a common noun is somebody else in each document
    assert _grounded_docs(index.graph.nodes["peter"]) == {"rabbit", "pan"}
    assert {"rabbit/father", "pan/father"} <= set(index.graph.nodes) and "father" not in index.graph.nodes
    assert index.manifest.counts.shared_entities >= 1
    assert all(node_id.startswith(("rabbit/", "pan/", "ship/")) for node_id, n in index.graph.nodes.items()
               if n.node_type == "action")


def test_provenance_of_every_sentence(shelf):
    store, _ = shelf
    index = store.load("shelf")
    for doc_id in index.manifest.doc_ids:
        paragraphs = index.paragraphs(doc_id)
        text = "\n\n".join(p.text for p in paragraphs)
        for s in (s for s in index.sentences if s.doc_id == doc_id):
            assert text[s.start:s.end] == s.original and 0 <= s.paragraph < len(paragraphs)
        assert index.source_path(doc_id).read_bytes() == {"rabbit": RABBIT, "pan": PAN, "ship": SHIP}[doc_id].encode()


def test_retrieval_is_global_or_within_chosen_documents(shelf):
    store, _ = shelf
    engine = QueryEngine(store)
    question = "Who hated Peter?"
    everywhere = engine.retrieve("shelf", question, RetrievalOptions(budget_words=60))
    assert any("Captain Hook hated Peter" in s.text for s in everywhere.sentences)
    for method in ("groundedkg", "dense", "bm25", "hybrid", "full"):
        only = engine.retrieve("shelf", question, RetrievalOptions(method=method, documents=("rabbit",)))
        assert only.sentences and {s.document for s in only.sentences} == {"rabbit"}, method
        assert all(s.source_file == "rabbit.txt" and s.id.startswith("rabbit/") for s in only.sentences)
    with pytest.raises(InputError, match="not a document of collection 'shelf'"):
        engine.retrieve("shelf", question, RetrievalOptions(documents=("nope",)))


def test_full_refuses_a_collection_over_the_limit(shelf):
    store, _ = shelf
    small = QueryEngine(store, Settings.from_env().with_(max_full_words=20))
    with pytest.raises(InputError, match="KGCORE_MAX_FULL_WORDS"):
        small.retrieve("shelf", "What broke the mast?", RetrievalOptions(method="full"))
    assert small.retrieve("shelf", "What broke the mast?", RetrievalOptions(method="full", budget_words=20)).sentences


def test_reading_order_keeps_documents_together_and_ranks_are_kept(shelf):
    store, _ = shelf
    result = QueryEngine(store).retrieve("shelf", "Who was the father?", RetrievalOptions(budget_words=0))
    docs = [s.document for s in result.sentences]
    assert docs == sorted(docs, key=["rabbit", "pan", "ship"].index)  # reading order: one document after another
    assert sorted(s.rank for s in result.sentences) == list(range(1, len(result.sentences) + 1))


def test_chroma_holds_the_collection_and_agrees_with_exact_search(shelf):
    store, _ = shelf
    index = store.load("shelf")
    engine = QueryEngine(store)
    a = engine.retrieve("shelf", "Who hated Peter?", RetrievalOptions())
    b = engine.retrieve("shelf", "Who hated Peter?", RetrievalOptions(), use_chroma=True)  # fills the copy
    client = chroma.open_chroma(index.path / "chroma")
    try:
        assert client.get_collection("sentences").count() == len(index.sentences)
        assert client.get_collection("nodes").count() == len(index.node_ids)
    finally:
        client.close()
    assert {m.query_node: m.node_id for m in a.matches if m.rank == 0} == \
        {m.query_node: m.node_id for m in b.matches if m.rank == 0}


def test_adding_parses_only_the_new_document_and_removing_trims_grounding(tmp_path, monkeypatch):
    store = Store(tmp_path, chroma_sync="commit")  # the copy follows every add and remove incrementally
    index_files([_job("rabbit.txt", RABBIT), _job("pan.txt", PAN)], store, "c", workers=1)
    folders = {d.doc_id: d.folder for d in store.manifest("c").documents}
    built = []
    real = pipeline_mod.run
    monkeypatch.setattr(pipeline_mod, "run", lambda jobs, *a, **k: built.extend(j.filename for j in jobs) or
                        real(jobs, *a, **k))
    (outcome,) = index_files([_job("ship.txt", SHIP), _job("pan.txt", PAN)], store, "c", workers=1)
    assert built == ["ship.txt"] and [m.doc_id for m in outcome.reused] == ["pan"]  # same bytes: reused
    after = store.manifest("c")
    assert {d.doc_id: d.folder for d in after.documents if d.doc_id != "ship"} == folders  # shards untouched
    manifest = remove_documents(store, "c", ["pan"])
    assert manifest.doc_ids == ("rabbit", "ship") and manifest.generation == after.generation + 1
    index = store.load("c")
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    assert not any(s.doc_id == "pan" for s in index.sentences) and "pan/father" not in index.graph.nodes
    assert _grounded_docs(index.graph.nodes["peter"]) == {"rabbit"}  # the shared name kept its other grounding
    client = chroma.open_chroma(index.path / "chroma")
    try:
        assert client.get_collection("sentences").count() == len(index.sentences)
        assert set(client.get_collection("nodes").get()["ids"]) == set(index.node_ids)
    finally:
        client.close()


def test_a_file_read_by_an_older_reading_is_read_again_not_reused(tmp_path, monkeypatch):
    import kgcore.index.build as build_mod

    store = Store(tmp_path)
    index_files([_job("rabbit.txt", RABBIT), _job("pan.txt", PAN)], store, "c", workers=1)
    built = []
    real = pipeline_mod.run
    monkeypatch.setattr(pipeline_mod, "run", lambda jobs, *a, **k: built.extend(j.filename for j in jobs) or
                        real(jobs, *a, **k))
    newer = plan_mod.READER_VERSION + 1  # this kgcore reads files differently from the one that indexed them
    monkeypatch.setattr(plan_mod, "READER_VERSION", newer)
    monkeypatch.setattr(build_mod, "READER_VERSION", newer)
    (outcome,) = index_files([_job("pan.txt", PAN)], store, "c", workers=1)
    assert built == ["pan.txt"] and not outcome.reused and [m.doc_id for m in outcome.added] == ["pan"]
    pan = next(d.manifest for d in store.manifest("c").documents if d.doc_id == "pan")
    assert pan.ingest is not None and pan.ingest.reader == newer
    index = store.load("c")
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    assert sum(1 for s in index.sentences if s.doc_id == "pan") == pan.counts.sentences  # replaced, not doubled
    (again,) = index_files([_job("pan.txt", PAN)], store, "c", workers=1)
    assert [m.doc_id for m in again.reused] == ["pan"] and built == ["pan.txt"]  # now read as this kgcore reads
    monkeypatch.setattr(plan_mod, "READER_VERSION", newer + 1)
    monkeypatch.setattr(build_mod, "READER_VERSION", newer + 1)
    (renamed,) = index_files([Job("peter-pan.txt", data=PAN.encode())], store, "c", workers=1)
    assert [m.doc_id for m in renamed.added] == ["pan"]  # read again under the id it has, not added twice
    assert store.manifest("c").doc_ids == ("rabbit", "pan")


def test_names_that_map_to_one_id_never_replace_each_other(tmp_path):
    store = Store(tmp_path)
    (outcome,) = index_files([_job("Story.txt", RABBIT), _job("story.TXT", SHIP)], store, "c", workers=1)
    assert [m.source_file for m in outcome.added] == ["Story.txt"]
    assert outcome.failed[0][0] == "story.TXT" and "same document id 'story' as Story.txt" in outcome.failed[0][1]
    (again,) = index_files([_job("STORY.txt", PAN)], store, "c", workers=1)
    assert not again.added and "already has a document 'story'" in again.failed[0][1]
    assert "rabbit" in store.load("c").sentences[0].original  # the first one is intact
    (forced,) = index_files([_job("STORY.txt", PAN)], store, "c", workers=1, force=True)
    assert [m.source_file for m in forced.added] == ["STORY.txt"] and store.manifest("c").doc_ids == ("story",)


def test_bad_requests_are_refused_with_the_reason(tmp_path):
    store = Store(tmp_path)
    index_files([_job("rabbit.txt", RABBIT)], store, "c", workers=1)
    with pytest.raises(InputError, match="delete the collection"):
        remove_documents(store, "c", ["rabbit"])
    with pytest.raises(InputError, match="not a document of collection 'c'"):
        remove_documents(store, "c", ["nope"])
    (outcome,) = index_files([_job("pan.txt", PAN)], store, "c", IndexOptions(coref="none"), workers=1)
    assert "is indexed with" in outcome.failed[0][1] and store.manifest("c").doc_ids == ("rabbit",)


def test_documents_in_parallel_one_failing(tmp_path):
    store = Store(tmp_path)
    jobs = [_job("rabbit.txt", RABBIT), _job("broken.pdf", b"%PDF-1.4 not really".decode()), _job("pan.txt", PAN)]
    (outcome,) = index_files(jobs, store, "c", workers=2)
    assert sorted(m.doc_id for m in outcome.added) == ["pan", "rabbit"]
    assert outcome.failed[0][0] == "broken.pdf" and "PDF" in outcome.failed[0][1]
    assert store.manifest("c").doc_ids == ("rabbit", "pan")
    assert not list((tmp_path / ".staging").glob("*/*"))


def _index_in_process(root: str, text: str) -> None:
    index_files([Job("twice.txt", data=text.encode())], Store(root), "c", workers=1)


def test_two_writers_on_one_collection_lose_nothing(tmp_path):
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_index_in_process, args=(str(tmp_path), text)) for text in (RABBIT, RABBIT)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    assert [p.exitcode for p in procs] == [0, 0]
    store = Store(tmp_path)
    index = store.load("c")
    assert store.manifest("c").doc_ids == ("twice",)
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    assert len(list((tmp_path / "c" / "documents").iterdir())) == 1


def test_cli_collections(tmp_path, capsys):
    files = []
    for name, text in (("rabbit.txt", RABBIT), ("pan.txt", PAN)):
        files.append(tmp_path / name)
        files[-1].write_text(text, encoding="utf-8")
    store = ["--store", str(tmp_path / "s")]
    assert main(["index", *map(str, files), "--collection", "shelf", "--workers", "1", "--quiet", *store]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("document") for line in lines[:2]] == ["rabbit", "pan"] and lines[-1]["documents"] == 2
    assert set(lines[-1]) >= {"collection", "documents", "sentences", "nodes", "edges", "seconds"}
    assert main(["ask", "--collection", "shelf", "--documents", "pan", "--json", "Who hated Peter?", *store]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert {s["document"] for s in answer["sentences"]} == {"pan"}
    assert answer["sentences"][0]["source_file"] == "pan.txt"
    assert all(c["documents"] in ([], ["pan"]) for c in answer["citations"])
    assert main(["remove", "--collection", "shelf", "pan", *store]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == ["rabbit"]
    assert main(["remove", "--collection", "shelf", "rabbit", *store]) == 2
    assert "delete the collection" in capsys.readouterr().err
    assert main(["ask", "--doc", "shelf", "--json", "Where did Peter live?", *store]) == 0  # --doc still works
    assert json.loads(capsys.readouterr().out)["sentences"]
    assert main(["delete", "--collection", "shelf", *store]) == 0
    assert json.loads(capsys.readouterr().out) == {"deleted": "shelf"}
    assert main(["list", *store]) == 0 and json.loads(capsys.readouterr().out) == []


def test_sessions_asking_at_once_load_the_collection_once(shelf, monkeypatch):
    """The app's sessions are threads sharing one engine: the second waits for the first's load, and both answer."""
    store, _ = shelf
    engine, loads, real_load = QueryEngine(store), [], store.load

    def slow_load(name):
        loads.append(name)
        time.sleep(0.3)  # long enough for the other session to ask meanwhile
        return real_load(name)

    monkeypatch.setattr(store, "load", slow_load)
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda q: engine.retrieve("shelf", q, RetrievalOptions(budget_words=60)),
                                ["Who hated Peter?", "What broke the mast?", "Who put the father in a pie?"]))
    assert loads == ["shelf"]
    assert any("Captain Hook hated Peter" in s.text for s in results[0].sentences)
    assert any("broke the mast" in s.text for s in results[1].sentences)


def test_a_batch_refuses_what_it_can_before_parsing_and_commits_what_succeeds(tmp_path):
    """A clash of ids and an empty file are refused before the first document is parsed; a document that fails
    while it is built (over the sentence limit) is reported; the others are committed."""
    events: list[tuple[str, str]] = []
    settings = Settings.from_env()
    settings = type(settings)(**{**settings.__dict__, "max_sentences": 3})
    long = " ".join(f"Sentence {i} is about the sea." for i in range(5))
    jobs = [_job("Queen_of_Spades.txt", RABBIT), _job("Queen_of_spades.txt", PAN), _job("empty.txt", ""),
            _job("long.txt", long), _job("ship.txt", SHIP)]
    (outcome,) = index_files(jobs, Store(tmp_path), "c", settings=settings, workers=1,
                             progress=lambda doc, stage, done, total: events.append(("progress", doc)),
                             refused=lambda filename, reason: events.append(("refused", filename)))
    assert events[:2] == [("refused", "Queen_of_spades.txt"), ("refused", "empty.txt")]
    assert ("refused", "long.txt") not in events and events[2][0] == "progress"
    reasons = dict(outcome.failed)
    assert set(reasons) == {"Queen_of_spades.txt", "empty.txt", "long.txt"}
    assert "5 sentences exceed the limit of 3 sentences per document" in reasons["long.txt"]
    assert [m.source_file for m in outcome.added] == ["Queen_of_Spades.txt", "ship.txt"]
    assert Store(tmp_path).load("c").manifest.doc_ids == ("queen_of_spades", "ship")


def test_re_adding_unchanged_files_builds_nothing_and_checks_the_linked_graph_once(shelf, monkeypatch):
    store, _ = shelf
    built, checks = [], []
    real_run, real_linked = pipeline_mod.run, plan_mod.linked_problems
    monkeypatch.setattr(pipeline_mod, "run", lambda jobs, *a, **k: built.extend(jobs) or real_run(jobs, *a, **k))
    monkeypatch.setattr(plan_mod, "linked_problems", lambda *a, **k: checks.append(1) or real_linked(*a, **k))
    (again,) = index_files([_job("rabbit.txt", RABBIT), _job("pan.txt", PAN), _job("ship.txt", SHIP)], store,
                           "shelf", workers=1)
    assert sorted(m.doc_id for m in again.reused) == ["pan", "rabbit", "ship"] and not again.added
    assert built == [] and checks == [1]  # one check of the linked graph for the batch, not one per file
