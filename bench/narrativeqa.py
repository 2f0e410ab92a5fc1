"""People's questions: the NarrativeQA novels, each indexed into its own collection of a shared store, and every
retrieval method at equal words of context on their questions.

    python bench/narrativeqa.py index             # the 8 novels -> ../stores/narrativeqa, then READY
    python bench/narrativeqa.py run --split design           # every method x budget on the design books
    python bench/narrativeqa.py run --split held_out         # the same on the held-out books (once per decision)

The novels and their questions are ../shared/data/narrativeqa/ (questions and two reference answers written by
people from plot summaries, not from the text).  bench/data/narrativeqa_split.json splits the whole books, drawn before
any run: design books decide, held-out books are looked at once per decision, as aggregates.

The store (``KGCORE_NARRATIVEQA_STORE``, default ../stores/narrativeqa beside the repository) is shared: other
benches read it read-only once its ``READY`` file exists.  Each novel is indexed with the default options under
its slug (``persuasion``, ``call_of_the_wild``, ...); an index already there is reused, not rebuilt.

``run`` measures each method (:data:`fused_quality.VARIANTS`: the fused GroundedKG default, its previous
graph-score ranking, ``lesegr``, ``dense``, ``bm25``, ``hybrid``) at 200 / 500 / 1,000 / 2,000 words by
answer-token recall of the context (:func:`kgcore.evaluate.metrics.answer_token_recall`: the best, over the two
reference answers, of the share of the answer's content words found among the context's words).  It writes
bench/results/narrativeqa.json: every row with its per-question figures (rows of other books, variants and
budgets kept), and :func:`summary` per split and over all eight books (``all``): each method's mean per book and
pooled over the split's books, with the paired 95% bootstrap interval of its difference to the best text method
(dense, bm25, hybrid) at that budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import RESULTS, ROOT, machine, write_json
from protocol import BUDGETS, TEXT_BASELINES, VARIANTS, Question, margin_cell, measure, paired_interval

from kgcore.api import QueryEngine, Store, index_file, load_qa

DATA = ROOT.parent / "shared" / "data" / "narrativeqa"
SPLIT = ROOT / "bench" / "data" / "narrativeqa_split.json"
STORE = Path(os.environ.get("KGCORE_NARRATIVEQA_STORE", ROOT.parent / "stores" / "narrativeqa"))
READY = "READY"


def split() -> dict[str, list[str]]:
    """The committed split: ``{"design": [...], "held_out": [...]}`` (book slugs)."""
    data = json.loads(SPLIT.read_text(encoding="utf-8"))
    return {"design": list(data["design"]), "held_out": list(data["held_out"])}


def books() -> list[str]:
    """Every book of the split, design books first (so that they are ready first)."""
    parts = split()
    return parts["design"] + parts["held_out"]


def index_all(store_root: Path = STORE) -> dict:
    """Index every book into its own collection of ``store_root``, then write ``READY`` (what was indexed, when,
    with which commit).  A book already indexed with the same bytes and options is reused."""
    store_root.mkdir(parents=True, exist_ok=True)
    ready = store_root / READY
    store, done = Store(store_root), []
    for slug in books():
        start = time.perf_counter()
        outcome = index_file(DATA / f"{slug}.txt", store, name=slug)
        done.append({"collection": slug, "reused": outcome.reused, "seconds": round(time.perf_counter() - start, 1)})
        print(json.dumps(done[-1]), flush=True)
    info = {"collections": [d["collection"] for d in done], "indexed": done, "commit": _commit(),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"), "data": str(DATA)}
    ready.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {ready}", flush=True)
    return info


def _commit() -> str:
    """The repository's HEAD commit, or ``unknown`` outside a git checkout."""
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def questions(slug: str) -> list[Question]:
    """The book's NarrativeQA questions, each with its two reference answers (no evidence: people wrote them from
    a plot summary)."""
    return [Question(item.question, tuple(item.answers), ()) for item in load_qa(DATA / f"{slug}_qa.csv")]


def book_store(slugs: list[str], store_root: Path = STORE) -> Store:
    """The shared store, once the books ``slugs`` are indexed in it (a collection appears whole, when its index is
    committed); else exit naming the missing ones and how to index them."""
    store = Store(store_root)
    if missing := [slug for slug in slugs if not store.exists(slug)]:
        raise SystemExit(f"{store_root} lacks {missing}: index the books first (python bench/narrativeqa.py index)")
    return store


def run_books(slugs: list[str], variants: list[str], budgets: list[int], engine: QueryEngine) -> list[dict]:
    """One row per (book, variant, budget): mean answer-token recall and per-question figures."""
    rows = []
    for slug in slugs:
        qs = questions(slug)
        for budget in budgets:
            for variant in variants:
                row = measure(engine, slug, qs, variant, budget)
                rows.append({"book": slug, **row})
                print(json.dumps({k: v for k, v in rows[-1].items() if k != "per_question"}), flush=True)
    return rows


