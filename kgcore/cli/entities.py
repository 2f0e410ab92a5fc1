"""``entities``: a collection's resolved entities (one JSON object per line), its review queue, and a person's
decision on a pair (confirm or split, stored with the reviewer)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kgcore.api import CONFIRMED, SPLIT, EntityGroup, Settings, Store, entity_groups, record, review_queue


def add_entities(sub) -> None:
    """The ``entities`` subcommand."""
    en = sub.add_parser("entities", help="a collection's resolved entities, its merge review queue, or a decision")
    en.add_argument("--collection", required=True)
    en.add_argument("--type", help="only entities of this type")
    en.add_argument("--merged", action="store_true", help="only entities joining several nodes")
    en.add_argument("--queue", action="store_true", help="print the merge review queue instead")
    en.add_argument("--decide", nargs=3, metavar=("NODE_A", "NODE_B", "confirmed|split"),
                    help="record a decision on a pair of entity nodes (needs --reviewer)")
    en.add_argument("--reviewer", default="", help="who decides (stored with the decision)")
    en.set_defaults(func=cmd_entities)


def entity_line(g: EntityGroup) -> dict:
    """The JSON object printed for one entity.

    >>> from kgcore.index.views.entities import Alias
    >>> g = EntityGroup("rag", "RAG", ("rag", "p/rag"), (Alias("RAG", "rag", "canonical", 1.0),
    ...                 Alias("retrieval-augmented generation", "p/rag", "acronym", 1.0)), "method", 0.7, ("p",),
    ...                 ("p/text_0-1",))
    >>> entity_line(g)["aliases"][1]
    {'name': 'retrieval-augmented generation', 'node_id': 'p/rag', 'rule': 'acronym', 'score': 1.0}
    """
    return {"entity_id": g.entity_id, "name": g.name, "type": g.entity_type, "confidence": g.type_confidence,
            "aliases": [{"name": a.name, "node_id": a.node_id, "rule": a.rule, "score": a.score} for a in g.aliases],
            "documents": list(g.documents), "sentences": len(g.grounded_texts)}


def cmd_entities(args: argparse.Namespace) -> int:
    store = Store(Path(args.store) if args.store else Settings.from_env().store_root)
    index = store.load(args.collection)
    if args.decide:
        a, b, status = args.decide
        if status not in (CONFIRMED, SPLIT):
            raise SystemExit(f"entities: the decision must be {CONFIRMED!r} or {SPLIT!r}, not {status!r}")
        decision = record(index, a, b, status, args.reviewer)
        print(json.dumps(decision.to_dict(), ensure_ascii=False))
        return 0
    if args.queue:
        for item in review_queue(index):
            print(json.dumps({"a": item.a.node_id, "b": item.b.node_id, "names": [item.a.name, item.b.name],
                              **{k: v for k, v in item.merge.to_dict().items() if k not in ("a", "b")}},
                             ensure_ascii=False))
        return 0
    for g in entity_groups(index):
        if (args.type and g.entity_type != args.type) or (args.merged and g.size < 2):
            continue
        print(json.dumps(entity_line(g), ensure_ascii=False))
    return 0
