"""The offline answerers' own time per question on a paper collection, with and without the parse cache.

    python bench/answer_speed.py --store STORE      # the verdict bench's store (default bench/stores/verdict_store)
    python bench/answer_speed.py --store STORE --part held_out --rounds 3

The questions are retrieved once (GroundedKG, 1,000 words, within the question's paper); only the answerer is
timed (``generate``: the sentence pick, the quote and the verdict).  Rounds alternate two settings so that load
on the shared machine hits both:

* ``cold``: the shared parse cache (:class:`kgcore.query.answer.base.ParseCache`) is emptied before every
  question, so each answer parses its own sentences as every answer did before the cache;
* ``warm``: the cache is emptied once before the round and the questions are asked one after another, paper by
  paper, as an analyst asks them in the app (later questions reuse what earlier answers parsed);
* ``prepared``: before each paper's first question the cache is emptied and :meth:`QueryEngine.prepare` runs for
  that paper (untimed: the app runs it in the background while the analyst types), which parses the paper's
  sentences into the cache.

Every answer (its text, its support reason and state) must be identical in all three settings; the run stops
otherwise.
Median and 95th percentile per setting, and for ``warm`` without each round's first question, go to
``bench/results/answer_speed.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from common import ROOT, machine, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdict_sets import items  # noqa: E402

from kgcore.api import QueryEngine, RetrievalOptions, Store, shared_cache  # noqa: E402


def answer_of(answer) -> tuple:
    """What must not change: the answer's text, its verdict's state and reason."""
    verdict = answer.verdict
    return answer.text, verdict.state if verdict else None, answer.support_reason


#: Seconds :meth:`QueryEngine.prepare` spent parsing each paper's sentences (``prepared`` rounds).
PREPARE_PARSES: list[float] = []


def timed_round(engine, generator, questions, results, setting: str) -> tuple[list[float], list[tuple]]:
    """One round of every question in ``setting`` (``cold``, ``warm`` or ``prepared``): seconds and answers."""
    cache = shared_cache(generator.nlp)
    cache.clear()
    seconds, answers, prepared = [], [], None
    for item, result in zip(questions, results):
        if setting == "cold":
            cache.clear()
        elif setting == "prepared" and item.document != prepared:
            cache.clear()  # a new paper: as when the analyst opens a one-paper collection
            PREPARE_PARSES.append(engine.prepare(item.collection, options_for(item))["parses"])
            prepared = item.document
        started = time.perf_counter()
        answer = generator.generate(result.question, result.sentences)
        seconds.append(time.perf_counter() - started)
        answers.append(answer_of(answer))
    return seconds, answers


def options_for(item) -> RetrievalOptions:
    return RetrievalOptions(budget_words=1000, documents=(item.document,))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def figures(values: list[float]) -> dict:
    return {"n": len(values), "median_s": round(statistics.median(values), 3), "p95_s": round(p95(values), 3),
            "mean_s": round(statistics.fmean(values), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=ROOT / "bench" / "stores" / "verdict_store")
    parser.add_argument("--part", default="design", help="the verdict bench's papers part whose questions are asked")
    parser.add_argument("--answerer", default="extractive")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    engine = QueryEngine(Store(args.store))
    questions = items("papers", args.part)
    questions = sorted(questions, key=lambda q: q.document)  # a paper's questions one after another
    results = [engine.retrieve(q.collection, q.question, options_for(q)) for q in questions]
    generator = engine.generator(args.answerer)
    generator.generate(results[0].question, results[0].sentences)  # models loaded before timing
    times: dict[str, list[float]] = {"cold": [], "warm": [], "warm_after_first": [], "prepared": []}
    reference = None
    for _ in range(args.rounds):
        for setting in ("cold", "warm", "prepared"):
            seconds, answers = timed_round(engine, generator, questions, results, setting)
            reference = reference or answers
            if answers != reference:
                changed = [r.question for r, a, b in zip(results, answers, reference) if a != b]
                raise SystemExit(f"answers differ with the parse cache ({setting}): {changed}")
            times[setting] += seconds
            if setting == "warm":
                times["warm_after_first"] += seconds[1:]
            print(setting, f"median {statistics.median(seconds):.3f} s", flush=True)
    out = {"collection": questions[0].collection, "questions": len(results), "answerer": args.answerer,
           "rounds": args.rounds, "machine": machine(), "identical_answers": True,
           "settings": {k: figures(v) for k, v in times.items()}, "prepare_parses": figures(PREPARE_PARSES)}
    write_json("answer_speed.json", out)
    for name, fig in out["settings"].items():
        print(f"{name:18s} median {fig['median_s']:.3f} s  p95 {fig['p95_s']:.3f} s  (n={fig['n']})")
    print(f"prepare parses per paper: median {out['prepare_parses']['median_s']:.1f} s")


if __name__ == "__main__":
    main()
