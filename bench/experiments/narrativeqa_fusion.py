"""Ranking changes tried where the fused ranking was weakest on people's questions (NarrativeQA design books): the
question's names (its characters, found with coreference) weighted up, BM25's or dense retrieval's own rank fused
into the score, the names in the message gates, the low-confidence tail diversified by passage, the question's
dense vector moved towards its embedding without its names (or as a statement, or away from its names alone).

    python bench/experiments/narrativeqa_fusion.py                       # every variant, 200..2,000 words
    python bench/experiments/narrativeqa_fusion.py --variants "name_weight=2" --budgets 1000

Every variant is measured against the fused ranking without the question's names (``no names``:
``fused.NAME_WEIGHT = 0``, the default before they were weighed); the patched variants turn the names off
themselves, so each changes one thing.  Each design question is matched once (the matches are kept under /tmp
between runs); the text methods' per-question figures are read from bench/results/narrativeqa.json (the same
questions in the same order).  Per variant and budget: pooled recall, the paired 95% interval against ``no names``
and against the best text method, per book.  Never run on held-out books.  Writes
bench/results/narrativeqa_fusion.json.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
sys.path.insert(0, str(Path(__file__).resolve().parent))
from narrativeqa import book_store, questions, split  # noqa: E402
from narrativeqa_ablations import Case, compare, fused_context, recall  # noqa: E402
from narrativeqa_ablations import merged as merged_labels  # noqa: E402
from protocol import BUDGETS, TEXT_BASELINES, setting  # noqa: E402

from kgcore.core.settings import RetrievalOptions
from kgcore.query import fused, names
from kgcore.query import propagation as lesegr
from kgcore.query.engine import QueryEngine
from kgcore.query.methods.groundedkg import match_question
from kgcore.query.sentence_ranking import bm25_tokens, sentence_bm25

CACHE = Path("/tmp/kgcore-narrativeqa-matches")
BASELINE = "no names"
#: What the patched signals saw last (the question's BM25 rank over the written words, its dense rank), per
#: sentence, for the late fusions.
LAST: dict[str, np.ndarray] = {}


def cached_cases(engine: QueryEngine, slugs: list[str]) -> list[Case]:
    """Every design question of ``slugs`` matched once (kept under :data:`CACHE` by book)."""
    out = []
    for slug in slugs:
        index, qs, path = engine.index(slug), questions(slug), CACHE / f"{slug}.pkl"
        if path.exists():
            matches = pickle.loads(path.read_bytes())
        else:
            parser = engine.parser(index.manifest.options.parser)
            matches = [match_question(index, q.text, RetrievalOptions(), parser, engine.embedder) for q in qs]
            CACHE.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(matches))
        out += [Case(slug, index, q, m) for q, m in zip(qs, matches, strict=True)]
    return out


def text_figures(slugs: list[str], budgets: list[int]) -> dict[int, dict[str, list[float]]]:
    """The text methods' per-question recall from bench/results/narrativeqa.json, books in ``slugs`` order."""
    rows = json.loads((Path(__file__).resolve().parents[1] / "results" / "narrativeqa.json").read_text())["rows"]
    return {b: {m: [x for s in slugs for r in rows if r["book"] == s and r["variant"] == m and r["budget_words"] == b
                    for x in r["per_question"]] for m in TEXT_BASELINES} for b in budgets}


@contextmanager
def patched(how: str, w: float) -> Iterator[None]:
    """The fused ranking without names, its signals changed by ``how`` with weight ``w`` (see :data:`VARIANTS`)."""
    original = lesegr.signals

    def signals(index, cg, question, vector, sims, scope, graph=None):
        sig = original(index, cg, question, vector, sims, scope, graph=graph)
        n = cg.n_sentences
        LAST["bm25"] = lesegr.rank_scaled(sentence_bm25(index, bm25_tokens(question)), sig.scope[:n])
        LAST["dense"] = sig.dense[:n]
        share = names.name_share(index, cg, question)
        share = np.zeros(len(sig.sparse)) if share is None else share
        if how == "names x sentences":  # the three signals scaled (the ranking sets its own focus after this)
            f = 1.0 + w * np.r_[share[:n], np.zeros(len(share) - n)]
            return replace(sig, sparse=sig.sparse * f, dense=sig.dense * f, graph=sig.graph * f)
        if how == "names in gates":
            return replace(sig, gates=(sig.gates if sig.gates is not None else sig.sparse) * (1.0 + w * share))
        if how == "names gated by dense":
            return replace(sig, graph=sig.graph + w * share * sig.dense)
        if how == "bm25 in f0":
            return replace(sig, sparse=sig.sparse + w * np.r_[LAST["bm25"], np.zeros(len(sig.sparse) - n)])
        return sig

    with setting(fused, "NAME_WEIGHT", 0.0), setting(lesegr, "signals", signals):
        yield


