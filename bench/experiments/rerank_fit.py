"""Are the offline reranker's hand-set weights the best the dev questions support?  Dev sets only.

For every dev question (Peter Rabbit dev, Crusoe dev and dev-extra, Phantom dev and dev-extra) the ``qa-kg``
answerer's candidate pairs over groundedkg's 1,000-word context are collected with their features
(:mod:`kgcore.query.rerank.base`) and each candidate's answer is scored against the references (ROUGE-L, exact
match).  Weights are then fitted leaving one dev set out at a time, and the top-ranked answer of the set left
out is compared under the fitted weights and the hand-set :data:`~kgcore.query.rerank.base.WEIGHTS`.  Two fits:

* ``pairwise``: a logistic regression (scikit-learn; no intercept: a ranking needs none) on "this candidate's
  answer is better than that one's" within each question;
* ``listwise``: the weights (from the hand-set ones, scipy's Powell search) that maximise the expected ROUGE-L of
  a softmax choice among each question's candidates (ListNet's view: only the top of each list matters), with a
  small pull towards the hand-set weights.  The wh-word rule (a short answer of the wrong kind gives way to the
best sentence's clause, :func:`~kgcore.query.answer.short.clause_instead`) is applied as the answerer applies it.

Held-out splits are never read.  Candidates are cached in bench/data/rerank_candidates.json (``--reuse``); results
go to bench/results/rerank_fit.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import STORE_ROOT, write_json
from retrieval_quality import SETS

from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.metrics import exact_match, rouge_l
from kgcore.evaluate.qaset import load_qa
from kgcore.index.store.disk import Store
from kgcore.query.answer.base import ParseMemo
from kgcore.query.answer.select import Question, score_sentences
from kgcore.query.answer.short import WH_KINDS
from kgcore.query.engine import QueryEngine
from kgcore.query.qakg import qa_answer_graph
from kgcore.query.rerank.base import WEIGHTS

DEV = (("peter", "dev"), ("crusoe", "dev"), ("crusoe", "dev-extra"), ("phantom", "dev"), ("phantom", "dev-extra"))
FEATURES = tuple(WEIGHTS)
CACHE = Path(__file__).resolve().parents[1] / "stores" / "rerank_candidates.json"
#: Two candidates form a training pair when their answers' ROUGE-L differ by at least this much.
MIN_GAP = 0.25


def collect(engine: QueryEngine, key: str, split: str) -> list[dict]:
    """Per question: its references, the clause the answerer would fall back to, and every candidate."""
    doc_id, _, splits = SETS[key]
    generator, index = engine.generator("qa-kg"), engine.index(doc_id)
    qa = qa_answer_graph(index, engine.embedder)
    out = []
    for item in (i for path in splits[split] for i in load_qa(path)):
        result = engine.retrieve(doc_id, item.question, RetrievalOptions(method="groundedkg", budget_words=1000))
        nlp = ParseMemo(generator.nlp)
        parsed = Question.parse(item.question, nlp)
        scored = score_sentences(item.question, parsed, result.sentences, nlp, generator.embedder)
        if not scored:
            continue
        found = generator.ranked_answers(item.question, parsed, scored, result.sentences, qa)
        ranked, expected = found.ranked, found.expected
        clause = generator._clause(parsed, scored[0].sentence, nlp)  # as generate() falls back to it
        out.append({"set": f"{key}-{split}", "question": item.question, "references": list(item.answers),
                    "expected": expected, "clause": clause, "candidates": [
                        {"answer": c.pair.statement if expected == "action" and c.pair.statement else c.pair.answer,
                         "index": c.index, "features": c.features, "role": c.pair.role,
                         "answer_type": c.pair.answer_type, "pair_question": c.pair.question}
                        for c in ranked]})
    return out


def answer_of(question: dict, weights: dict[str, float]) -> str:
    """The answer text the answerer gives under ``weights`` (the best candidate, or the clause by the wh rule)."""
    cands = question["candidates"]
    if not cands:
        return ""
    best = min(cands, key=lambda c: (-sum(weights.get(k, 0.0) * v for k, v in c["features"].items()), c["index"]))
    if best["features"].get("type") == 0.0 and question["expected"] in WH_KINDS:
        return question["clause"]
    return best["answer"]


def metrics(answered: list[tuple[str, list[str]]]) -> dict:
    """Mean EM and ROUGE-L (in %) of (answer, references) pairs."""
    return {"em": round(100 * statistics.mean(exact_match(a, r) for a, r in answered), 1),
            "rouge_l": round(100 * statistics.mean(rouge_l(a, r) for a, r in answered), 1)}


def scores(questions: list[dict], weights: dict[str, float]) -> dict:
    return metrics([(answer_of(q, weights), q["references"]) for q in questions])


def oracle(questions: list[dict]) -> dict:
    """The ceiling of any ranking: each question's best candidate answer (or its clause), by ROUGE-L."""
    return metrics([(max([q["clause"], *(c["answer"] for c in q["candidates"])],
                         key=lambda a, q=q: rouge_l(a, q["references"])), q["references"]) for q in questions])


