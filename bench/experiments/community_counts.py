"""How many top-level communities the app lists on the classic and the 24-paper collections.

The Communities tab lists a top-level community only when it is worth opening
(:func:`kgcore.api.listed_communities`: grounded in a few retrievable sentences and not mostly junk -- numbers,
section labels, author lists, generic nouns).  This counts, per collection, the listed top-level communities
against all top-level ones and all communities of the hierarchy, as the app computes them
(``communities(index, embedder, settings)`` with the settings from the environment), and keeps the titles of the
listed ones and of a sample of the hidden ones to read.

    python bench/experiments/community_counts.py   # classic (bench/stores/classic), papers (bench/stores/papers24)
    python bench/experiments/community_counts.py --store papers=/tmp/papers24   # papers from a copy of a store

``classic`` is four classic papers (Bitcoin, Dapper, PageRank, Okapi at TREC-3) indexed as one collection:
``python -m kgcore index --store bench/stores/classic --collection classic`` the four PDFs of
``../shared/data/papers_classic/``.  Building communities writes them into the collection's folder, so point
``--store`` at a copy of a store another checkout serves.

Each collection's top-level communities labelled by hand in ``bench/data/community_labels.csv`` (good: a
specific topic of the collection; junk: numbers, labels, author lists, examples, generic words; labelled before
the filter was changed) score the listing: listed-and-good, listed-but-junk, hidden-but-good, precision
(good among the listed labelled ones) and recall (listed among the good ones).  The 24-paper collection's labels
are a design sample (:data:`SAMPLE_SEED`); the classic collection's, all of them, are held out.

Writes bench/results/community_counts.json (``--out`` another name under bench/results).
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import STORES, machine, store_roots, write_json

from kgcore.api import Settings, Store, communities, embedder_for, listed_communities

ROOTS = {"classic": STORES / "classic", "papers": STORES / "papers24"}
#: Hidden top-level communities' titles kept in the results, to read what was hidden.
HIDDEN_SAMPLE = 20
LABELS = Path(__file__).resolve().parents[1] / "data" / "community_labels.csv"
#: The 24-paper design sample: ``random.Random(SAMPLE_SEED).sample(sorted(top-level ids), SAMPLE_SIZE)``.
SAMPLE_SEED, SAMPLE_SIZE = 20261129, 100


def design_sample(ids: list[str]) -> list[str]:
    """The labelled design sample of a collection's top-level community ids (all of them when few)."""
    ids = sorted(ids)
    return sorted(random.Random(SAMPLE_SEED).sample(ids, SAMPLE_SIZE)) if len(ids) > SAMPLE_SIZE else ids


def labels(name: str) -> dict[str, str]:
    """Community id -> "good" or "junk" for collection ``name`` (empty when not labelled)."""
    with LABELS.open(newline="", encoding="utf-8") as fh:
        return {r["community"]: r["label"] for r in csv.DictReader(fh) if r["collection"] == name}


def scored(labelled: dict[str, str], shown: set[str]) -> dict:
    """Listed-good, listed-junk, hidden-good, precision and recall of a listing against hand labels."""
    good = {c for c, v in labelled.items() if v == "good"}
    listed = shown & set(labelled)
    tp = len(listed & good)
    return {"labelled": len(labelled), "good": len(good), "listed": len(listed), "listed_good": tp,
            "listed_junk": len(listed - good), "hidden_good": len(good - listed),
            "precision": round(tp / len(listed), 3) if listed else None,
            "recall": round(tp / len(good), 3) if good else None}


def count(name: str, root: Path, embedder, settings: Settings) -> dict:
    """Listed top-level, all top-level and all communities of collection ``name`` in the store ``root``."""
    started = time.perf_counter()
    index = Store(root).load(name)
    ci = communities(index, embedder, settings)
    top = list(ci.hierarchy.at_level(0))
    listed = listed_communities(ci)
    shown = {c.id for c in listed}
    hidden = [c for c in top if c.id not in shown]
    labelled = labels(name)
    if name == "papers" and labelled and sorted(labelled) != design_sample([c.id for c in top]):
        raise SystemExit(f"{LABELS}: the papers labels are not the design sample of this store's communities")
    return {"documents": len(index.manifest.documents), "sentences": len(index.sentences),
            "listed_top_level": len(listed), "top_level": len(top), "all": len(ci.hierarchy.communities),
            "labels": scored(labelled, shown) if labelled else None,
            "levels": ci.hierarchy.levels, "algorithm": ci.hierarchy.algorithm,
            "listed_titles": [ci.summary(c.id).title for c in listed],
            "hidden_titles_sample": [ci.summary(c.id).title for c in
                                     sorted(hidden, key=lambda c: -ci.summary(c.id).n_sentences)[:HIDDEN_SAMPLE]],
            "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", action="append", default=[], metavar="NAME=DIR",
                        help="read collection NAME from the store DIR (repeatable)")
    parser.add_argument("--only", metavar="NAME", help="count collection NAME alone (the design one while tuning)")
    parser.add_argument("--out", default="community_counts.json", help="result file name under bench/results")
    args = parser.parse_args()
    roots = store_roots(parser, args.store, ROOTS)
    if args.only:
        roots = {args.only: roots[args.only]}
    settings = Settings.from_env()
    embedder = embedder_for(settings)
    result: dict = {"machine": machine()}
    for name, root in roots.items():
        result[name] = count(name, root, embedder, settings)
        c = result[name]
        print(f"{name}: {c['listed_top_level']} listed / {c['top_level']} top-level / {c['all']} in all "
              f"({c['levels']} levels, {c['documents']} documents, {c['seconds']} s)")
        if c["labels"]:
            print(f"  labelled {c['labels']}")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
