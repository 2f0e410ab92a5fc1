"""Why the fused ranking loses at small budgets on people's questions: per-signal ablations on the design books.

    python bench/experiments/narrativeqa_ablations.py          # every ablation, design books, 200..2,000 words
    python bench/experiments/narrativeqa_ablations.py --ablations "default,no graph"
    python bench/experiments/narrativeqa_ablations.py --ablations "rank_k=10+w_sparse=0.7"   # "+": changed together

Each question of the NarrativeQA design books (bench/data/narrativeqa_split.json) is parsed, matched and aligned once;
the fused ranking is then re-run under each ablation (a signal removed from f0, a setting changed), so a dozen
variants of the ranking cost seconds, not hours.  Per ablation and budget: answer-token recall pooled over the
design books and per book, with the paired 95% bootstrap interval of its difference to the default ranking and to
the best text method.  Ablations that change the alignment (:data:`REMATCH`) match every question again.
``--profile LABELS`` adds, under each of those ablations, what each method's context is made of (sentences,
words, answer words per 100 context words; for the fused ranking the words of sentences whose graph signal led,
and the answer words in them and in the rest).
Never run on held-out books.  Writes bench/results/narrativeqa_ablations.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (protocol, narrativeqa)
from narrativeqa import book_store, questions, split  # noqa: E402
from narrativeqa_signals import (  # noqa: E402
    MATCH_TRANSFORMS,
    chunks_embedded,
    dense_feedback,
    dense_gates,
    passages_first,
)
from protocol import BUDGETS, TEXT_BASELINES, Question, paired_interval, setting  # noqa: E402

from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.metrics import answer_token_recall
from kgcore.index.store.in_memory import Index
from kgcore.query import align, fused
from kgcore.query import propagation as lesegr
from kgcore.query.align import GraphMatch
from kgcore.query.answer.words import content_words
from kgcore.query.engine import QueryEngine
from kgcore.query.methods.groundedkg import asked_kind, fused_budgeted, match_question


@dataclass
class Case:
    """One design question, matched once: its book's index and its :class:`GraphMatch`."""

    book: str
    index: Index
    question: Question
    match: GraphMatch
    #: The engine's spaCy pipeline as retrieval has it, which the default's asked kind reads the candidates with.
    nlp: object = None


def cases(engine: QueryEngine, slugs: list[str]) -> list[Case]:
    out = []
    for slug in slugs:
        index = engine.index(slug)
        parser = engine.parser(index.manifest.options.parser)
        for q in questions(slug):
            out.append(Case(slug, index, q, match_question(index, q.text, RetrievalOptions(), parser,
                                                           engine.embedder), engine.models().nlp))
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

    with setting(lesegr, "signals", patched):
        yield


@contextmanager
def layers_everywhere(layers: int) -> Iterator[None]:
    """``layers`` propagation layers at every budget, small ones (:data:`fused.SMALL_BUDGET_WORDS`) too."""
    with setting(lesegr, "LAYERS", layers), setting(fused, "SMALL_BUDGET_LAYERS", layers):
        yield


@contextmanager
def graph_ranked() -> Iterator[None]:
    """The graph signal on the sparse and dense signals' reciprocal-rank scale (:func:`lesegr.rank_scaled`)
    instead of divided by its best; a chunk keeps the best of its sentences."""
    original = lesegr.signals

    def patched(index, cg, *args, **kwargs) -> lesegr.Signals:
        sig = original(index, cg, *args, **kwargs)
        n, starts = cg.n_sentences, cg.chunk_spans[:, 0]
        g = lesegr.rank_scaled(sig.graph[:n], sig.scope[:n])
        return replace(sig, graph=np.r_[g, np.maximum.reduceat(g, starts) if len(starts) else np.zeros(0)])

    with setting(lesegr, "signals", patched):
        yield


@contextmanager
def graph_gated_by_text() -> Iterator[None]:
    """The graph signal multiplied by the larger of the node's sparse and dense relevance instead of its dense."""
    original = lesegr.signals

    def patched(*args, **kwargs) -> lesegr.Signals:
        sig = original(*args, **kwargs)
        return replace(sig, graph=sig.graph * np.maximum(sig.dense, sig.sparse))

    with setting(lesegr, "GRAPH_GATE", None):
        with setting(lesegr, "signals", patched):
            yield