def features_and_gains(q: dict) -> tuple[np.ndarray, np.ndarray]:
    """A question's candidates as a (candidates x :data:`FEATURES`) matrix, and each one's answer's ROUGE-L."""
    return (np.array([[c["features"].get(k, 0.0) for k in FEATURES] for c in q["candidates"]]),
            np.array([rouge_l(c["answer"], q["references"]) for c in q["candidates"]]))


def training_pairs(questions: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Feature differences of candidate pairs whose ROUGE-L differ by :data:`MIN_GAP` (both orders)."""
    rows = []
    for q in questions:
        feats, gains = features_and_gains(q)
        for i in range(len(gains)):
            for j in range(len(gains)):
                if gains[i] - gains[j] >= MIN_GAP:
                    rows.append(feats[i] - feats[j])
    x = np.array(rows) if rows else np.zeros((0, len(FEATURES)))
    return np.vstack([x, -x]), np.concatenate([np.ones(len(x)), np.zeros(len(x))])


def fit(questions: list[dict], c: float) -> dict[str, float]:
    """Pairwise logistic weights, rescaled so that ``similarity`` weighs 1 as in the hand-set weights."""
    from sklearn.linear_model import LogisticRegression

    x, y = training_pairs(questions)
    model = LogisticRegression(fit_intercept=False, C=c, max_iter=2000).fit(x, y)
    coef = model.coef_[0]
    scale = coef[FEATURES.index("similarity")] or 1.0
    return {k: round(float(v / abs(scale)), 3) for k, v in zip(FEATURES, coef)}


def listwise(questions: list[dict], temperature: float = 20.0, pull: float = 0.01) -> dict[str, float]:
    """Weights maximising the mean expected ROUGE-L of a softmax(``temperature`` x score) pick per question."""
    from scipy.optimize import minimize

    start = np.array([WEIGHTS[k] for k in FEATURES])
    data = [(x, g) for x, g in map(features_and_gains, questions) if len(g) and g.max() > 0]

    def loss(w: np.ndarray) -> float:
        total = 0.0
        for x, g in data:
            s = x @ w * temperature
            p = np.exp(s - s.max())
            total -= float(g @ p) / float(p.sum())
        return total / len(data) + pull * float((w - start) @ (w - start))

    fitted = minimize(loss, start, method="Powell", options={"maxiter": 3000}).x
    return {k: round(float(v), 3) for k, v in zip(FEATURES, fitted)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reuse", action="store_true", help="read the candidates from the cache")
    ap.add_argument("--c", default="1", help="the pairwise fit's inverse regularisation strengths")
    args = ap.parse_args()
    if args.reuse and CACHE.exists():
        questions = json.loads(CACHE.read_text())
    else:
        engine = QueryEngine(Store(STORE_ROOT))
        questions = [q for key, split in DEV for q in collect(engine, key, split)]
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps(questions))
    sets = list(dict.fromkeys(q["set"] for q in questions))
    fitters = {**{f"pairwise C={c}": (lambda qs, c=float(c): fit(qs, c)) for c in args.c.split(",")},
               "listwise": listwise}
    rows, summary = [], {}
    for name, fitter in fitters.items():
        for held in sets:
            test = [q for q in questions if q["set"] == held]
            weights = fitter([q for q in questions if q["set"] != held])
            rows.append({"fit": name, "left_out": held, "questions": len(test), "hand": scores(test, WEIGHTS),
                         "fitted": scores(test, weights), "weights": weights})
            print(f"{name:<14} {held:<20} hand={rows[-1]['hand']} fitted={rows[-1]['fitted']} {weights}", flush=True)
        mine = [r for r in rows if r["fit"] == name]
        summary[name] = {f"{who}_{m}": round(statistics.mean(r[who][m] for r in mine), 1)
                         for who in ("hand", "fitted") for m in ("em", "rouge_l")}
        summary[name]["all_dev_weights"] = fitter(questions)
        print(f"{name}: mean over left-out sets {summary[name]}", flush=True)
    ceiling = {s: oracle([q for q in questions if q["set"] == s]) for s in sets}
    print(f"ceiling (best candidate per question): {ceiling}")
    write_json("rerank_fit.json", {"sets": sets, "ceiling": ceiling, "min_gap": MIN_GAP, "features": list(FEATURES),
                                   "hand_weights": WEIGHTS, "rows": rows, "summary": summary})


if __name__ == "__main__":
    main()
