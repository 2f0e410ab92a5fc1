"""The fused ranking's protocol: GroundedKG (old graph-score ranking, new fused ranking), LeSeGR and the text baselines
at equal words on every dev and held-out set, and the dev-only sensitivity of each LeSeGR setting.

    python bench/experiments/fused_quality.py                          # every set, every variant, budgets 200..2000
    python bench/experiments/fused_quality.py --sets peter-dev,crusoe-dev --sweep   # dev-only sensitivity

Sets (``dev`` for design decisions; ``test`` held out, written from the text before any tuning; ``test2`` a
second held-out round, written and committed after every design decision, run once; ``test3`` a third,
written in NarrativeQA style -- paraphrased questions, short answers -- before the changes that followed;
``test4`` a fourth, written in the same style from the books alone, committed before it ran):

* books (one-document collections in bench/stores/books): ``peter-dev`` / ``peter-test``, ``crusoe-dev`` /
  ``crusoe-test`` / ``crusoe-test2`` (50 questions) / ``crusoe-test3`` / ``crusoe-test4`` (40 each),
  ``phantom-dev`` (40, written for design decisions) / ``phantom-test`` (bench/data/phantom_qa_test.csv,
  50 questions) / ``phantom-test2`` / ``phantom-test3`` / ``phantom-test4`` (40 each);
* ``qasper-dev``: the 10 QASPER papers as one collection, each question asked within its paper;
* ``obliqa-dev`` / ``obliqa-test`` .. ``obliqa-test4``: global retrieval over the 40 ObliQA
  rulebooks; dev is the collections benchmark's sample (seed 13), the test splits samples of the same size and
  mix disjoint from it and from each other (:data:`OBLIQA_ROUNDS`: seeds 29, 31, 37 and 41; test4 has 33
  multi-document questions where the others have 50: no more are left);
* ``papers-unseen``: bench/data/papers_qa.csv's 40 questions on eight of the RAG papers (PDFs; written from the
  papers alone when PDF ingestion was built, before any run), each asked within its paper, in a collection of the
  eight (bench/stores/papers_qa/fused).  No ranking decision ever saw it: a collection kind (PDF papers)
  the fused ranking was not designed on, reported apart from the rounds (``target.unseen``).

Per (set, variant, budget): answer-token recall and evidence hit (books and QASPER; for QASPER an evidence
paragraph is hit when a selected sentence lies inside it), gold-passage recall (ObliQA).  ``--sweep`` varies
one setting at a time on dev sets only (layers, aggregation, length exponent, each edge kind dropped) and
reports the mean over dev sets and budgets.  Writes bench/results/fused_quality.json (merged per set, variant
and budget), with each row's per-question figures and, per set and budget, the default's margin over the best
text baseline with a paired 95% bootstrap interval: a margin whose interval holds 0 is a tie, not a loss or a
win; and the same over each collection's held-out rounds pooled (``target.pooled``).
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import math
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from collections_bench import DATA, obliqa_questions
from collections_bench import STORE as COLLECTIONS
from common import RESULTS, STORE_ROOT, machine, write_json
from protocol import BUDGETS, TEXT_BASELINES, VARIANTS, Question, measure, paired_interval, setting
from retrieval_quality import BENCH, SETS
from scipy import sparse

from kgcore.core.embed import nodes
from kgcore.evaluate.qaset import load_qa
from kgcore.index.load import doc_id_for
from kgcore.index.pipeline import Job, index_file, index_files
from kgcore.index.store.disk import Store
from kgcore.index.views import context_types
from kgcore.query import fused, propagation
from kgcore.query.engine import QueryEngine


def book_set(key: str, split: str) -> tuple[Store, str, list[Question]]:
    store = Store(STORE_ROOT)  # KGCORE_BENCH_STORE, as every bench
    doc_id, path_of, splits = SETS[key]
    path, paths = path_of(), splits[split]
    index_file(path, store, name=doc_id)  # reuses an identical existing index
    items = [it for p in paths for it in load_qa(p)]
    return store, doc_id, [Question(it.question, tuple(it.answers), (it.evidence,) if it.evidence else ())
                           for it in items]


def qasper_set() -> tuple[Store, str, list[Question]]:
    store = Store(COLLECTIONS)
    if not store.exists("qasper"):
        raise SystemExit("index QASPER first: python bench/collections_bench.py --parts qasper-retrieval")
    out = []
    for line in (DATA / "qasper" / "qasper_qa.jsonl").open(encoding="utf-8"):
        item = json.loads(line)
        answered = [a for a in item["answers"] if not a["unanswerable"]]
        evidence = tuple(e for a in answered for e in a["evidence"])
        if evidence:
            out.append(Question(item["question"], tuple(a["answer"] for a in answered), evidence,
                                (doc_id_for(item["paper"]),), paragraphs=True))
    return store, "qasper", out


def papers_set() -> tuple[Store, str, list[Question]]:
    """The eight papers of bench/data/papers_qa.csv as one collection (indexed on first use, reused after)."""
    store = Store(BENCH / "stores" / "papers_qa" / "fused")
    rows = list(csv.DictReader((BENCH / "data" / "papers_qa.csv").open(encoding="utf-8")))
    files = sorted({r["paper"] for r in rows})
    index_files([Job(f, DATA / "papers" / f) for f in files], store, "papers8", workers=2)
    return store, "papers8", [Question(r["question"], (r["answer"],), (r["evidence"],), (doc_id_for(r["paper"]),))
                              for r in rows]


#: ObliQA's held-out rounds and the seed of each one's sample (test4 drawn before it was run).
OBLIQA_ROUNDS = (("test", 29), ("test2", 31), ("test3", 37), ("test4", 41))
#: The splits ``target`` reports: dev, every held-out round (the books' rounds share ObliQA's names), unseen.
SPLITS = ("dev", *(name for name, _ in OBLIQA_ROUNDS), "unseen")


def obliqa_set(split: str, sample: int) -> tuple[Store, str, list[Question]]:
    store = Store(COLLECTIONS)
    if not store.exists("obliqa"):
        raise SystemExit("index ObliQA first: python bench/collections_bench.py --parts obliqa --workers 1")
    taken = obliqa_questions(sample)
    chosen = taken
    for name, seed in OBLIQA_ROUNDS:  # each round disjoint from dev and every round before it
        if split == "dev":
            break
        chosen = obliqa_questions(sample, seed, taken={q["question_id"] for q in taken})
        taken = taken + chosen
        if split == name:
            break
    else:
        raise SystemExit(f"no ObliQA split {split!r}: dev or one of {[n for n, _ in OBLIQA_ROUNDS]}")
    return store, "obliqa", [Question(q["question"], (), (), (), tuple(
        (doc_id_for(g["document"]), g["passage"]) for g in q["gold"])) for q in chosen]


def load(set_name: str, sample: int) -> tuple[Store, str, list[Question]]:
    key, split = set_name.rsplit("-", 1)
    if key == "qasper":
        return qasper_set()
    if key == "papers":
        return papers_set()
    if key == "obliqa":
        return obliqa_set(split, sample)
    return book_set(key, split)


def known_set(set_name: str) -> str:
    """``set_name`` when :func:`load` knows it, else exit naming it and the sets there are (checked before any
    set runs, so a typo at the end of ``--sets`` does not cost the sets before it).

    >>> known_set("crusoe-test4")
    'crusoe-test4'
    >>> known_set("crusoe-test9")
    Traceback (most recent call last):
    SystemExit: unknown set 'crusoe-test9': one of crusoe-dev, crusoe-dev-extra, ...
    """
    names = [f"{key}-{split}" for key, (_, _, splits) in SETS.items() for split in splits]
    names += ["qasper-dev", "papers-unseen", "obliqa-dev"] + [f"obliqa-{name}" for name, _ in OBLIQA_ROUNDS]
    if set_name not in names:
        raise SystemExit(f"unknown set {set_name!r}: one of {', '.join(sorted(names))}")
    return set_name


def run_set(set_name: str, sample: int, variants, budgets) -> list[dict]:
    store, name, questions = load(set_name, sample)
    engine = QueryEngine(store)
    rows = []
    for budget in budgets:
        for variant in variants:
            rows.append({"set": set_name, **measure(engine, name, questions, variant, budget)})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def pooled(rows: list[dict]) -> list[dict]:
    """The held-out rows of each collection pooled over its rounds (``crusoe-test``, ``-test2``, ``-test3`` ->
    ``crusoe-held-out``): per variant and budget, the questions of every round in one row, for :func:`target`.

    >>> rows = [{"set": s, "variant": "dense", "budget_words": 200, "per_question": q}
    ...         for s, q in (("crusoe-test2", [0.0]), ("crusoe-test", [1.0, 0.5]), ("crusoe-dev", [1.0]))]
    >>> rows = [{**r, "recall": 0.5} for r in rows]
    >>> [(r["set"], r["per_question"], r["recall"]) for r in pooled(rows)]
    [('crusoe-held-out', [1.0, 0.5, 0.0], 0.5)]
    """
    groups: dict[tuple[str, str, int], list[dict]] = {}
    for r in rows:
        family, split = r["set"].rsplit("-", 1)
        if split.startswith("test") and "per_question" in r:
            groups.setdefault((family, r["variant"], r["budget_words"]), []).append(r)
    out = []
    for (family, variant, budget), found in groups.items():
        values = [x for r in sorted(found, key=lambda r: r["set"]) for x in r["per_question"]]
        key = "recall" if "recall" in found[0] else "evidence"  # the figure per_question holds (see measure)
        out.append({"set": f"{family}-held-out", "variant": variant, "budget_words": budget,
                    "per_question": values, key: round(statistics.mean(values), 3)})
    return out


def primary(row: dict) -> float:
    """The figure a set is judged on: answer-token recall where answers exist, else passage recall."""
    return row["recall"] if "recall" in row else row["evidence"]


def target(rows: list[dict]) -> dict:
    """Per set and budget: the default graph method against the best text baseline (by mean), the margin with
    its paired 95% bootstrap interval, and whether the difference is clear (the interval excludes 0)."""
    out, margins = {}, []
    for (set_name, budget) in sorted({(r["set"], r["budget_words"]) for r in rows}):
        at = {r["variant"]: r for r in rows if (r["set"], r["budget_words"]) == (set_name, budget)}
        if "groundedkg" not in at or not all(b in at for b in TEXT_BASELINES):
            continue
        best = max(TEXT_BASELINES, key=lambda b: primary(at[b]))
        margin = round(primary(at["groundedkg"]) - primary(at[best]), 3)
        margins.append(margin)
        entry = {"groundedkg": primary(at["groundedkg"]), "best_text": primary(at[best]), "best_method": best,
                 "margin": margin}
        if "per_question" in at["groundedkg"] and "per_question" in at[best]:
            lo, hi = paired_interval(at["groundedkg"]["per_question"], at[best]["per_question"])
            entry |= {"ci95": [lo, hi], "verdict": "wins" if lo > 0 else "loses" if hi < 0 else "tie"}
        out[f"{set_name}@{budget}"] = entry
    return {"per_set": out, "mean_margin": round(statistics.mean(margins), 3) if margins else None,
            "never_loses": all(m >= 0 for m in margins),
            "clear_losses": sorted(k for k, v in out.items() if v.get("verdict") == "loses")}


def without_kind(kind: str) -> Callable[[], Any]:
    """Drop one edge kind from every loaded index's gated edges (pairs linked only by it lose their edge)."""
    @contextmanager
    def drop() -> Iterator[None]:
        original = propagation.gated

        def gated(cg):
            w, bits = cg.weights.tocoo(), cg.kinds.tocoo()  # same structure: both built by contextual._merge
            keep = (bits.data & ~context_types.BIT[kind]) != 0
            masked = sparse.csr_matrix((w.data[keep], (w.row[keep], w.col[keep])), shape=w.shape)
            return masked.multiply(cg.affinity).tocsr()

        propagation.gated = gated
        try:
            yield
        finally:
            propagation.gated = original
    return drop


