"""Entity resolution against exact-name merging, entity counts and resolution time, type accuracy.

    python bench/experiments/entities_bench.py   # pairs + types on papers and books, counts on papers and ObliQA
    python bench/experiments/entities_bench.py --parts pairs   # only the labelled pairs (dev tuning, test report)

Parts:

* ``pairs``: ``bench/data/entity_pairs.csv`` (labelled from the texts: same entity or not; split dev/test by a hash of
  the pair).  The resolver's two thresholds (``merge_at`` for weak rules, ``apart_below`` for the same-name
  guard) are chosen by F1 on **dev only**; precision, recall and F1 are reported on test and on all pairs, for
  the resolver at the shipped thresholds, at the dev-tuned ones, and for the exact upper-cased name baseline
  (GraphRAG / LightRAG / nano-graphrag merge entities whose upper-cased names are equal).  A pair counts as
  merged when both nodes end in one entity (merges are transitive).
* ``counts``: entity nodes before and entities after resolution on the 24 papers and on ObliQA, and the seconds
  the resolution stage takes (typing included) on a warm process, next to the seconds indexing took (the
  documents' own timings plus linking, as their manifests record them).
* ``types``: ``bench/data/entity_types.csv`` (entities typed by hand from their sentences before the typer ran; a
  dev half used to design the typer, a test half not looked at): accuracy of the entity type of the group each node
  ends in, per split, per collection and per source (pattern/NER/zero-shot), against the majority type.
  ObliQA uses the declared regulatory type set (:data:`kgcore.index.views.entities.types.REGULATORY`).  Split ``names``
  : the three books' most grounded names.
* ``book-types``: ``types`` on the books' rows only (key ``book_types``), which needs no papers collection; the
  typing by a name's actions (:mod:`kgcore.index.views.entities.animate`) applies to books only.
* ``research-types``: ``types`` on the papers' rows only (key ``research_types``): the 24 arXiv papers,
  ``classic``, four classic systems and IR papers (Bitcoin, Dapper, PageRank, Okapi at TREC-3 from
  ``../shared/data/papers_classic/``, indexed into ``bench/stores/classic`` as one collection), whose rows are all
  test rows, typed before the typer first ran on them
  (``python -m kgcore index --store bench/stores/classic --collection classic`` the four PDFs), and
  ``classicdev``, the other four of those PDFs (Graph-of-word and TW-IDF, Macaroons, Out of the Tar Pit, Tidy Data;
  ``bench/stores/classicdev``), whose rows are all dev rows: the design set for systems papers.  It also lists the
  type of every entity of the classic collections named Chubby, Bigtable, GFS, Paxos or MapReduce (never a person).
  ``--splits dev`` types only the dev rows and prints them, writing nothing: the run to design by.

Each ``types`` part also reports accuracy, the majority type and the confusions per collection and split.
``--store NAME=DIR`` reads collection NAME from the store DIR instead (e.g. a copy of another checkout's store).

    python bench/experiments/entities_bench.py --parts research-types --store papers=/tmp/papers24

Writes bench/results/entities.json.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import ROOT, machine, store_roots, write_json

from kgcore.index.store.disk import Store
from kgcore.index.views.entities import animate, types
from kgcore.index.views.entities.names import normalise
from kgcore.index.views.entities.outcome import APART_BELOW, MERGE_AT, Thresholds
from kgcore.index.views.entities.resolve import build_groups, merged_components, resolve, with_thresholds

COLLECTIONS = ROOT / "bench" / "stores" / "collections"
BOOKS = ROOT / "bench" / "stores" / "books"
ROOTS = {"papers": COLLECTIONS, "obliqa": COLLECTIONS, "classic": ROOT / "bench" / "stores" / "classic",
         "classicdev": ROOT / "bench" / "stores" / "classicdev"}
TYPE_SETS = {"obliqa": types.REGULATORY}
PAIRS = ROOT / "bench" / "data" / "entity_pairs.csv"
TYPES = ROOT / "bench" / "data" / "entity_types.csv"
BOOK_COLLECTIONS = frozenset({"peter-rabbit", "robinson-crusoe", "phantom-of-the-opera"})
RESEARCH_COLLECTIONS = frozenset({"papers", "classic", "classicdev"})
#: Systems and an algorithm named in the classic papers that must never be typed person.
NEVER_PERSONS = ("chubby", "bigtable", "gfs", "paxos", "mapreduce")
GRID_MERGE = [round(0.5 + 0.025 * i, 3) for i in range(19)]
GRID_APART = [round(0.0 + 0.05 * i, 2) for i in range(11)]


def load(name: str):
    return Store(ROOTS.get(name, BOOKS)).load(name)


def prf(gold: list[int], pred: list[int]) -> dict:
    tp = sum(g and p for g, p in zip(gold, pred))
    fp = sum(p and not g for g, p in zip(gold, pred))
    fn = sum(g and not p for g, p in zip(gold, pred))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"pairs": len(gold), "positives": sum(gold), "tp": tp, "fp": fp, "fn": fn,
            "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}


def read_pairs() -> list[dict]:
    with PAIRS.open(encoding="utf-8") as fh:
        return [{**r, "label": int(r["label"])} for r in csv.DictReader(fh)]


def same_entity(index, resolution, thresholds: Thresholds) -> dict[str, str]:
    """Node -> a representative of its entity (the resolver's merges only, as :func:`build_groups` joins them)."""
    return merged_components(with_thresholds(resolution, thresholds))


def predictions(pairs, indexes, resolutions, thresholds: Thresholds) -> list[int]:
    of = {c: same_entity(indexes[c], resolutions[c], thresholds) for c in indexes}
    return [int(of[p["collection"]].get(p["node_a"], p["node_a"]) == of[p["collection"]].get(p["node_b"], p["node_b"]))
            for p in pairs]


def baseline(pairs) -> list[int]:
    """GraphRAG-style: merged when the upper-cased names are equal (stripped)."""
    return [int(p["name_a"].strip().upper() == p["name_b"].strip().upper()) for p in pairs]


def pairs_part(indexes, resolutions) -> dict:
    pairs = read_pairs()
    dev = [p for p in pairs if p["split"] == "dev"]
    test = [p for p in pairs if p["split"] == "test"]
    gold = {name: [p["label"] for p in subset] for name, subset in (("dev", dev), ("test", test), ("all", pairs))}
    sweep = []
    for merge_at, apart in itertools.product(GRID_MERGE, GRID_APART):
        th = Thresholds(merge_at, apart)
        sweep.append((prf(gold["dev"], predictions(dev, indexes, resolutions, th))["f1"], merge_at, apart))
    best_f1 = max(f for f, _, _ in sweep)
    # ties: the most conservative tied setting (highest merge threshold, then most kept apart): a false merge
    # costs more than a missed one, since it mixes two entities' grounding
    tied = sorted((m, a) for f, m, a in sweep if f == best_f1)
    tuned = Thresholds(*max(tied))
    shipped = Thresholds(MERGE_AT, APART_BELOW)
    out: dict = {"pairs": len(pairs), "dev_pairs": len(dev), "test_pairs": len(test),
                 "tuned_on_dev": {"merge_at": tuned.merge_at, "apart_below": tuned.apart_below, "dev_f1": best_f1,
                                  "tied_settings": [list(t) for t in tied]},
                 "shipped": {"merge_at": shipped.merge_at, "apart_below": shipped.apart_below}}
    for name, subset in (("dev", dev), ("test", test), ("all", pairs)):
        out[name] = {"resolver_shipped": prf(gold[name], predictions(subset, indexes, resolutions, shipped)),
                     "resolver_tuned": prf(gold[name], predictions(subset, indexes, resolutions, tuned)),
                     "exact_uppercase_baseline": prf(gold[name], baseline(subset))}
    out["test_by_collection"] = {
        c: {"resolver_shipped": prf([p["label"] for p in ps], predictions(ps, indexes, resolutions, shipped)),
            "exact_uppercase_baseline": prf([p["label"] for p in ps], baseline(ps))}
        for c, ps in _by(test, "collection").items()}
    preds = predictions(pairs, indexes, resolutions, shipped)
    out["errors_test"] = [{k: p[k] for k in ("collection", "name_a", "name_b", "label", "note")} | {"predicted": q}
                          for p, q in zip(pairs, preds) if p["split"] == "test" and p["label"] != q]
    return out


def _by(rows, key) -> dict[str, list]:
    out: dict[str, list] = defaultdict(list)
    for r in rows:
        out[r[key]].append(r)
    return dict(out)


def counts_part(indexes, resolutions) -> dict:
    out = {}
    for name in ("papers", "obliqa"):
        index = indexes.get(name) or load(name)
        if name not in resolutions:
            resolutions[name] = resolve(index, type_set=TYPE_SETS.get(name))
        found = resolutions[name]
        groups = build_groups(index, found, [])
        nodes = sum(1 for n in index.graph.nodes.values() if n.node_type == "entity")
        rules = Counter(m.rule for m in found.candidates if m.merged)
        multi = [g for g in groups if g.size > 1]
        out[name] = {"documents": len(index.manifest.documents), "sentences": len(index.sentences),
                     "entity_nodes": nodes, "entities_after": len(groups), "merged_away": nodes - len(groups),
                     "multi_member_entities": len(multi), "largest_entity": max((g.size for g in groups), default=0),
                     "candidates_scored": len(found.candidates), "merges_by_rule": dict(rules),
                     "flagged_same_name_apart": sum(m.flag == "same-name-different-context" for m in found.candidates),
                     "resolution_seconds": found.seconds, "type_set": found.type_set,
                     "indexing_seconds": round(sum(e.manifest.seconds for e in index.manifest.documents)
                                               + index.manifest.link_seconds, 1),
                     "shared_names_flagged": len(found.shared_names),
                     "examples": [[a.name for a in g.aliases][:6] for g in sorted(multi, key=lambda g: -g.size)[:8]]}
    return out


def types_part(indexes, resolutions, collections: frozenset[str] | None = None,
               splits: frozenset[str] | None = None) -> dict:
    with TYPES.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if (collections is None or r["collection"] in collections)
                and (splits is None or r["split"] in splits)]
    per: dict[str, list[int]] = defaultdict(list)
    per_split: dict[str, list[int]] = defaultdict(list)
    by_source: dict[str, list[int]] = defaultdict(list)
    confusion: Counter = Counter()
    outcomes: dict[int, tuple[str, str]] = {}
    for name, rs in _by(rows, "collection").items():
        index = indexes.get(name) or load(name)
        indexes[name] = index
        if name not in resolutions:
            resolutions[name] = resolve(index, type_set=TYPE_SETS.get(name))
        groups = {n: g for g in build_groups(index, resolutions[name], []) for n in g.node_ids}
        node_types = resolutions[name].node_types
        for r in rs:
            predicted = groups[r["node_id"]].entity_type if r["node_id"] in groups else "unknown"
            ok = int(predicted == r["type"])
            per[name].append(ok)
            per_split[r["split"]].append(ok)
            confidence = node_types.get(r["node_id"], ("unknown", 0.0))[1]
            source = ("pattern" if confidence == types.PATTERN_CONFIDENCE else
                      "ner" if confidence == types.NER_CONFIDENCE else
                      "actions" if confidence == animate.CONFIDENCE else "zero-shot")
            by_source[source].append(ok)
            outcomes[id(r)] = (predicted, f"{r['name']} ({source})")
            if not ok:
                confusion[f"{r['type']} -> {predicted}"] += 1
    total = [x for v in per.values() for x in v]
    majority = Counter(r["type"] for r in rows).most_common(1)[0]
    return {"entities": len(total), "accuracy": round(sum(total) / len(total), 3),
            "by_split": {k: {"n": len(v), "accuracy": round(sum(v) / len(v), 3)} for k, v in sorted(per_split.items())},
            "majority_class_baseline": {"type": majority[0], "accuracy": round(majority[1] / len(rows), 3)},
            "by_collection": {k: {"n": len(v), "accuracy": round(sum(v) / len(v), 3)} for k, v in per.items()},
            "by_source": {k: {"n": len(v), "accuracy": round(sum(v) / len(v), 3)} for k, v in by_source.items()},
            "confusions": dict(confusion.most_common(12)),
            "by_collection_split": by_collection_split(rows, [outcomes[id(r)] for r in rows])}


