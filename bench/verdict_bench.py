"""The auditor's own judgments, measured on people's questions: the verdict (supported / not supported / unsure),
the offline answer pick and the automatic error-stage diagnosis.

    python bench/verdict_bench.py --part design --store /work/stores/verdict      # design parts (decisions)
    python bench/verdict_bench.py --part held_out --store /work/stores/verdict    # once per decision

The papers' and QASPER's parts are indexed into ``--store`` on first use (an identical collection is reused);
the novels are read from ``--novels``, a store of one collection per book (only read).

Sets and splits: :mod:`verdict_sets` (papers, QASPER, NarrativeQA novels; whole documents held out).  Every
question is asked as the app asks it by default: GroundedKG within a 1,000-word context (within its paper for
papers and QASPER), answered by the offline answerer (``--answerers``; default ``extractive``).  Per set:

* **verdict**: its confusion matrix against the truth (the answer holds at least half of a reference answer's
  content words that the question does not say, :func:`verdict_sets.is_right`; a QASPER question marked
  unanswerable has no right answer), the balanced accuracy of the decided verdicts (mean of the share of right
  answers called supported and the share of wrong ones called not supported) and the share "unsure";
* **answer**: the share right, overall and when the gold evidence is in the context
  (:func:`verdict_sets.evidence_ids`), and there the share whose answer or one of the answer pick's next best
  sentences (the verdict's ``alternatives``, as the Ask page lists them) quotes a right answer; QASPER's yes/no
  questions are counted apart (an offline answer quotes the text and never says yes or no);
* **diagnosis**: the gold-derived stage (correct; III when the answer is wrong with the gold evidence in the
  context; II, or I when no graph node of the evidence resembles a query node, when it is not) against the
  automatic diagnosis from the reference answers alone (as the app's "Diagnose automatically" runs) and from
  nothing but the verdict and the retrieval (no gold): agreement over every question with a gold stage, and over
  the wrong answers' stages alone.

Each figure has a 95 % percentile-bootstrap interval over questions (2,000 resamples, seed 0).  Results go to
``bench/results/verdict_<part>.json`` (aggregates only); with ``--rows`` the design part's per-question rows go
to ``bench/stores/verdict/`` (git-ignored) for reading; held-out rows are never written.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from common import RESULTS, ROOT, machine, write_json
from verdict_sets import PARTS, evidence_ids, index_parts, is_right, items, split

from kgcore.api import QueryEngine, RetrievalOptions, Store, diagnose, diagnose_without_gold, stage_from_evidence

BUDGET = 1000
SETS = ("papers", "qasper", "novels")
STATES = ("supported", "not supported", "unsure")
ROWS = ROOT / "bench" / "stores" / "verdict"
#: What a design row keeps of each context sentence (to replay answers without retrieving again).
CONTEXT_FIELDS = ("id", "position", "text", "resolved", "similarity", "score", "rank", "document")


def state_of(answer) -> str:
    """The verdict's state (``supported``, ``not supported`` or ``unsure``)."""
    if answer.verdict is not None:
        return answer.verdict.state
    return {True: "supported", False: "not supported"}.get(answer.supported, "unsure")


def ask(engine: QueryEngine, item, answerer: str) -> dict:
    """One question asked, answered and judged; its row (truth, verdict, evidence, stages)."""
    options = RetrievalOptions(budget_words=BUDGET, documents=(item.document,) if item.document else ())
    result = engine.retrieve(item.collection, item.question, options)
    answer = engine.answer(result, answerer)
    index = engine.index(item.collection)
    right = is_right(answer.text, item)
    gold = evidence_ids(item, index, engine.embedder) if item.kind == "answerable" else None
    context = set(result.sentence_ids)
    in_context = None if gold is None else bool(context & set(gold))
    others = answer.verdict.alternatives if answer.verdict else []
    row = {"question": item.question, "kind": item.kind, "answer": answer.text, "right": right,
           "right_in_next": right or any(is_right(a.quote, item) for a in others),
           "state": state_of(answer),
           "reason": answer.support_reason, "probability": answer.verdict.score if answer.verdict else None,
           "evidence_in_context": in_context, "gold_evidence": gold,
           "cited": [i for c in answer.citations for i in c.sentence_ids], "answers": list(item.answers),
           "context": [{k: getattr(c, k) for k in CONTEXT_FIELDS} for c in result.sentences]}
    if item.kind == "answerable" and gold is not None:
        row["gold_stage"] = "correct" if right else stage_from_evidence(result, gold, index, engine.embedder).stage
        row["stage_from_answers"] = diagnose(result, answer, list(item.answers), index, engine.embedder).stage
    if item.kind == "answerable":
        without = diagnose_without_gold(result, answer)
        row["stage_without_gold"] = without.stage
        row.update({k: without.details.get(k) for k in ("coverage", "best_sentence_recall", "best_match")})
    return row


