"""Reading a collection back: ``sentences`` (every sentence with its provenance) and ``cites``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kgcore.api import RETRIEVABLE, InputError, Sentence, Settings, Store, collection_citation_graph, collection_citing


def add_reading(sub) -> None:
    """The ``sentences`` and ``cites`` subcommands."""
    se = sub.add_parser("sentences", help="print a collection's sentences, one JSON object per line")
    se.add_argument("--collection", required=True)
    se.add_argument("--document", help="only this document's sentences")
    se.add_argument("--all", action="store_true",
                    help="every sentence kept (headings, tables, reference entries ...), not only retrievable ones")
    se.set_defaults(func=cmd_sentences)
    ci = sub.add_parser("cites", help="which documents of a collection cite a work (title, author, arXiv id, DOI), "
                                      "or with --graph which documents of it cite which")
    ci.add_argument("query", nargs="*")
    ci.add_argument("--collection", required=True)
    ci.add_argument("--graph", action="store_true",
                    help="print the collection's citation graph: one JSON line per citing/cited pair of documents "
                         "(citing, cited, the reference entries and the citing sentence ids)")
    ci.set_defaults(func=cmd_cites)


def _store(args: argparse.Namespace) -> Store:
    return Store(Path(args.store) if args.store else Settings.from_env().store_root)


def sentence_line(s: Sentence, source_file: str) -> dict:
    """The JSON object ``sentences`` prints for one sentence.

    >>> s = Sentence("d/text_0-1", 0, 1, 1, "See [3].", "See [3].", "See [3].", "d", section="2 Method",
    ...              page=4, role="body", citations=("ref-3",))
    >>> sentence_line(s, "d.pdf")["citations"], sentence_line(s, "d.pdf")["retrievable"]
    (['ref-3'], True)
    """
    return {"id": s.id, "document": s.doc_id, "source_file": source_file, "page": s.page, "section": s.section,
            "role": s.role, "retrievable": s.role in RETRIEVABLE, "citations": list(s.citations), "text": s.original}


def cmd_sentences(args: argparse.Namespace) -> int:
    index = _store(args).load(args.collection)
    if args.document:
        index.document(args.document)  # an unknown document is an InputError naming the collection's documents
    files = {e.doc_id: e.manifest.source_file for e in index.manifest.documents}
    for s in index.sentences:
        if (args.document and s.doc_id != args.document) or (not args.all and s.role not in RETRIEVABLE):
            continue
        print(json.dumps(sentence_line(s, files.get(s.doc_id, "")), ensure_ascii=False))
    return 0


def cmd_cites(args: argparse.Namespace) -> int:
    if args.graph:
        if args.query:
            raise InputError("cites", "give a query or --graph, not both")
        for edge in collection_citation_graph(_store(args).load(args.collection)):
            print(json.dumps(edge.to_dict(), ensure_ascii=False))
        return 0
    hits = collection_citing(_store(args).load(args.collection), " ".join(args.query))
    for hit in hits:
        print(json.dumps(hit.to_dict(), ensure_ascii=False))
    return 0