SWEEP = {
    "default": lambda: setting(propagation, "LAYERS", propagation.LAYERS),
    "layers=0 (fusion)": lambda: setting(propagation, "LAYERS", 0),
    "layers=1": lambda: setting(propagation, "LAYERS", 1),
    "layers=3": lambda: setting(propagation, "LAYERS", 3),
    "aggregation=mean": lambda: setting(propagation, "AGGREGATION", "mean"),
    "aggregation=add": lambda: setting(propagation, "AGGREGATION", "add"),
    "length_exponent=0.5": lambda: setting(fused, "LENGTH_EXPONENT", 0.5),
    "graph after propagation": lambda: setting(propagation, "GRAPH_PROPAGATES", False),
    "graph propagates": lambda: setting(propagation, "GRAPH_PROPAGATES", True),
    "w_graph=0.5": lambda: setting(propagation, "W_GRAPH", 0.5),
    "w_graph=2": lambda: setting(propagation, "W_GRAPH", 2.0),
    "graph_floor=0.4": lambda: setting(propagation, "GRAPH_FLOOR", 0.4),
    "graph_floor=0.6": lambda: setting(propagation, "GRAPH_FLOOR", 0.6),
    "graph_floor=0.8": lambda: setting(propagation, "GRAPH_FLOOR", 0.8),
    "query_text_words=0 (labels only)": lambda: setting(nodes, "QUERY_TEXT_WORDS", 0),
    "query_text_words=inf (every text)": lambda: setting(nodes, "QUERY_TEXT_WORDS", math.inf),
    "query_text_words=3": lambda: setting(nodes, "QUERY_TEXT_WORDS", 3),
    "query_text_words=4": lambda: setting(nodes, "QUERY_TEXT_WORDS", 4),
    "query_text_words=5": lambda: setting(nodes, "QUERY_TEXT_WORDS", 5),
    "query_text_words=8": lambda: setting(nodes, "QUERY_TEXT_WORDS", 8),
    "query_text_words=1": lambda: setting(nodes, "QUERY_TEXT_WORDS", 1),
    "query_text_words=2": lambda: setting(nodes, "QUERY_TEXT_WORDS", 2),
    "graph_head_words=500": lambda: setting(fused, "GRAPH_HEAD_WORDS", 500),
    "graph_head_words=750": lambda: setting(fused, "GRAPH_HEAD_WORDS", 750),
    "w_sparse=0.7": lambda: setting(propagation, "W_SPARSE", 0.7),
    "w_sparse=1.4": lambda: setting(propagation, "W_SPARSE", 1.4),
    "dedupe texts": lambda: setting(fused, "DEDUPE_TEXTS", True),
    "sparse reads written words only": lambda: setting(propagation, "EXPANDED", False),
    "scale=max": lambda: setting(propagation, "SCALE", "max"),
    "rank_k=3": lambda: setting(propagation, "RANK_K", 3),
    "rank_k=5": lambda: setting(propagation, "RANK_K", 5),
    "rank_k=10": lambda: setting(propagation, "RANK_K", 10),
    "rank_k=15": lambda: setting(propagation, "RANK_K", 15),
    "rank_k=20": lambda: setting(propagation, "RANK_K", 20),
    "rank_k=30": lambda: setting(propagation, "RANK_K", 30),
    "rank_k=60": lambda: setting(propagation, "RANK_K", 60),
    **{f"without {k}": without_kind(k) for k in context_types.KINDS},
}