def never_persons(indexes, resolutions, collections) -> dict:
    """Every entity of ``collections`` with a name or alias in :data:`NEVER_PERSONS`, and its type."""
    out = {}
    for name in sorted(collections):
        if name not in indexes:
            continue
        groups = build_groups(indexes[name], resolutions[name], [])
        out[name] = sorted({(g.name, g.entity_type) for g in groups
                            if {normalise(a.name) for a in g.aliases} & set(NEVER_PERSONS)})
    return {c: [f"{n}: {t}" for n, t in v] for c, v in out.items()}


def by_collection_split(rows: list[dict], outcomes: list[tuple[str, str]]) -> dict:
    """Accuracy, the majority type's accuracy and the confusions of each collection and split's rows."""
    cells: dict[str, list] = defaultdict(list)
    for r, (predicted, name) in zip(rows, outcomes):
        cells[f"{r['collection']}/{r['split']}"].append((r["type"], predicted, name))
    out = {}
    for cell, items in sorted(cells.items()):
        majority = Counter(gold for gold, _, _ in items).most_common(1)[0]
        out[cell] = {"n": len(items), "accuracy": round(sum(g == p for g, p, _ in items) / len(items), 3),
                     "majority_baseline": {"type": majority[0], "accuracy": round(majority[1] / len(items), 3)},
                     "confusions": dict(Counter(f"{g} -> {p}" for g, p, _ in items if g != p).most_common()),
                     "errors": [f"{n}: {g} -> {p}" for g, p, n in items if g != p]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="pairs,types,counts")
    parser.add_argument("--store", action="append", default=[], metavar="NAME=DIR",
                        help="read collection NAME from the store DIR (repeatable)")
    parser.add_argument("--splits", default="", metavar="SPLIT,...",
                        help="type only these splits' rows (e.g. dev while designing) and print, writing no result")
    args = parser.parse_args()
    ROOTS.update(store_roots(parser, args.store, ROOTS))
    parts = args.parts.split(",")
    splits = frozenset(args.splits.split(",")) if args.splits else None
    indexes, resolutions = {}, {}
    started = time.perf_counter()
    if "pairs" in parts:
        for name in sorted({p["collection"] for p in read_pairs()}):
            indexes[name] = load(name)
            resolutions[name] = resolve(indexes[name], type_set=TYPE_SETS.get(name))
    result: dict = {"machine": machine()}
    if "pairs" in parts:
        result["pairs"] = pairs_part(indexes, resolutions)
    if "types" in parts:
        result["types"] = types_part(indexes, resolutions, splits=splits)
    if "book-types" in parts:  # the books' rows only (no papers collection needed)
        result["book_types"] = types_part(indexes, resolutions, BOOK_COLLECTIONS, splits)
    if "research-types" in parts:  # the papers' rows only (the 24 arXiv papers and the classic papers)
        result["research_types"] = types_part(indexes, resolutions, RESEARCH_COLLECTIONS, splits)
        result["research_types"]["never_persons"] = never_persons(indexes, resolutions, {"classic", "classicdev"})
    if "counts" in parts:
        result["counts"] = counts_part(indexes, resolutions)
    result["seconds"] = round(time.perf_counter() - started, 1)
    if splits is not None:  # a design run: printed, never written over the measured figures
        print_summary(result)
        return
    previous = Path(ROOT / "bench" / "results" / "entities.json")
    if previous.exists() and set(parts) != {"pairs", "types", "counts"}:
        import json

        result = {**json.loads(previous.read_text(encoding="utf-8")), **result}
    write_json("entities.json", result)
    print_summary(result)


