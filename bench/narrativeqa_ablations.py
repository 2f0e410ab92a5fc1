"""Why the fused ranking loses at small budgets on people's questions: per-signal ablations on the design books.

    python bench/narrativeqa_ablations.py                      # every ablation, design books, 200..2,000 words
    python bench/narrativeqa_ablations.py --ablations "default,no graph"

Each question of the NarrativeQA design books (bench/narrativeqa_split.json) is parsed, matched and aligned once;
the fused ranking is then re-run under each ablation (a signal removed from f0, a setting changed), so a dozen
variants of the ranking cost seconds, not hours.  Per ablation and budget: answer-token recall pooled over the
design books and per book, with the paired 95% bootstrap interval of its difference to the default ranking and to
the best text method.  ``--profile`` adds what each method's context is made of (sentences, words per sentence,
answer words per 100 context words; for the fused ranking the words spent on sentences whose graph signal led).
Never run on held-out books.  Writes bench/results/narrativeqa_ablations.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace

import numpy as np
from fused_quality import BUDGETS, TEXT_BASELINES, Question, paired_interval, setting
from narrativeqa import book_store, questions, split

from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.metrics import answer_token_recall
from kgcore.index.contextual import context_graph
from kgcore.index.store import Index
from kgcore.query import fused, lesegr
from kgcore.query.align import GraphMatch
from kgcore.query.answer.words import content_words
from kgcore.query.engine import QueryEngine
from kgcore.query.retrieve import match_question


@dataclass
class Case:
    """One design question, matched once: its book's index and its :class:`GraphMatch`."""

    book: str
    index: Index
    question: Question
    match: GraphMatch


def cases(engine: QueryEngine, slugs: list[str]) -> list[Case]:
    out = []
    for slug in slugs:
        index = engine.index(slug)
        parser = engine.parser(index.manifest.options.parser)
        for q in questions(slug):
            out.append(Case(slug, index, q, match_question(index, q.text, RetrievalOptions(), parser,
                                                           engine.embedder)))
        print(f"matched {slug}", flush=True)
    return out


@contextmanager
def without(*names: str) -> Iterator[None]:
    """The named signals (``sparse``, ``dense``, ``graph``) zeroed in f0; the message gates stay BM25's."""
    original = lesegr.signals

    def patched(*args, **kwargs) -> lesegr.Signals:
        sig = original(*args, **kwargs)
        gates = sig.gates if sig.gates is not None else sig.sparse
        return replace(sig, gates=gates, **{n: np.zeros_like(getattr(sig, n)) for n in names})

    lesegr.signals = patched
    try:
        yield
    finally:
        lesegr.signals = original


ABLATIONS: dict[str, Callable[[], AbstractContextManager]] = {
    "default": nullcontext,
    "no graph": lambda: without("graph"),
    "no sparse": lambda: without("sparse"),
    "no dense": lambda: without("dense"),
    "graph only": lambda: without("sparse", "dense"),
    "sparse only": lambda: without("dense", "graph"),
    "dense only": lambda: without("sparse", "graph"),
    "no propagation": lambda: setting(lesegr, "LAYERS", 0),
    "no coref words in sparse": lambda: setting(lesegr, "EXPANDED", False),
    "w_graph=0.5": lambda: setting(lesegr, "W_GRAPH", 0.5),
    "w_graph=0.25": lambda: setting(lesegr, "W_GRAPH", 0.25),
    "length_exponent=0.3": lambda: setting(fused, "LENGTH_EXPONENT", 0.3),
    "length_exponent=-0.3": lambda: setting(fused, "LENGTH_EXPONENT", -0.3),
    "graph_head_words=0": lambda: setting(fused, "GRAPH_HEAD_WORDS", 0),
}


def fused_context(case: Case, budget: int) -> list:
    """The fused ranking's selected sentences for ``case`` at ``budget`` words (under the current settings)."""
    kept, _ = fused.rank_fused(case.index, case.question.text, case.match, RetrievalOptions(budget_words=budget))
    return kept


def text_context(case: Case, method: str, budget: int, engine: QueryEngine) -> list:
    options = RetrievalOptions(method=method, budget_words=budget)
    return engine.retrieve(case.book, case.question.text, options).sentences


def recall(case: Case, sentences: list) -> float:
    return answer_token_recall(list(case.question.answers), [s.text for s in sentences])


