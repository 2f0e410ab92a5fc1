"""Questions that chain facts: HotpotQA's 1,021 Wikipedia paragraphs indexed as one collection, and every
retrieval method at equal words of context on HotpotQA's questions and on the self-written two-hop set.

    python bench/hotpotqa.py index                      # the paragraphs -> bench/stores/multihop (collection hotpotqa)
    python bench/hotpotqa.py run --set hotpotqa --split dev      # every method x budget on HotpotQA's dev half
    python bench/hotpotqa.py run --set twohop --split dev        # the same on the self-written two-hop questions
    python bench/hotpotqa.py report --set hotpotqa --split dev   # markdown tables of the results
    python bench/hotpotqa.py novels     # NarrativeQA design books: contexts identical with the walk on and off

The data is ../shared/data/hotpotqa/ (HotpotQA dev distractor questions with their supporting sentences; each
question's 2 gold and 8 distractor paragraphs pooled, one document a paragraph).  Splits were drawn before any run
and committed: bench/data/hotpotqa_split.json (by question) and the ``split`` column of
bench/data/twohop_qa.jsonl.  Dev decides; held-out halves are looked at once, as aggregates.

Scores per context (:func:`score`): **supporting-sentence recall** (share of the gold sentences in the context),
**both facts found** (every gold *paragraph* has at least one of its gold sentences in the context: the two facts a
chained question needs), and the number of documents the context spans.  Rows land in
bench/results/multihop.json with their per-question figures; :func:`summary` gives each method's means and the
paired 95% bootstrap interval of its difference to the best text method (dense, bm25, hybrid) at each budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import RESULTS, ROOT, STORES, machine, write_json
from protocol import TEXT_BASELINES, VARIANTS, margin_cell, paired_interval, setting

from kgcore.api import QueryEngine, RetrievalOptions, Store, doc_id_for, index_files, multihop

DATA = ROOT.parent / "shared" / "data" / "hotpotqa"
SPLIT = ROOT / "bench" / "data" / "hotpotqa_split.json"
TWOHOP = ROOT / "bench" / "data" / "twohop_qa.jsonl"
STORE = Path(os.environ.get("KGCORE_MULTIHOP_STORE", STORES / "multihop"))
COLLECTION = "hotpotqa"
BUDGETS = (200, 500, 1000)
RESULT = "multihop.json"
#: Documents indexed per commit: an interrupted run keeps the batches before.
BATCH = 120


@dataclass(frozen=True)
class MultiHopQuestion:
    """A question with its gold supporting sentences, each as (document id, sentence text)."""

    text: str
    kind: str
    gold: tuple[tuple[str, str], ...]


def doc_id(filename: str) -> str:
    """The document id the store gives a file (:func:`kgcore.api.doc_id_for`)."""
    return doc_id_for(filename)


def hotpot_questions(part: str) -> list[MultiHopQuestion]:
    """HotpotQA's questions of the committed split's ``part`` (``dev`` or ``held_out``)."""
    lines = (DATA / "hotpotqa_dev.jsonl").read_text(encoding="utf-8").splitlines()
    chosen = json.loads(SPLIT.read_text(encoding="utf-8"))[part]
    out = []
    for i in chosen:
        item = json.loads(lines[i])
        gold = tuple((doc_id(g["document"]), g["sentence"]) for g in item["gold"])
        out.append(MultiHopQuestion(item["question"], item["type"], gold))
    return out


def twohop_questions(part: str) -> list[MultiHopQuestion]:
    """The self-written two-hop questions of ``part`` (their ``split`` field)."""
    out = []
    for line in TWOHOP.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["split"] == part:
            gold = tuple((doc_id(g["document"]), g["sentence"]) for g in item["gold"])
            out.append(MultiHopQuestion(item["question"], item["type"], gold))
    return out


def index_all(store_root: Path = STORE, batch: int = BATCH) -> None:
    """Index every paragraph into the ``hotpotqa`` collection, ``batch`` documents per commit; documents already
    in the collection are skipped, so a stopped run resumes."""
    os.environ.setdefault("KGCORE_MAX_DOCUMENTS", "5000")
    store = Store(store_root)
    files = sorted((DATA / "docs").glob("*.txt"))
    for start in range(0, len(files), batch):
        have = {m.doc_id for m in store.documents(COLLECTION)} if store.exists(COLLECTION) else set()
        todo = [f for f in files[start:start + batch] if doc_id(f.name) not in have]
        if not todo:
            continue
        began = time.perf_counter()
        outcome = index_files(todo, store, COLLECTION, workers=int(os.environ.get("KGCORE_BENCH_WORKERS", "1")))[0]
        print(json.dumps({"from": start, "added": len(outcome.added), "failed": list(outcome.failed),
                          "seconds": round(time.perf_counter() - began, 1)}), flush=True)


def normalized(text: str) -> str:
    """Lower-cased words only, so a stored sentence and a gold sentence compare whatever the spacing."""
    return " ".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def gold_found(sentences, gold: tuple[tuple[str, str], ...]) -> list[bool]:
    """For each gold sentence, whether a context sentence of its document holds it or lies inside it (the store
    may split a gold sentence in two, or join it with its title line)."""
    by_doc: dict[str, list[str]] = {}
    for s in sentences:
        by_doc.setdefault(s.document, []).append(normalized(s.text))
    found = []
    for doc, text in gold:
        g = normalized(text)
        found.append(any(t and (t in g or g in t) for t in by_doc.get(doc, [])))
    return found


def score(result, q: MultiHopQuestion) -> dict:
    """Supporting-sentence recall, both facts found (every gold paragraph has a gold sentence in the context) and
    the documents the context spans."""
    found = gold_found(result.sentences, q.gold)
    docs = {d for d, _ in q.gold}
    both = all(any(f for f, (d, _) in zip(found, q.gold) if d == doc) for doc in docs)
    return {"recall": sum(found) / len(found), "both": float(both), "words": result.context_words,
            "documents": len({s.document for s in result.sentences})}


#: The fused default without its multi-hop walk (:mod:`kgcore.query.multihop` off): the ranking before it.
FLAT = "groundedkg-flat"


def measure(engine: QueryEngine, questions: list[MultiHopQuestion], variant: str, budget: int) -> dict:
    """One method at one budget: means and per-question figures (both facts found, recall, documents)."""
    scores, times = [], []
    options = RetrievalOptions(budget_words=budget, **VARIANTS.get(variant.replace(FLAT, "groundedkg"),
                                                                   {"method": variant}))
    for q in questions:
        start = time.perf_counter()
        with setting(multihop, "ENABLED", variant != FLAT):
            result = engine.retrieve(COLLECTION, q.text, options)
        scores.append(score(result, q))
        times.append(1000 * (time.perf_counter() - start))
    mean = lambda key: round(statistics.mean(s[key] for s in scores), 3)  # noqa: E731
    return {"variant": variant, "budget_words": budget, "questions": len(questions), "both": mean("both"),
            "recall": mean("recall"), "documents": mean("documents"), "mean_words": mean("words"),
            "p50_ms": round(statistics.median(times), 1),
            "per_question": {k: [round(s[k], 4) for s in scores] for k in ("both", "recall", "documents")},
            "kinds": [q.kind for q in questions]}


def load_set(name: str, part: str) -> list[MultiHopQuestion]:
    """The questions of set ``name`` (``hotpotqa`` or ``twohop``) in ``part`` (``dev`` or ``held_out``)."""
    return hotpot_questions(part) if name == "hotpotqa" else twohop_questions(part)


def comparison(rows: list[dict], key: str = "both") -> dict:
    """Per variant at one budget over the same questions: its mean ``key`` and its paired difference to the best
    text method (by mean) with a 95% bootstrap interval; plus the mean documents spanned.

    >>> rows = [{"variant": v, "per_question": {"both": q, "documents": [3, 3]}} for v, q in
    ...         (("dense", [0.5, 0.5]), ("bm25", [0.0, 1.0]), ("hybrid", [0.2, 0.2]), ("groundedkg", [1.0, 1.0]))]
    >>> c = comparison(rows)
    >>> c["best_text"], c["methods"]["groundedkg"]["margin"], c["methods"]["groundedkg"]["ci95"]
    ('dense', 0.5, [0.5, 0.5])
    """
    by = {r["variant"]: r["per_question"] for r in rows}
    means = {v: statistics.mean(q[key]) for v, q in by.items()}
    best = max((b for b in TEXT_BASELINES if b in by), key=lambda b: means[b])
    out = {}
    for variant, values in by.items():
        entry = {key: round(means[variant], 3), "margin": round(means[variant] - means[best], 3),
                 "documents": round(statistics.mean(values["documents"]), 1)}
        if variant != best:
            entry["ci95"] = list(paired_interval(values[key], by[best][key]))
        if variant == "groundedkg" and FLAT in by:  # the walk's own effect: the default against itself without it
            flat = by[FLAT][key]
            entry["vs_flat"] = round(means[variant] - statistics.mean(flat), 3)
            entry["vs_flat_ci95"] = list(paired_interval(values[key], flat))
        out[variant] = entry
    return {"questions": len(by[best][key]), "best_text": best, "methods": out}


def summary(rows: list[dict]) -> dict:
    """Per set and split, per budget and figure (``both``, ``recall``), the :func:`comparison` of the variants,
    over all questions and per question kind."""
    out: dict = {}
    for group in sorted({(r["set"], r["split"]) for r in rows}):
        part: dict = {}
        for budget in sorted({r["budget_words"] for r in rows if (r["set"], r["split"]) == group}):
            at = [r for r in rows if (r["set"], r["split"]) == group and r["budget_words"] == budget]
            if not any(r["variant"] in TEXT_BASELINES for r in at):
                continue
            cell = {key: comparison(at, key) for key in ("both", "recall")}
            for kind in sorted(set(at[0]["kinds"])):
                picked = [[i for i, k in enumerate(r["kinds"]) if k == kind] for r in at]
                cell[f"both:{kind}"] = comparison([
                    {"variant": r["variant"], "per_question": {k: [v[i] for i in idx] for k, v in
                                                               r["per_question"].items()}}
                    for r, idx in zip(at, picked)])
            part[str(budget)] = cell
        out[f"{group[0]}:{group[1]}"] = part
    return out


def save(rows: list[dict]) -> dict:
    """Merge ``rows`` into bench/results/multihop.json (replacing rows of the same set, split, variant and
    budget), recompute the summary and write it back."""
    path = RESULTS / RESULT
    results = json.loads(path.read_text()) if path.exists() else {"rows": []}
    keys = {(r["set"], r["split"], r["variant"], r["budget_words"]) for r in rows}
    results["rows"] = [r for r in results["rows"]
                       if (r["set"], r["split"], r["variant"], r["budget_words"]) not in keys] + rows
    results["summary"] = summary(results["rows"])
    results["machine"] = machine()
    write_json(RESULT, results, one_line="rows")
    return results


def table(cell_by_budget: dict, key: str = "both") -> str:
    """A markdown table (method x budget): each cell the method's mean ``key`` and, but for the best text method,
    its margin to it with the paired 95% interval, then the documents the context spans.

    >>> methods = {"dense": {"both": 0.5, "margin": 0.0, "documents": 4.0},
    ...            "groundedkg": {"both": 0.6, "margin": 0.1, "ci95": [0.0, 0.2], "documents": 3.5}}
    >>> print(table({"500": {"both": {"questions": 2, "best_text": "dense", "methods": methods}}}))
    | method | 500 |
    |---|---|
    | groundedkg | 0.600 (+0.100 [+0.000, +0.200]; 3.5 docs) |
    | dense | **0.500** (4.0 docs) |
    """
    budgets, field = list(cell_by_budget), key.split(":")[0]
    lines = ["| method | " + " | ".join(budgets) + " |", "|---" * (len(budgets) + 1) + "|"]
    variants = list(dict.fromkeys(v for b in budgets for v in cell_by_budget[b][key]["methods"]))
    order = [v for v in [*VARIANTS, FLAT, *variants] if v in variants]
    for variant in dict.fromkeys(order):
        cells = [margin_cell(cell_by_budget[b][key]["methods"].get(variant), field, documents=True) for b in budgets]
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def walk_line(cell_by_budget: dict, key: str) -> str:
    """One line: the default against itself without the walk, per budget, with the paired 95% interval.

    >>> entry = {"vs_flat": 0.1, "vs_flat_ci95": [0.0, 0.2]}
    >>> walk_line({"500": {"both": {"methods": {"groundedkg": entry}}}}, "both")
    'walk (groundedkg - groundedkg-flat): 500 words +0.100 [+0.000, +0.200]'
    """
    cells = []
    for budget, cell in cell_by_budget.items():
        entry = cell[key]["methods"].get("groundedkg", {})
        if "vs_flat" in entry:
            lo, hi = entry["vs_flat_ci95"]
            cells.append(f"{budget} words {entry['vs_flat']:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    return f"walk (groundedkg - {FLAT}): " + "; ".join(cells)


#: Every registered retrieval method the bench runs by default (the fused default, its graph-score ranking,
#: the contextual-graph and text baselines, and the entity graph).
DEFAULT_VARIANTS = (*VARIANTS, FLAT, "entities")


def run(set_name: str, part: str, variants: list[str], budgets: list[int]) -> None:
    """Every variant at every budget on one set's split, saved after each variant."""
    engine = QueryEngine(Store(STORE))
    questions = load_set(set_name, part)
    for variant in variants:
        rows = []
        for budget in budgets:
            row = {"set": set_name, "split": part, **measure(engine, questions, variant, budget)}
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k not in ("per_question", "kinds")}), flush=True)
        save(rows)


