"""The audit bundle: one record as a self-contained JSON document (record, labels, matched subgraph, sentences)."""

from __future__ import annotations

from kgcore.audit.model import AuditRecord, Label
from kgcore.index.store.disk import Index

MAX_BUNDLE_NODES = 400


def _bundle_nodes(graph, payload: dict) -> tuple[list[str], bool]:
    """Matched nodes (or, for baselines, nodes grounded in the context) and their 1-hop neighbours."""
    seeds = list(dict.fromkeys(m["node_id"] for m in payload.get("matches", []) if m["node_id"] in graph.nodes))
    if not seeds:
        seeds = list(dict.fromkeys(n.node_id for s in payload.get("sentences", [])
                                   for n in graph.nodes_in_sentence(s["id"])))
    kept = list(seeds)
    for node_id in seeds:
        kept += sorted(graph.neighbors(node_id))
    kept = list(dict.fromkeys(kept))
    return kept[:MAX_BUNDLE_NODES], len(kept) > MAX_BUNDLE_NODES


def labelled_sentence_ids(labels: list[Label], payload: dict) -> list[str]:
    """Sentence ids the labels point at (sentences, and the citations of labelled answer sentences)."""
    ids = []
    citations = payload.get("citations", [])
    for label in labels:
        if label.artifact_kind == "sentence":
            ids.append(label.artifact_id)
        elif label.artifact_kind == "answer_sentence" and int(label.artifact_id) < len(citations):
            ids += citations[int(label.artifact_id)].get("sentence_ids", [])
        ids += list(label.details.get("evidence_sentence_ids", []))
    return list(dict.fromkeys(ids))


def bundle(record: AuditRecord, labels: list[Label], index: Index) -> dict:
    """One record as a self-contained JSON document: the record, its labels, the matched
    subgraph (matched nodes, their 1-hop neighbours and the edges among them) and the
    full texts of the selected and labelled sentences."""
    graph = index.graph
    node_ids, truncated = _bundle_nodes(graph, record.payload)
    keep = set(node_ids)
    selected = [s["id"] for s in record.payload.get("sentences", [])]
    labelled = labelled_sentence_ids(labels, record.payload)
    sentences = {}
    for sid in dict.fromkeys(selected + labelled):
        if index.has_sentence(sid):
            s = index.sentence(sid)
            sentences[sid] = {"original": s.original, "resolved": s.resolved, "position": s.position,
                              "selected": sid in selected, "labelled": sid in labelled}
    return {
        "format": "groundedkg-audit-bundle/1",
        "record": record.to_dict(),
        "labels": [label.to_dict() for label in labels],
        "index": {"doc_id": index.collection, "manifest_hash": index.manifest.content_hash,
                  "same_as_record": index.manifest.content_hash == record.manifest_hash},
        "subgraph": {"nodes": [graph.nodes[i].to_dict() for i in node_ids],
                     "edges": [e.to_dict() for e in graph.edges if e.source in keep and e.target in keep],
                     "truncated": truncated},
        "sentences": sentences,
    }