def compare(values: dict[str, list[float]], against: list[float]) -> dict:
    """Each list's mean and its paired difference to ``against`` with a 95% interval."""
    out = {}
    for name, vs in values.items():
        lo, hi = paired_interval(vs, against)
        out[name] = {"recall": round(statistics.mean(vs), 3),
                     "diff": round(statistics.mean(vs) - statistics.mean(against), 3), "ci95": [lo, hi]}
    return out


def run(all_cases: list[Case], labels: list[str], budgets: list[int], engine: QueryEngine) -> dict:
    text = {b: {m: [recall(c, text_context(c, m, b, engine)) for c in all_cases] for m in TEXT_BASELINES}
            for b in budgets}
    per_label: dict[str, dict[int, list[float]]] = {}
    for label in labels:
        with ABLATIONS[label]():
            for index in {id(c.index): c.index for c in all_cases}.values():
                index.cache.drop(fused.GATED)
            per_label[label] = {b: [recall(c, fused_context(c, b)) for c in all_cases] for b in budgets}
        print(label, {b: round(statistics.mean(v), 3) for b, v in per_label[label].items()}, flush=True)
    out: dict = {"questions": len(all_cases), "budgets": {}}
    books = sorted({c.book for c in all_cases})
    for b in budgets:
        best = max(TEXT_BASELINES, key=lambda m: statistics.mean(text[b][m]))
        entry = {"best_text": best, "text": {m: round(statistics.mean(v), 3) for m, v in text[b].items()},
                 "vs_default": compare({k: v[b] for k, v in per_label.items() if k != "default"},
                                       per_label["default"][b]) if "default" in per_label else {},
                 "vs_best_text": compare({k: v[b] for k, v in per_label.items()}, text[b][best]),
                 "per_book": {}}
        for book in books:
            rows = [i for i, c in enumerate(all_cases) if c.book == book]
            figures = {**{k: v[b] for k, v in per_label.items()}, **text[b]}
            entry["per_book"][book] = {k: round(statistics.mean(v[i] for i in rows), 3) for k, v in figures.items()}
        out["budgets"][str(b)] = entry
    return out


def profile(sentences: list, answers: tuple[str, ...]) -> dict:
    """What one context is made of: sentences, words, answer content words per 100 words, and (fused ranking)
    the words of sentences whose graph signal was their largest."""
    words = sum(len(s.text.split()) for s in sentences)
    wanted = set().union(*(content_words(a) for a in answers)) if answers else set()
    found = sum(len(content_words(s.text) & wanted) for s in sentences)
    led = sum(len(s.text.split()) for s in sentences if s.signals and s.signals["graph"] > max(
        s.signals["lexical"], s.signals["dense"]))
    return {"sentences": len(sentences), "words": words, "answer_words_per_100": 100 * found / max(words, 1),
            "graph_led_words": led}


def profiles(all_cases: list[Case], budgets: list[int], engine: QueryEngine) -> dict:
    out: dict = {}
    for b in budgets:
        for method in ("groundedkg", *TEXT_BASELINES):
            found = [profile(fused_context(c, b) if method == "groundedkg" else text_context(c, method, b, engine),
                             c.question.answers) for c in all_cases]
            out.setdefault(str(b), {})[method] = {k: round(statistics.mean(f[k] for f in found), 2)
                                                  for k in found[0]}
        print(b, json.dumps(out[str(b)]), flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    from common import write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ablations", default=",".join(ABLATIONS))
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--books", default="", help="comma-separated design books (default: all five)")
    args = parser.parse_args(argv)
    slugs = [b for b in args.books.split(",") if b] or split()["design"]
    if held := [b for b in slugs if b not in split()["design"]]:
        raise SystemExit(f"ablations run on design books only, not {held}")
    engine = QueryEngine(book_store(slugs))
    all_cases = cases(engine, slugs)
    for c in all_cases:
        context_graph(c.index)
    budgets = [int(b) for b in args.budgets.split(",")]
    result = {"books": slugs, "ablations": run(all_cases, args.ablations.split(","), budgets, engine)}
    if args.profile:
        result["profile"] = profiles(all_cases, budgets, engine)
    write_json("narrativeqa_ablations.json", result)


if __name__ == "__main__":
    main()