def print_summary(result: dict) -> None:
    if "pairs" in result:
        p = result["pairs"]
        print(f"tuned on dev: {p['tuned_on_dev']}  shipped: {p['shipped']}")
        for split in ("dev", "test", "all"):
            for method, m in p[split].items():
                print(f"{split:5} {method:26} P={m['precision']:.3f} R={m['recall']:.3f} F1={m['f1']:.3f} "
                      f"(tp {m['tp']} fp {m['fp']} fn {m['fn']})")
    if "types" in result:
        t = result["types"]
        print(f"types: accuracy {t['accuracy']} on {t['entities']} {t['by_split']} (majority "
              f"{t['majority_class_baseline']}; {t['by_collection']}; {t['by_source']})")
    for cell, c in result.get("research_types", {}).get("by_collection_split", {}).items():
        print(f"research types {cell}: accuracy {c['accuracy']} on {c['n']} (majority {c['majority_baseline']}); "
              f"errors {c['errors']}")
    print("never persons:", result.get("research_types", {}).get("never_persons"))
    if "counts" in result:
        for name, c in result["counts"].items():
            print(f"{name}: {c['entity_nodes']} entity nodes -> {c['entities_after']} entities "
                  f"in {c['resolution_seconds']} s (indexing took {c['indexing_seconds']} s; {c['merges_by_rule']})")


if __name__ == "__main__":
    main()