def interval(values: list[float], statistic=np.mean, seed: int = 0) -> list[float] | None:
    """95 % percentile-bootstrap interval of ``statistic`` over ``values`` (None for fewer than 2)."""
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    data = np.asarray(values, dtype=float)
    stats = [statistic(data[rng.integers(0, len(data), len(data))]) for _ in range(2000)]
    return [round(float(np.nanpercentile(stats, 2.5)), 3), round(float(np.nanpercentile(stats, 97.5)), 3)]


def balanced_accuracy(pairs: np.ndarray) -> float:
    """Mean of the recall of both truths among decided verdicts; ``pairs`` rows: (right, supported, decided)."""
    decided = pairs[pairs[:, 2] == 1]
    recalls = [float(np.mean(decided[decided[:, 0] == t][:, 1] == t)) for t in (1, 0) if np.any(decided[:, 0] == t)]
    return float(np.mean(recalls)) if recalls else float("nan")


def verdict_table(rows: list[dict]) -> dict:
    judged = [r for r in rows if r["kind"] != "yes/no"]
    matrix = {truth: {s: sum(1 for r in judged if r["right"] == (truth == "right") and r["state"] == s)
                      for s in STATES} for truth in ("right", "wrong")}
    pairs = np.array([[r["right"], r["state"] == "supported", r["state"] != "unsure"] for r in judged], dtype=float)
    ba = balanced_accuracy(pairs) if len(pairs) else float("nan")
    boot = interval(list(range(len(pairs))), lambda idx: balanced_accuracy(pairs[idx.astype(int)]))
    unsure = [float(r["state"] == "unsure") for r in judged]
    return {"questions": len(judged), "confusion": matrix, "balanced_accuracy": round(ba, 3), "ba_interval": boot,
            "unsure": round(float(np.mean(unsure)), 3) if unsure else None}


def share(flags: list[bool]) -> dict:
    return {"n": len(flags), "share": round(float(np.mean(flags)), 3) if flags else None,
            "interval": interval([float(f) for f in flags])}


def summary(rows: list[dict]) -> dict:
    answerable = [r for r in rows if r["kind"] == "answerable"]
    staged = [r for r in answerable if "gold_stage" in r]
    wrong = [r for r in staged if r["gold_stage"] != "correct"]
    return {
        "verdict": verdict_table(rows),
        "answer_right": share([r["right"] for r in answerable]),
        "answer_right_evidence_in_context": share([r["right"] for r in answerable if r["evidence_in_context"]]),
        "right_in_next_evidence_in_context": share([r.get("right_in_next", r["right"]) for r in answerable
                                                    if r["evidence_in_context"]]),
        "evidence_in_context": share([bool(r["evidence_in_context"]) for r in staged]),
        "yes_no_questions": sum(r["kind"] == "yes/no" for r in rows),
        "unanswerable_questions": sum(r["kind"] == "unanswerable" for r in rows),
        "gold_stages": {s: sum(r["gold_stage"] == s for r in staged) for s in ("correct", "I", "II", "III")},
        "diagnosis_from_answers": share([r["stage_from_answers"] == r["gold_stage"] for r in staged]),
        "diagnosis_from_answers_wrong": share([r["stage_from_answers"] == r["gold_stage"] for r in wrong]),
        "diagnosis_without_gold": share([r["stage_without_gold"] == r["gold_stage"] for r in staged]),
        "diagnosis_without_gold_wrong": share([r["stage_without_gold"] == r["gold_stage"] for r in wrong]),
    }