@contextmanager
def late(which: str, w: float) -> Iterator[None]:
    """The final score plus ``w`` times the best final score times a text method's own rank (reciprocal-rank
    scale, :func:`lesegr.rank_scaled`) before the budget cuts: rank fusion of the fused order with BM25's or
    dense retrieval's."""
    original = fused._ranked

    def ranked(index, final, options):
        extra = np.zeros_like(final)
        extra[: len(LAST[which])] = LAST[which]
        return original(index, np.where(final > 0, final + w * extra * final.max(), 0.0), options)

    with patched("", 0.0), setting(fused, "_ranked", ranked):
        yield


@contextmanager
def tail_passages(fraction: float, cap: int = 1) -> Iterator[None]:
    """The fused order with its low-confidence tail (final score under ``fraction`` of the best) diversified by
    passage: a tail sentence whose passage already has ``cap`` sentences ranked above it waits behind the rest of
    the tail (the head keeps its order)."""
    from kgcore.index.views.contextual import context_graph

    original = fused._ranked

    def ranked(index, final, options):
        order = original(index, final, options)
        if not len(order):
            return order
        chunk_of = context_graph(index).chunk_of
        tail = final[order] < fraction * final[order[0]]
        seen: dict[int, int] = {}
        late = np.zeros(len(order), dtype=bool)
        for k, row in enumerate(order):
            c = int(chunk_of[row])
            late[k] = tail[k] and seen.get(c, 0) >= cap
            seen[c] = seen.get(c, 0) + 1
        return np.r_[order[~late], order[late]]

    with setting(fused, "_ranked", ranked):
        yield


@contextmanager
def dense_feedback(k: int, beta: float) -> Iterator[None]:
    """Pseudo-relevance feedback on the question's embedding (Rocchio): the vector moved towards the mean of its
    ``k`` nearest sentences in scope, ``q + beta * mean``, renormalised, before every dense signal is computed
    (sentences and chunks).  Names kept as in the default."""
    original = lesegr.signals

    def signals(index, cg, question, vector, sims, scope, graph=None, scales=None):
        sims = np.asarray(sims)
        masked = np.where(scope, sims, -np.inf) if scope is not None else sims
        top = np.argpartition(-masked, min(k, len(masked) - 1))[:k]
        moved = vector + beta * index.sentence_vectors[top].mean(axis=0)
        moved = moved / np.linalg.norm(moved)
        return original(index, cg, question, moved, index.sentence_vectors @ moved, scope, graph=graph,
                        scales=scales)

    with setting(lesegr, "signals", signals):
        yield


#: The engine's embedder, for variants that embed the question again (set by :func:`main`).
EMBEDDER: list = []
_EMBEDDED: dict[str, np.ndarray] = {}
_WH = re.compile(r"^\s*(?:who|whom|whose|what|which|where|when|why|how)"
                 r"(?:\s+(?:many|much|long|old|far|big|large|often))?"
                 r"(?:\s+(?:do|does|did|is|was|are|were|has|have|had|will|would|can|could|should|might))?\s+",
                 re.IGNORECASE)


def nameless(question: str) -> str:
    """The question with its names (:func:`names.question_names`' capitalised words past the first) replaced by
    "someone": what it asks, not whom about ("Who does someone become engaged to?")."""
    first = names._CAPITALISED.search(question)
    cut = first.end() if first else 0
    return question[:cut] + names._CAPITALISED.sub("someone", question[cut:])


def statement(question: str) -> str:
    """The question without its wh-word and auxiliary: "Who does Louisa become engaged to?" -> "Louisa become
    engaged to"."""
    return _WH.sub("", question).rstrip(" ?")


#: How a variant rewrites the question before embedding it, and how the two vectors combine (``q`` the question's,
#: ``o`` the rewrite's, ``a`` the weight; inf: the rewrite alone).
REWRITES: dict[str, tuple[Callable[[str], str], Callable[[np.ndarray, np.ndarray, float], np.ndarray]]] = {
    "without names": (nameless, lambda q, o, a: o if a == float("inf") else q + a * o),
    "as statement": (statement, lambda q, o, a: o if a == float("inf") else q + a * o),
    "minus names": (lambda q: " ".join(names._CAPITALISED.findall(q)[1:]), lambda q, o, a: q - a * o),
}