ABLATIONS: dict[str, Callable[[], AbstractContextManager]] = {
    "default": nullcontext,
    "no graph": lambda: without("graph"),
    "no sparse": lambda: without("sparse"),
    "no dense": lambda: without("dense"),
    "graph only": lambda: without("sparse", "dense"),
    "sparse only": lambda: without("dense", "graph"),
    "dense only": lambda: without("sparse", "graph"),
    "no propagation": lambda: layers_everywhere(0),
    "no coref words in sparse": lambda: setting(lesegr, "EXPANDED", False),
    "w_graph=0.5": lambda: setting(lesegr, "W_GRAPH", 0.5),
    "w_graph=0.25": lambda: setting(lesegr, "W_GRAPH", 0.25),
    "length_exponent=0.3": lambda: setting(fused, "LENGTH_EXPONENT", 0.3),
    "length_exponent=-0.3": lambda: setting(fused, "LENGTH_EXPONENT", -0.3),
    "graph_head_words=0": lambda: setting(fused, "GRAPH_HEAD_WORDS", 0),
    "graph_head_words=500": lambda: setting(fused, "GRAPH_HEAD_WORDS", 500),
    "graph_head_words=inf": lambda: setting(fused, "GRAPH_HEAD_WORDS", 10**9),
    "w_graph=2": lambda: setting(lesegr, "W_GRAPH", 2.0),
    "w_sparse=0.5": lambda: setting(lesegr, "W_SPARSE", 0.5),
    "w_sparse=0.7": lambda: setting(lesegr, "W_SPARSE", 0.7),
    "w_sparse=1.4": lambda: setting(lesegr, "W_SPARSE", 1.4),
    "rank_k=3": lambda: setting(lesegr, "RANK_K", 3),
    "rank_k=10": lambda: setting(lesegr, "RANK_K", 10),
    "rank_k=20": lambda: setting(lesegr, "RANK_K", 20),
    "layers=2": lambda: layers_everywhere(2),
    "small budgets: 1 layer": lambda: setting(fused, "SMALL_BUDGET_LAYERS", 1),
    "no small-budget regime": lambda: setting(fused, "SMALL_BUDGET_WORDS", 0),
    "passages first (1 each)": lambda: passages_first(1),
    "passages first (2 each)": lambda: passages_first(2),
    "small budgets: 2 layers": lambda: setting(fused, "SMALL_BUDGET_LAYERS", 2),
    "small budgets: 3 layers": lambda: setting(fused, "SMALL_BUDGET_LAYERS", 3),
    "length_exponent=0.15": lambda: setting(fused, "LENGTH_EXPONENT", 0.15),
    "graph rank-scaled": graph_ranked,
    "dense reads resolved text": lambda: resolved_cosines("resolved"),
    "dense reads the better of written and resolved": lambda: resolved_cosines("max"),
    "graph added without gate": lambda: setting(lesegr, "GRAPH_GATE", None),
    "graph gated by sparse or dense": graph_gated_by_text,
    "graph = structure only": lambda: graph_evidence(structure_only),
    "graph = sentences covering two query nodes": lambda: graph_evidence(covering_two),
    "action specificity by node": lambda: setting(align, "ACTION_SPECIFICITY", "node"),
    "gates = max of sparse and dense": dense_gates,
    "chunks embedded": lambda: chunks_embedded("text"),
    "chunks embedded or mean": lambda: chunks_embedded("max"),
    "chunks embedded and spread": lambda: chunks_embedded("spread"),
    "dense feedback k=5 beta=0.5": lambda: dense_feedback(5, 0.5),
    "dense feedback k=10 beta=0.5": lambda: dense_feedback(10, 0.5),
    "dense feedback k=5 beta=1": lambda: dense_feedback(5, 1.0),
}
#: Ablations that change the alignment itself: every question is matched again under them.
REMATCH = {"action specificity by node"}


#: How an ablation changes the alignment's graph evidence before the fused ranking reads it (None: unchanged).
GRAPH_EVIDENCE: list[Callable[[Case], np.ndarray]] = []


@contextmanager
def graph_evidence(transform: Callable[[Case], np.ndarray]) -> Iterator[None]:
    GRAPH_EVIDENCE.append(transform)
    try:
        yield
    finally:
        GRAPH_EVIDENCE.pop()


def structure_only(case: Case) -> np.ndarray:
    """The graph evidence without node coverage: only query edges recurring in the sentence."""
    return case.match.alignment.structure / max(len(set(case.match.query_edges)), 1)


def covering_two(case: Case) -> np.ndarray:
    """The graph evidence where a sentence covers at least two query nodes (or a query edge), else 0."""
    a = case.match.alignment
    covered = (a.coverage > 0).sum(axis=0)
    return np.where((covered >= 2) | (a.structure > 0), a.graph, 0.0)


#: How an ablation changes the question's cosine to every sentence (the dense signal) before the ranking reads it.
SENTENCE_COSINES: list[Callable[[Case], np.ndarray]] = []


