"""Audit value types and the pure functions over them (no database here).

* :class:`AuditRecord` and :class:`Label`, and :func:`check_label`, the
  rule of which label type may point at which artifact (see
  :mod:`kgcore.audit` for the table);
* :func:`record_payload` (the stored JSON of a result) and
  :func:`record_to_result`, which rebuilds the exact ``QueryResult`` and
  ``Answer`` from it, so a record can be shown again without re-running;
* :func:`rerun` and :func:`compare_runs` to re-ask a stored question;
* :func:`bundle`, the self-contained JSON of one record;
* :func:`sql_filter`, the WHERE clause of the record filters.

>>> check_label("II", "match", "entity:father|father")
>>> check_label("correct", "node", "pie")
Traceback (most recent call last):
...
kgcore.core.errors.InputError: artifact_kind: a 'correct' label cannot point at a node (use one of record)
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from importlib import metadata

from kgcore.core.errors import InputError
from kgcore.core.graph import is_proper_name, scoped_id
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import (
    SENTENCE_ID_PATTERN,
    Answer,
    Citation,
    LocalEdge,
    LocalNode,
    Match,
    QueryResult,
    SelectedSentence,
    SentenceGraph,
    Verdict,
)
from kgcore.core.version import __version__
from kgcore.index.store.collection import CollectionManifest
from kgcore.index.store.legacy import global_sentence_id
from kgcore.index.store.manifest import manifest_hash
from kgcore.query.engine import QueryEngine, result_to_json

LABEL_TYPES = ("I", "II", "III", "correct", "gold-not-in-document")
ALLOWED_ARTIFACTS = {
    "I": ("record", "node", "edge", "sentence"),
    "II": ("record", "match", "sentence"),
    "III": ("record", "answer_sentence"),
    "correct": ("record",),
    "gold-not-in-document": ("record",),
}
SOURCES = ("human", "automatic")
ROLES = ("review", "adjudication")
_SENTENCE_ID = re.compile(f"^{SENTENCE_ID_PATTERN}$")
#: The most graph nodes an audit bundle carries (a hero entity can have hundreds of neighbours).


@dataclass(frozen=True)
class AuditRecord:
    """One stored answer; ``payload`` is :func:`record_payload` of the result."""

    id: int
    uid: str
    created_at: str
    doc_id: str
    manifest_hash: str
    question: str
    method: str
    answerer: str | None
    answer: str | None
    gold: list[str]
    settings: dict
    models: dict
    payload: dict

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Label:
    """One analyst's (or the diagnosis') verdict on one artifact of a record."""

    id: int
    uid: str
    record_id: int
    label_type: str
    artifact_kind: str
    artifact_id: str
    note: str
    author: str
    created_at: str
    source: str = "human"
    suggestion_id: int | None = None
    details: dict = field(default_factory=dict)
    #: ``review`` (a reviewer's own label) or ``adjudication`` (a final label an adjudicator recorded).
    role: str = "review"
    adjudication_id: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_label(label_type: str, artifact_kind: str, artifact_id: str, source: str = "human") -> None:
    """Refuse a label whose type, artifact or source is not one of the documented ones."""
    if label_type not in LABEL_TYPES:
        raise InputError("label_type", f"unknown value {label_type!r} (choose one of {', '.join(LABEL_TYPES)})")
    allowed = ALLOWED_ARTIFACTS[label_type]
    if artifact_kind not in allowed:
        kind = str(artifact_kind).replace("_", " ")
        raise InputError("artifact_kind",
                         f"a {label_type!r} label cannot point at a {kind} (use one of {', '.join(allowed)})")
    if source not in SOURCES:
        raise InputError("source", f"unknown value {source!r} (choose one of {', '.join(SOURCES)})")
    if artifact_kind != "record" and not artifact_id:
        raise InputError("artifact_id", f"a {artifact_kind} label needs the id of the {artifact_kind}")
    if artifact_kind == "sentence" and not _SENTENCE_ID.match(artifact_id):
        raise InputError("artifact_id", f"{artifact_id!r} is not a sentence id ([document/]text_<chunk>-<n>)")
    if artifact_kind == "edge" and artifact_id.count("|") != 2:
        raise InputError("artifact_id", f"an edge is written 'source|role|target', got {artifact_id!r}")
    if artifact_kind == "match" and artifact_id.count("|") != 1:
        raise InputError("artifact_id", f"a match is written 'query_node|node_id', got {artifact_id!r}")
    if artifact_kind == "answer_sentence" and not artifact_id.isdigit():
        raise InputError("artifact_id", f"an answer sentence is given by its index, got {artifact_id!r}")


def check_artifact_in_record(payload: dict, artifact_kind: str, artifact_id: str) -> None:
    """Matches and answer sentences must exist in the stored result they label."""
    if artifact_kind == "match":
        known = {f"{m['query_node']}|{m['node_id']}" for m in payload.get("matches", [])}
        if artifact_id not in known:
            raise InputError("artifact_id", f"match {artifact_id!r} is not one of this record's matches")
    if artifact_kind == "answer_sentence" and int(artifact_id) >= max(len(payload.get("citations", [])), 1):
        raise InputError("artifact_id", f"the answer has no sentence number {artifact_id}")


def gold_list(gold) -> list[str]:
    """Gold answers as a list of non-empty, whitespace-normalised strings.

    >>> gold_list("  a pie "), gold_list(["x", "", "y  z"]), gold_list(None)
    (['a pie'], ['x', 'y z'], [])
    """
    if gold is None:
        return []
    items = [gold] if isinstance(gold, str) else list(gold)
    return [" ".join(str(g).split()) for g in items if str(g).strip()]


# -- payload -----------------------------------------------------------------------
def record_payload(result: QueryResult, answer: Answer | None = None) -> dict:
    """The stored JSON of a result: ``result_to_json`` plus what a faithful rebuild needs."""
    payload = result_to_json(result, answer)
    graph = result.query_graph
    payload["result_notes"] = list(result.notes)
    payload["query_graph_present"] = graph is not None
    payload["query_graph_analysis"] = dict(graph.analysis) if graph is not None else {}
    payload["answer_full"] = answer.to_dict() if answer is not None else None
    payload["qa_pairs"] = list(result.qa_pairs)  # the ranked QA pairs behind a qa-kg context
    return json.loads(json.dumps(payload, default=str))  # plain JSON types only


def record_uid(payload: dict, index_hash: str) -> str:
    """Stable id of a record's content (timings excluded), so saving it twice stores it once.

    >>> p = {"doc_id": "d", "question": "q", "method": "m", "settings": {}, "sentences": [], "matches": [],
    ...      "answer": "a", "answerer": "x", "timings_ms": {"answer": 1.0}}
    >>> record_uid(p, "h") == record_uid({**p, "timings_ms": {"answer": 9.0}}, "h")
    True
    >>> record_uid(p, "h") == record_uid({**p, "answer": "b"}, "h")
    False
    """
    full = payload.get("answer_full") or {}
    content = {
        "doc_id": payload.get("doc_id"), "index": index_hash, "question": payload.get("question"),
        "method": payload.get("method"), "settings": payload.get("settings"),
        "sentences": [s["id"] for s in payload.get("sentences", [])],
        "matches": [(m["query_node"], m["node_id"], m["rank"]) for m in payload.get("matches", [])],
        "answer": payload.get("answer"), "answerer": payload.get("answerer"), "model": full.get("model"),
    }
    return manifest_hash(content)


@functools.lru_cache(maxsize=64)
def _package_version(*names: str) -> str:
    for name in names:
        try:
            return metadata.version(name)
        except (metadata.PackageNotFoundError, ValueError):
            continue
    return ""


def record_models(doc_manifest: CollectionManifest, answer: Answer | None = None) -> dict:
    """Model names and versions that produced a record (index side and answer side)."""
    models, options = doc_manifest.models, doc_manifest.options
    spacy_model = models.spacy
    return {
        "embedding": models.embedding, "embedding_dim": models.embedding_dim,
        "spacy_model": spacy_model, "spacy_model_version": _package_version(spacy_model.replace("_", "-"), spacy_model),
        "spacy": _package_version("spacy"), "sentence_transformers": _package_version("sentence-transformers"),
        "parser": options.parser, "coref": options.coref, "embedding_variant": options.embedding,
        "answerer": answer.generator if answer is not None else None,
        "answer_model": answer.model if answer is not None else None,
        "kgcore": __version__, "index_kgcore": doc_manifest.kgcore_version,
        "index_created_at": doc_manifest.updated_at, "source_sha256": doc_manifest.source_sha256,
    }


def upgrade_payload(payload: dict, doc_id: str) -> dict:
    """A record stored by kgcore 0.1 with collection ids: sentence ids behind the document id, node ids scoped.

    (A 0.1 index is a collection of one named after its document, which its records name as ``doc_id``.)

    >>> p = upgrade_payload({"sentences": [{"id": "text_0-3"}], "citations": [{"sentence_ids": ["text_0-3"]}],
    ...                      "matches": [{"node_id": "father", "label": "father", "node_type": "entity"}]}, "pr")
    >>> p["sentences"][0]["id"], p["citations"][0]["sentence_ids"], p["matches"][0]["node_id"]
    ('pr/text_0-3', ['pr/text_0-3'], 'pr/father')
    """
    if not doc_id or all("/" in s.get("id", "/") for s in payload.get("sentences", [])):
        return payload
    payload = json.loads(json.dumps(payload))
    for s in payload.get("sentences", []):
        s["id"] = global_sentence_id(doc_id, s["id"])
    citations = payload.get("citations", []) + (payload.get("answer_full") or {}).get("citations", [])
    for c in citations:
        c["sentence_ids"] = [global_sentence_id(doc_id, i) for i in c.get("sentence_ids", [])]
    for m in payload.get("matches", []):
        proper = m.get("node_type") == "entity" and is_proper_name(m.get("label", ""))
        m["node_id"] = m["node_id"] if "/" in m["node_id"] else scoped_id(doc_id, m["node_id"], proper)
    return payload


# -- rebuilding and re-running -------------------------------------------------------
def _only_fields(cls, data: dict) -> dict:
    return {f.name: data[f.name] for f in fields(cls) if f.name in data}


def _query_graph(payload: dict) -> SentenceGraph | None:
    graph = payload.get("query_graph") or {}
    if not payload.get("query_graph_present", bool(graph.get("nodes"))):
        return None
    nodes = tuple(LocalNode(**{**_only_fields(LocalNode, n), "texts": tuple(n.get("texts", ()))})
                  for n in graph.get("nodes", []))
    edges = tuple(LocalEdge(**_only_fields(LocalEdge, e)) for e in graph.get("edges", []))
    return SentenceGraph("query", nodes, edges, dict(payload.get("query_graph_analysis") or {}))


def _answer(payload: dict) -> Answer | None:
    full = payload.get("answer_full")
    if full:
        citations = [Citation(**_only_fields(Citation, c)) for c in full.get("citations", [])]
        verdict = Verdict.from_dict(full["verdict"]) if full.get("verdict") else None
        return Answer(**{**_only_fields(Answer, full), "citations": citations, "verdict": verdict})
    if payload.get("answer") is None:
        return None
    citations = [Citation(**_only_fields(Citation, c)) for c in payload.get("citations", [])]
    return Answer(payload["answer"], payload.get("answerer") or "", "", citations)


def record_to_result(record) -> tuple[QueryResult, Answer | None]:
    """The ``QueryResult`` and ``Answer`` exactly as stored (``record`` or its payload dict)."""
    payload = record.payload if isinstance(record, AuditRecord) else record
    result = QueryResult(
        question=payload["question"], method=payload["method"],
        collection=payload.get("collection") or payload["doc_id"],
        query_graph=_query_graph(payload),
        matches=[Match(**_only_fields(Match, m)) for m in payload.get("matches", [])],
        sentences=[SelectedSentence(**_only_fields(SelectedSentence, s)) for s in payload.get("sentences", [])],
        settings=dict(payload.get("settings") or {}), timings_ms=dict(payload.get("timings_ms") or {}),
        notes=list(payload.get("result_notes", payload.get("notes", []))), candidates=int(payload.get("candidates", 0)),
        qa_pairs=list(payload.get("qa_pairs") or []), summaries=list(payload.get("summaries") or []),
        respelled=dict(payload.get("respelled") or {}),
        asked=payload.get("asked", "") if payload.get("respelled") else "",
    )
    return result, _answer(payload)


def stored_options(record: AuditRecord) -> RetrievalOptions:
    """The retrieval options the record was produced with.

    >>> r = AuditRecord(1, "u", "", "d", "h", "q", "bm25", None, None, [], {"method": "bm25", "k": 3,
    ...                 "index_options": {"parser": "srl"}}, {}, {})
    >>> o = stored_options(r)
    >>> o.method, o.k, o.budget_words, o.documents
    ('bm25', 3, 0, ())
    """
    return RetrievalOptions.from_dict({"method": record.method, **(record.settings or {})})


def rerun(record: AuditRecord, engine: QueryEngine, options: RetrievalOptions | None = None,
          answerer: str | None = None) -> tuple[QueryResult, Answer]:
    """Ask the stored question again: with the stored options unless ``options`` is given.

    The answerer is the stored one unless ``answerer`` is given; the index,
    parser and models are the engine's current ones, so comparing with the
    record (:func:`compare_runs`) shows what changed since.
    """
    stored_answerer = (record.payload.get("answer_full") or {}).get("generator") or record.answerer
    return engine.ask(record.doc_id, record.question, options or stored_options(record), answerer or stored_answerer)


def compare_runs(old: QueryResult, old_answer: Answer | None, new: QueryResult, new_answer: Answer | None) -> dict:
    """Context overlap and answer equality of two runs of one question.

    >>> q = lambda ids: QueryResult("q", "m", "d", None, [], [SelectedSentence(i, 0, "", "") for i in ids], {}, {})
    >>> c = compare_runs(q(["a", "b"]), None, q(["b", "c"]), None)
    >>> c["shared"], c["only_old"], c["only_new"], c["jaccard"], c["same_answer"]
    (['b'], ['a'], ['c'], 0.333, True)
    """
    a, b = old.sentence_ids, new.sentence_ids
    union = set(a) | set(b)
    old_text = old_answer.text if old_answer else None
    new_text = new_answer.text if new_answer else None
    return {
        "shared": [i for i in a if i in set(b)], "only_old": [i for i in a if i not in set(b)],
        "only_new": [i for i in b if i not in set(a)],
        "jaccard": round(len(set(a) & set(b)) / len(union), 3) if union else 1.0,
        "old_answer": old_text, "new_answer": new_text,
        "same_answer": " ".join((old_text or "").split()) == " ".join((new_text or "").split()),
    }


# -- filters ------------------------------------------------------------------------
def as_tuple(value) -> tuple:
    if value is None:
        return ()
    return (value,) if isinstance(value, (str, int)) else tuple(value)


def sql_filter(doc_ids=None, methods=None, label_types=None, authors=None, since=None, until=None,
               prefix="r") -> tuple[str, list]:
    """SQL condition over records ``r`` (label filters through their labels)."""
    clauses, args = ["1=1"], []
    for column, values in ((f"{prefix}.doc_id", doc_ids), (f"{prefix}.method", methods)):
        values = as_tuple(values)
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    if since:
        clauses.append(f"{prefix}.created_at >= ?")
        args.append(str(since))
    if until:
        clauses.append(f"substr({prefix}.created_at, 1, {len(str(until))}) <= ?")
        args.append(str(until))
    for column, values in (("label_type", label_types), ("author", authors)):
        values = as_tuple(values)
        if values:
            clauses.append(f"EXISTS (SELECT 1 FROM labels l WHERE l.record_id = {prefix}.id "
                           f"AND l.{column} IN ({','.join('?' * len(values))}))")
            args += list(values)
    return " AND ".join(clauses), args