def table(results: dict) -> str:
    """The results as a markdown table, one row per set."""
    head = ("| set | questions | right: S / N / U | wrong: S / N / U | balanced accuracy | unsure | answer right | "
            "right, evidence in context | ... or among the next best | diagnosis (reference answers) | "
            "diagnosis (no gold) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, r in results["sets"].items():
        v, m = r["verdict"], r["verdict"]["confusion"]
        cell = lambda s: f"{s['share']:.2f} (n={s['n']})" if s["share"] is not None else "-"  # noqa: E731
        no_share = {"share": None}  # a result written before the next best sentences
        ba = f"{v['balanced_accuracy']:.2f} [{v['ba_interval'][0]:.2f}, {v['ba_interval'][1]:.2f}]" \
            if v["ba_interval"] else f"{v['balanced_accuracy']:.2f}"
        lines.append(f"| {name} | {v['questions']} | {' / '.join(str(m['right'][k]) for k in STATES)} | "
                     f"{' / '.join(str(m['wrong'][k]) for k in STATES)} | {ba} | {v['unsure']:.2f} | "
                     f"{cell(r['answer_right'])} | {cell(r['answer_right_evidence_in_context'])} | "
                     f"{cell(r.get('right_in_next_evidence_in_context', no_share))} | "
                     f"{cell(r['diagnosis_from_answers'])} | {cell(r['diagnosis_without_gold'])} |")
    return "\n".join(lines)


def novel_collections(root: Path, books: list[str]) -> dict[str, str]:
    """Book slug -> its collection in the novels' store: a collection named after the book.  The store is only
    read (``Store.list`` would tidy it), so the folders are looked up directly; a missing book stops the run."""
    missing = [b for b in books if not (root / b / "collection.json").is_file()]
    if missing:
        raise SystemExit(f"{root}: no collection for {', '.join(missing)} (index the novels first)")
    return {b: b for b in books}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, required=True)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--answerers", default="extractive")
    parser.add_argument("--store", type=Path, default=ROOT / "bench" / "stores" / "verdict_store",
                        help="the papers' and QASPER's collections (bench/verdict_sets.py indexes them)")
    parser.add_argument("--novels", type=Path, default=Path("/work/stores/narrativeqa"),
                        help="a store of one collection per NarrativeQA book (read only)")
    parser.add_argument("--rows", action="store_true", help="write the design part's per-question rows")
    parser.add_argument("--as-indexed", action="store_true",
                        help="ask the collections in --store as they are (no re-indexing after an index change)")
    args = parser.parse_args()
    out: dict = {"part": args.part, "budget_words": BUDGET, "machine": machine(), "sets": {}}
    started = time.perf_counter()
    for set_name in args.sets.split(","):
        if set_name != "novels" and not args.as_indexed:  # indexed on first use, reused after
            index_parts(args.store, 1, (set_name,), (args.part,))
        store = Store(args.novels if set_name == "novels" else args.store)
        engine = QueryEngine(store)
        books = split(set_name)[args.part] if set_name == "novels" else []
        questions = items(set_name, args.part, novel_collections(args.novels, books) if books else None)
        for answerer in args.answerers.split(","):
            rows = [ask(engine, item, answerer) for item in questions]
            out["sets"][f"{set_name}/{answerer}"] = summary(rows)
            print(set_name, answerer, json.dumps(out["sets"][f"{set_name}/{answerer}"]), flush=True)
            if args.rows and args.part == "design":
                ROWS.mkdir(parents=True, exist_ok=True)
                (ROWS / f"{set_name}_{answerer}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    out["seconds"] = round(time.perf_counter() - started, 1)
    path = RESULTS / f"verdict_{args.part}.json"  # the sets not run this time are kept
    kept = json.loads(path.read_text(encoding="utf-8"))["sets"] if path.exists() else {}
    out["sets"] = {**kept, **out["sets"]}
    write_json(path.name, out)
    print(table(out))


if __name__ == "__main__":
    main()