@contextmanager
def resolved_cosines(how: str) -> Iterator[None]:
    """The dense signal read from each sentence's coref-resolved text (``resolved``), or the better of the written
    and the resolved text's cosine (``max``): embeds every resolved sentence of the design books once (minutes)."""
    vectors: dict[int, np.ndarray] = {}

    def cosines(case: Case) -> np.ndarray:
        index = case.index
        if id(index) not in vectors:
            from kgcore.core.embed import embedder_for
            from kgcore.core.settings import Settings

            texts = [s.resolved or s.normalized for s in index.sentences]
            vectors[id(index)] = embedder_for(Settings.from_env()).encode(texts)
        resolved = vectors[id(index)] @ case.match.vector
        return resolved if how == "resolved" else np.maximum(resolved, case.match.sims)

    SENTENCE_COSINES.append(cosines)
    try:
        yield
    finally:
        SENTENCE_COSINES.pop()


def fused_context(case: Case, budget: int) -> list:
    """The fused ranking's selected sentences for ``case`` at ``budget`` words (under the current settings)."""
    match = MATCH_TRANSFORMS[-1](case) if MATCH_TRANSFORMS else case.match
    if GRAPH_EVIDENCE:
        match = replace(match, alignment=replace(match.alignment, graph=GRAPH_EVIDENCE[-1](case)))
    if SENTENCE_COSINES:
        match = replace(match, sims=SENTENCE_COSINES[-1](case))
    options = RetrievalOptions(budget_words=budget)
    asked = asked_kind(case.question.text, case.nlp, len(case.index.sentences)) \
        if fused_budgeted(options) else None  # the default raises the candidates holding the asked kind
    kept, _ = fused.rank_fused(case.index, case.question.text, match, options, asked=asked)
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
    indexes = list({id(c.index): c.index for c in all_cases}.values())
    for label in labels:
        with ExitStack() as stack:
            for part in label.split("+"):  # "a+b": both changed together
                stack.enter_context(ABLATIONS[part.strip()]())
            for index in indexes:
                index.cache.drop(fused.GATED)
                index.cache.drop(align.INCIDENCE)
            rematch = any(part.strip() in REMATCH for part in label.split("+"))
            matched = cases(engine, sorted({c.book for c in all_cases})) if rematch else all_cases
            per_label[label] = {b: [recall(c, fused_context(c, b)) for c in matched] for b in budgets}
        for index in indexes:
            index.cache.drop(align.INCIDENCE)
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
    led = [s for s in sentences if s.signals and s.signals["graph"] > max(s.signals["lexical"], s.signals["dense"])]
    led_words = sum(len(s.text.split()) for s in led)
    led_found = sum(len(content_words(s.text) & wanted) for s in led)
    return {"sentences": len(sentences), "words": words, "answer_words_per_100": 100 * found / max(words, 1),
            "graph_led_words": led_words, "graph_led_answer_words": led_found,
            "other_answer_words": found - led_found}


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


def merged(old: dict | None, new: dict) -> dict:
    """``new`` with the labels only ``old`` has kept (each label's figures are against the same default and
    text baselines, so a run of a few ablations adds to the table instead of replacing it)."""
    if not old or old.get("questions") != new["questions"]:
        return new
    budgets = {**old["budgets"], **new["budgets"]}  # budgets only the old run measured are kept as they were
    new["budgets"] = {b: budgets[b] for b in sorted(budgets, key=int)}
    for budget, entry in new["budgets"].items():
        before = old["budgets"].get(budget, {})
        for part in ("vs_default", "vs_best_text"):
            entry[part] = {**before.get(part, {}), **entry[part]}
        for book, figures in entry["per_book"].items():
            figures.update({k: v for k, v in before.get("per_book", {}).get(book, {}).items() if k not in figures})
    return new


def main(argv: list[str] | None = None) -> None:
    from common import RESULTS, write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ablations", default=",".join(ABLATIONS), help="comma-separated; '' runs none")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--profile", default="", help="comma-separated ablations to profile the contexts under")
    parser.add_argument("--books", default="", help="comma-separated design books (default: all five)")
    parser.add_argument("--out", default="narrativeqa_ablations.json", help="results file in bench/results/")
    args = parser.parse_args(argv)
    slugs = [b for b in args.books.split(",") if b] or split()["design"]
    if held := [b for b in slugs if b not in split()["design"]]:
        raise SystemExit(f"ablations run on design books only, not {held}")
    engine = QueryEngine(book_store(slugs))
    all_cases = cases(engine, slugs)
    budgets = [int(b) for b in args.budgets.split(",")]
    path = RESULTS / args.out
    result = json.loads(path.read_text()) if path.exists() else {}
    result["books"] = slugs
    if labels := [a for a in args.ablations.split(",") if a]:
        result["ablations"] = merged(result.get("ablations"), run(all_cases, labels, budgets, engine))
    for label in (a for a in args.profile.split(",") if a):
        with ABLATIONS[label]():
            result.setdefault("profile", {})[label] = profiles(all_cases, budgets, engine)
    write_json(args.out, result)


if __name__ == "__main__":
    main()
