"""The Entity page's neighbours of well-known entities on the classic and the 24-paper collections.

Lists, per collection, the top neighbours (:func:`kgcore.api.entity_neighbours`, as the Entity page shows them) of
about ten entities an analyst knows, to read whether numbers, pronouns, section numbers, quantities, adjectives
and generic nouns are left out.  An entity is found by its name (case-insensitively; the one with most links when
several share it).

    python bench/experiments/entity_neighbours.py            # classic and papers from bench/stores
    python bench/experiments/entity_neighbours.py --store papers=/tmp/papers24

Writes bench/results/entity_neighbours.json.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import STORES, machine, store_roots, write_json

from kgcore.api import Store, entity_links, entity_neighbours

ROOTS = {"classic": STORES / "classic", "papers": STORES / "papers24"}
WELL_KNOWN = {
    "classic": ("Bitcoin", "PageRank", "Dapper", "BM25", "Okapi", "Google", "Bigtable", "Chubby", "TREC", "Altavista"),
    "papers": ("RAG", "GPT-4", "BERT", "DPR", "Self-RAG", "GraphRAG", "Wikipedia", "BM25", "ChatGPT", "HotpotQA"),
}


def neighbours_of(name: str, root: Path) -> dict:
    """Each well-known entity of collection ``name`` -> its listed neighbours as "name (shared actions)"."""
    started = time.perf_counter()
    index = Store(root).load(name)
    links = entity_links(index)
    out: dict[str, list[str] | None] = {}
    for wanted in WELL_KNOWN[name]:
        rows = [i for i, g in enumerate(links.groups) if g.name.lower() == wanted.lower()]
        if not rows:
            out[wanted] = None
            continue
        row = max(rows, key=lambda i: links.matrix.indptr[i + 1] - links.matrix.indptr[i])
        out[wanted] = [f"{n.group.name} ({n.shared})" for n in entity_neighbours(index, links.groups[row].entity_id)]
    return {"documents": len(index.manifest.documents), "neighbours": out,
            "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", action="append", default=[], metavar="NAME=DIR",
                        help="read collection NAME from the store DIR (repeatable)")
    roots = store_roots(parser, parser.parse_args().store, ROOTS)
    result: dict = {"machine": machine()}
    for name, root in roots.items():
        result[name] = neighbours_of(name, root)
        for entity, found in result[name]["neighbours"].items():
            print(f"{name} {entity}: {'; '.join(found) if found is not None else '(not found)'}")
    write_json("entity_neighbours.json", result)


if __name__ == "__main__":
    main()