def sweep(sets: list[str], sample: int, budgets, labels: list[str], variants: list[str]) -> list[dict]:
    """Each setting changed alone; mean primary figure over dev sets and budgets for fused groundedkg and lesegr,
    and each set's figure per budget."""
    if any(not s.endswith("-dev") for s in sets):
        raise SystemExit("the sweep runs on dev sets only")
    loaded = [(s, *load(s, sample)) for s in sets]
    engines = {id(store): QueryEngine(store) for _, store, _, _ in loaded}
    rows = []
    for label in labels:
        with ExitStack() as stack:
            for part in label.split("+"):  # "a+b": both settings changed together
                stack.enter_context(SWEEP[part.strip()]())
            for variant in variants:
                per_set: dict[str, list[float]] = {}
                for set_name, store, name, questions in loaded:
                    engine = engines[id(store)]
                    engine.index(name).cache.drop(fused.GATED)
                    per_set[set_name] = [primary(measure(engine, name, questions, variant, b)) for b in budgets]
                values = [v for vs in per_set.values() for v in vs]
                rows.append({"setting": label, "variant": variant, "mean": round(statistics.mean(values), 4),
                             "per_set": {s: [round(v, 3) for v in vs] for s, vs in per_set.items()}})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="peter-dev,crusoe-dev,qasper-dev,obliqa-dev,peter-test,crusoe-test,"
                                          "phantom-test,obliqa-test")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--sample", type=int, default=200, help="ObliQA questions per split")
    parser.add_argument("--sweep", action="store_true", help="dev-only sensitivity of each setting")
    parser.add_argument("--settings", default=",".join(SWEEP), help="the --sweep settings, comma-separated")
    args = parser.parse_args(argv)
    sets, budgets = [known_set(s) for s in args.sets.split(",")], [int(b) for b in args.budgets.split(",")]
    if args.sweep:
        rows = sweep(sets, args.sample, budgets, args.settings.split(","), args.variants.split(","))
        save(lambda results: results.setdefault("sweep", []).append({"sets": sets, "budgets": budgets, "rows": rows}))
        return
    for set_name in sets:  # saved set by set: a set that fails later (an index missing) keeps the ones before
        rows = run_set(set_name, args.sample, args.variants.split(","), budgets)
        save(functools.partial(merge_rows, rows=rows))


def save(change: Callable[[dict], Any]) -> None:
    """Read bench/results/fused_quality.json (only now: another run may have written meanwhile), apply
    ``change`` to it and write it back."""
    out_path = RESULTS / "fused_quality.json"
    results = json.loads(out_path.read_text()) if out_path.exists() else {"rows": []}
    change(results)
    results["machine"] = machine()
    write_json("fused_quality.json", results, one_line="rows")


def merge_rows(results: dict, rows: list[dict]) -> None:
    """``rows`` in place of the file's rows of the same set, variant and budget (other variants' rows are kept),
    and the target over every set in the file, not only those just measured."""
    measured = {(r["set"], r["variant"], r["budget_words"]) for r in rows}
    results["rows"] = [r for r in results["rows"] if (r["set"], r["variant"], r["budget_words"]) not in measured]
    results["rows"] += rows
    results["target"] = {split: target([r for r in results["rows"] if r["set"].endswith(f"-{split}")])
                         for split in SPLITS}
    results["target"]["pooled"] = target(pooled(results["rows"]))


if __name__ == "__main__":
    main()
