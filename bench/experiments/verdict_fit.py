"""Would fitted weights choose the answering sentence better than the hand-set ones?  A learned alternative to
:data:`kgcore.query.answer.weights.RULES`, measured on the design questions of the verdict bench only (held-out
books and papers are never read).

    python bench/experiments/verdict_fit.py --store /work/stores/verdict               # collect (cached), fit, report

Every design question of :mod:`verdict_sets` (papers, QASPER's answerable questions, the NarrativeQA design
books) is retrieved as the app retrieves it (GroundedKG, 1,000 words, within its paper) and every context
sentence gets the features of :mod:`kgcore.query.answer.weights`; its label is the truth the answer would get by
quoting it (it holds at least half of a reference answer's content words that the question does not say,
:func:`kgcore.evaluate.correct.answer_share`).
A logistic regression (scikit-learn, L2, ``C`` below) over all sentences gives the weights; its log-odds rank
the sentences.

Reported (``bench/results/verdict_fit.json``): per set, the share of questions whose top sentence holds the
answer with :data:`~kgcore.query.answer.weights.RULES` and with weights fitted on the other two sets (leave
one set out), and the fitted model's log-loss there.  When it was run (before the hand-set weights were
chosen, and again after), the fitted weights did no better on any set, so the answerers use none.  Candidates
are cached in ``bench/data/verdict/candidates.json`` (``--reuse``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)
from common import ROOT, write_json  # noqa: E402
from verdict_sets import items, split  # noqa: E402

from kgcore.api import answer_share  # noqa: E402
from kgcore.core.settings import RetrievalOptions
from kgcore.index.store.disk import Store
from kgcore.query.answer import select
from kgcore.query.answer.base import ParseMemo
from kgcore.query.answer.weights import FEATURES, RULES, Weights
from kgcore.query.engine import QueryEngine

CACHE = ROOT / "bench" / "stores" / "verdict" / "candidates.json"
SETS = ("papers", "qasper", "novels")
#: Inverse L2 strength (scikit-learn's ``C``); few questions, so the weights are kept small.
C = 1.0


def collect(set_name: str, store_root: Path, novels: Path) -> list[dict]:
    """Per design question of ``set_name``: its references and every context sentence's features and label."""
    store = Store(novels if set_name == "novels" else store_root)
    engine = QueryEngine(store)
    books = split(set_name)["design"] if set_name == "novels" else []
    questions = [q for q in items(set_name, "design", {b: b for b in books}) if q.kind == "answerable"]
    generator = engine.generator("extractive")
    out = []
    for item in questions:
        options = RetrievalOptions(budget_words=1000, documents=(item.document,) if item.document else ())
        result = engine.retrieve(item.collection, item.question, options)
        if not result.sentences:
            continue
        memo = ParseMemo(generator.nlp)
        parsed = select.Question.parse(item.question, memo)
        scored = select.score_sentences(item.question, parsed, result.sentences, memo, generator.embedder)
        out.append({"set": set_name, "question": item.question, "answers": list(item.answers), "candidates": [
            {"id": s.sentence.id, "text": s.sentence.text, "spans": s.spans, "features": s.features,
             "label": answer_share(s.sentence.text, item.answers, item.question) >= 0.5} for s in scored]})
        print(set_name, len(out), flush=True)
    return out


def matrix(questions: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    rows = [c for q in questions for c in q["candidates"]]
    return (np.array([[c["features"][f] for f in FEATURES] for c in rows], dtype=float),
            np.array([c["label"] for c in rows], dtype=int))


def fit(questions: list[dict]) -> Weights:
    from sklearn.linear_model import LogisticRegression

    x, y = matrix(questions)
    model = LogisticRegression(C=C, max_iter=2000).fit(x, y)
    return Weights("fitted", {f: round(float(w), 4) for f, w in zip(FEATURES, model.coef_[0])},
                   round(float(model.intercept_[0]), 4))


def top_right(questions: list[dict], weights: Weights) -> float:
    """The share of questions whose best-scored sentence holds the answer."""
    hits = [max(q["candidates"], key=lambda c: weights.score(c["features"]))["label"] for q in questions]
    return round(float(np.mean(hits)), 3) if hits else float("nan")


def log_loss(questions: list[dict], weights: Weights) -> float:
    score = np.array([weights.score(c["features"]) for q in questions for c in q["candidates"]])
    p = np.clip(1.0 / (1.0 + np.exp(-np.clip(score, -30, 30))), 1e-6, 1 - 1e-6)
    y = np.array([c["label"] for q in questions for c in q["candidates"]], dtype=float)
    return round(float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))), 4)


def evaluate(data: list[dict]) -> dict:
    """Per set: the top sentence's right-rate with the rules and with weights fitted on the other sets."""
    out = {}
    for name in SETS:
        inside = [q for q in data if q["set"] == name]
        others = [q for q in data if q["set"] != name]
        if not inside or not others:
            continue
        held = fit(others)
        out[name] = {"questions": len(inside), "answerable_in_context": sum(
            any(c["label"] for c in q["candidates"]) for q in inside),
            "top_right_rules": top_right(inside, RULES), "top_right_fitted_without_it": top_right(inside, held),
            "log_loss_fitted_without_it": log_loss(inside, held)}
        print(name, out[name], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=ROOT / "bench" / "data" / "verdict_store")
    parser.add_argument("--novels", type=Path, default=Path("/work/stores/narrativeqa"))
    parser.add_argument("--reuse", action="store_true", help="read the candidates cached by an earlier run")
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    select.TOP_RANKED, select.SHORTLIST = 0, 10_000  # every context sentence is a candidate
    if args.reuse and CACHE.is_file():
        data = json.loads(CACHE.read_text(encoding="utf-8"))
    else:
        data = [q for name in args.sets.split(",") for q in collect(name, args.store, args.novels)]
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps(data), encoding="utf-8")
    report = evaluate(data)
    weights = fit(data)
    x, y = matrix(data)
    write_json("verdict_fit.json", {"questions": len(data), "sentences": int(len(y)), "holding": int(y.sum()),
                                    "leave_one_set_out": report, "fitted_on_all": weights.weights,
                                    "bias": weights.bias, "rules": RULES.weights})


if __name__ == "__main__":
    main()