@contextmanager
def rewritten(how: str, alpha: float) -> Iterator[None]:
    """The question's dense vector combined with the embedding of the question rewritten (:data:`REWRITES`),
    renormalised, before every dense signal (sentences and chunks).  A people's question names its character, and
    MiniLM's embedding of a short question is mostly the name: a sentence that names Louisa and says nothing else
    is close to "Who does Louisa become engaged to?"."""
    original = lesegr.signals
    rewrite, combine = REWRITES[how]

    def signals(index, cg, question, vector, sims, scope, graph=None, scales=None):
        text = rewrite(question)
        if text == question or not text:
            return original(index, cg, question, vector, sims, scope, graph=graph, scales=scales)
        if text not in _EMBEDDED:
            _EMBEDDED[text] = EMBEDDER[0].encode([text])[0]
        moved = combine(vector, _EMBEDDED[text], alpha)
        moved = moved / np.linalg.norm(moved)
        return original(index, cg, question, moved, index.sentence_vectors @ moved, scope, graph=graph,
                        scales=scales)

    with setting(lesegr, "signals", signals):
        yield


VARIANTS: dict[str, Callable[[], AbstractContextManager]] = {
    BASELINE: lambda: setting(fused, "NAME_WEIGHT", 0.0),
    **{f"name_weight={w}": (lambda w=w: setting(fused, "NAME_WEIGHT", w)) for w in (0.25, 0.5, 1.0, 2.0, 4.0)},
    "names at every budget": lambda: setting(fused, "name_weight_for", lambda budget: 1.0),
    "names on sentences only, every budget 1.0": lambda: patched("names x sentences", 1.0),
    **{f"{how} {w}": (lambda how=how, w=w: patched(how, w))
       for how in ("names gated by dense", "names in gates", "bm25 in f0") for w in (0.25, 0.5, 1.0)},
    **{f"late {which} {w}": (lambda which=which, w=w: late(which, w))
       for which in ("bm25", "dense") for w in (0.25, 0.5, 1.0)},
    "with names": nullcontext,
    **{f"with names: dense feedback k={k} beta={b}": (lambda k=k, b=b: dense_feedback(k, b))
       for k in (3, 10) for b in (0.5, 1.0)},
    **{f"with names: dense {how} {a}": (lambda how=how, a=a: rewritten(how, a))
       for how, weights in (("without names", (0.25, 0.5, 1.0, float("inf"))), ("as statement", (0.5, 1.0)),
                            ("minus names", (0.1, 0.2, 0.3))) for a in weights},
    **{f"with names: tail under {f} by passage": (lambda f=f: tail_passages(f)) for f in (0.5, 0.7, 0.85)},
}


def run(all_cases: list[Case], labels: list[str], budgets: list[int]) -> dict:
    slugs = list(dict.fromkeys(c.book for c in all_cases))
    text = text_figures(slugs, budgets)
    per: dict[str, dict[int, list[float]]] = {}
    indexes = list({id(c.index): c.index for c in all_cases}.values())
    for label in dict.fromkeys([BASELINE, *labels]):
        with ExitStack() as stack:
            for part in label.split("&"):  # "a&b": both changed together
                stack.enter_context(VARIANTS[part.strip()]())
            for index in indexes:
                index.cache.drop(fused.GATED)
            per[label] = {b: [recall(c, fused_context(c, b)) for c in all_cases] for b in budgets}
        print(label, {b: round(statistics.mean(v), 3) for b, v in per[label].items()}, flush=True)
    out: dict = {"questions": len(all_cases), "books": slugs, "against": BASELINE, "budgets": {}}
    for b in budgets:
        best = max(TEXT_BASELINES, key=lambda m: statistics.mean(text[b][m]))
        out["budgets"][str(b)] = {
            "best_text": best, "text": {m: round(statistics.mean(v), 3) for m, v in text[b].items()},
            "vs_default": compare({k: v[b] for k, v in per.items() if k != BASELINE}, per[BASELINE][b]),
            "vs_best_text": compare({k: v[b] for k, v in per.items()}, text[b][best]),
            "per_book": {book: {k: round(statistics.mean(v[b][i] for i, c in enumerate(all_cases) if c.book == book),
                                         3) for k, v in per.items()} for book in slugs}}
    return out


def merged(old: dict, new: dict) -> dict:
    """``new`` with the variants only ``old`` measured kept (:func:`narrativeqa_ablations.merged`), when both were
    measured against the same baseline."""
    return merged_labels(old, new) if old.get("against") == new["against"] else new


def main(argv: list[str] | None = None) -> None:
    from common import RESULTS, write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated; '&' joins two")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--out", default="narrativeqa_fusion.json", help="results file in bench/results/")
    args = parser.parse_args(argv)
    slugs = split()["design"]
    engine = QueryEngine(book_store(slugs))
    EMBEDDER.append(engine.embedder)
    all_cases = cached_cases(engine, slugs)
    result = run(all_cases, [v for v in args.variants.split(",") if v], [int(b) for b in args.budgets.split(",")])
    path = RESULTS / args.out
    write_json(args.out, {"ablations": merged(json.loads(path.read_text())["ablations"] if path.exists() else {},
                                              result)})


if __name__ == "__main__":
    main()