def comparison(rows: list[dict]) -> dict:
    """Per variant at one budget over the same questions: its mean, and its paired difference to the best text
    method (by mean) with a 95% bootstrap interval.

    >>> rows = [{"variant": v, "per_question": q} for v, q in
    ...         (("dense", [0.5, 0.5]), ("bm25", [0.0, 1.0]), ("hybrid", [0.2, 0.2]), ("groundedkg", [1.0, 1.0]))]
    >>> c = comparison(rows)
    >>> c["best_text"], c["methods"]["groundedkg"]["margin"], c["methods"]["groundedkg"]["ci95"]
    ('dense', 0.5, [0.5, 0.5])
    """
    by = {r["variant"]: r["per_question"] for r in rows}
    means = {v: statistics.mean(q) for v, q in by.items()}
    best = max((b for b in TEXT_BASELINES if b in by), key=lambda b: means[b])
    out = {}
    for variant, values in by.items():
        entry = {"recall": round(means[variant], 3), "margin": round(means[variant] - means[best], 3)}
        if variant != best:
            entry["ci95"] = list(paired_interval(values, by[best]))
        out[variant] = entry
    return {"questions": len(by[best]), "best_text": best, "methods": out}


def summary(rows: list[dict], split_books: dict[str, list[str]]) -> dict:
    """Per split (books of it that were measured): per book and pooled over its books, per budget, the
    :func:`comparison` of the variants measured on every one of those books."""
    out: dict = {}
    for split_name, slugs in split_books.items():
        measured = [b for b in slugs if any(r["book"] == b for r in rows)]
        if not measured:
            continue
        part: dict = {"books": measured, "pooled": {}, "per_book": {b: {} for b in measured}}
        for budget in sorted({r["budget_words"] for r in rows}):
            at = [r for r in rows if r["budget_words"] == budget and r["book"] in measured]
            variants = [v for v in VARIANTS if all(any(r["book"] == b and r["variant"] == v for r in at)
                                                   for b in measured)]
            if not any(v in TEXT_BASELINES for v in variants):
                continue
            for b in measured:
                part["per_book"][b][str(budget)] = comparison([r for r in at if r["book"] == b
                                                               and r["variant"] in variants])
            part["pooled"][str(budget)] = comparison([
                {"variant": v, "per_question": [x for b in measured for r in at
                                                if r["book"] == b and r["variant"] == v for x in r["per_question"]]}
                for v in variants])
        out[split_name] = part
    return out


def save(rows: list[dict], name: str = "narrativeqa.json") -> dict:
    """Merge ``rows`` into bench/results/``name`` (replacing rows of the same book, variant and budget), recompute
    the summary over every row there and write it back."""
    path = RESULTS / name
    results = json.loads(path.read_text()) if path.exists() else {"rows": []}
    measured = {(r["book"], r["variant"], r["budget_words"]) for r in rows}
    results["rows"] = [r for r in results["rows"] if (r["book"], r["variant"], r["budget_words"]) not in measured]
    results["rows"] += rows
    results["summary"] = summary(results["rows"], {**split(), "all": books()})  # "all": both splits pooled
    results["machine"], results["commit"] = machine(), _commit()
    write_json(name, results, one_line="rows")
    return results


def table(part: dict, where: str = "pooled") -> str:
    """A markdown table (method x budget) of one split's ``summary`` part: pooled, or one book's; each cell the
    method's recall and, but for the best text method, its margin to it with the paired 95% interval.

    >>> methods = {"dense": {"recall": 0.5, "margin": 0.0},
    ...            "groundedkg": {"recall": 0.6, "margin": 0.1, "ci95": [0.0, 0.2]}}
    >>> part = {"pooled": {"500": {"questions": 2, "best_text": "dense", "methods": methods}}}
    >>> print(table(part))
    | method | 500 |
    |---|---|
    | groundedkg | 0.600 (+0.100 [+0.000, +0.200]) |
    | dense | **0.500** |
    """
    at = part["pooled"] if where == "pooled" else part["per_book"][where]
    budgets = list(at)
    lines = ["| method | " + " | ".join(budgets) + " |", "|---" * (len(budgets) + 1) + "|"]
    for variant in VARIANTS:
        cells = [margin_cell(at[b]["methods"].get(variant), "recall") for b in budgets]
        if any(cells):
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("index", help="index the 8 novels into the shared store, then write READY")
    run = sub.add_parser("run", help="every method x budget on one split's books")
    run.add_argument("--split", choices=("design", "held_out"), default="design")
    run.add_argument("--books", default="", help="comma-separated slugs of that split (default: all of them)")
    run.add_argument("--variants", default=",".join(VARIANTS))
    run.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    show = sub.add_parser("report", help="markdown tables of bench/results/narrativeqa.json")
    show.add_argument("--split", choices=("design", "held_out", "all"), default="design")
    args = parser.parse_args(argv)
    if args.command == "index":
        index_all()
        return
    if args.command == "report":
        part = json.loads((RESULTS / "narrativeqa.json").read_text())["summary"][args.split]
        for where in ["pooled", *part["books"]]:
            print(f"\n{args.split}, {where} (cell: recall (margin to the best text method [paired 95% CI]))\n")
            print(table(part, where))
        return
    slugs = split()[args.split]
    chosen = [b for b in args.books.split(",") if b] or slugs
    if unknown := [b for b in chosen if b not in slugs]:
        raise SystemExit(f"not {args.split} books: {unknown}; the split's books are {slugs}")
    engine = QueryEngine(book_store(chosen))
    for slug in chosen:  # saved book by book: a failure later keeps the books before
        save(run_books([slug], args.variants.split(","), [int(b) for b in args.budgets.split(",")], engine))


if __name__ == "__main__":
    sys.exit(main())