def novels_unchanged(budget: int = 500) -> dict:
    """Every NarrativeQA design question (the shared read-only store of bench/narrativeqa.py) retrieved by the
    default with the walk on and off: per book, how many contexts are identical (the walk adds only sentences of
    other entity pages, and a book is one document, so all should be)."""
    from narrativeqa import book_store, questions, split

    engine, out = QueryEngine(book_store(split()["design"])), {}
    for slug in split()["design"]:
        same = total = 0
        for q in questions(slug):
            ids = []
            for on in (True, False):
                with setting(multihop, "ENABLED", on):
                    result = engine.retrieve(slug, q.text, RetrievalOptions(budget_words=budget))
                ids.append([s.id for s in result.sentences])
            same, total = same + (ids[0] == ids[1]), total + 1
        out[slug] = {"identical": same, "questions": total}
        print(json.dumps({slug: out[slug]}), flush=True)
    return {"budget_words": budget, "books": out}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("index", help="index the 1,021 paragraphs into one collection")
    sub.add_parser("novels", help="NarrativeQA design books: the default's contexts with the walk on and off")
    for name in ("run", "report"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--set", choices=("hotpotqa", "twohop"), default="hotpotqa")
        cmd.add_argument("--split", choices=("dev", "held_out"), default="dev")
        if name == "run":
            cmd.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
            cmd.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    args = parser.parse_args(argv)
    if args.command == "index":
        index_all()
    elif args.command == "novels":
        results = json.loads((RESULTS / RESULT).read_text())
        results["narrativeqa_unchanged"] = novels_unchanged()
        write_json(RESULT, results, one_line="rows")
    elif args.command == "run":
        run(args.set, args.split, args.variants.split(","), [int(b) for b in args.budgets.split(",")])
    else:
        part = json.loads((RESULTS / RESULT).read_text())["summary"][f"{args.set}:{args.split}"]
        kinds = sorted({k for cell in part.values() for k in cell if k.startswith("both:")})
        for key in ("both", "recall", *kinds):
            print(f"\n{args.set} {args.split}: {key} (margin to the best text method [paired 95% CI]; docs)\n")
            print(table(part, key))
            print(walk_line(part, key))


if __name__ == "__main__":
    sys.exit(main())
