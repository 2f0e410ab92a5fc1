"""What text retrieval's first 200 words hold that the fused ranking's miss, on people's questions (NarrativeQA
design books only; never run on held-out books).

    python bench/experiments/narrativeqa_small_budget.py                 # 200 words, the default ranking
    python bench/experiments/narrativeqa_small_budget.py --budget 500 --ablation "length_exponent=0.3"

Per method (the fused default, ``dense``, ``bm25``, ``hybrid``) and question, what its context is made of:
sentences, mean words per sentence, passages spanned (chunks of the contextual graph), the share of sentences
next to another selected one, the share of the question's content words and of its names (capitalised words
past the first) the context holds, and answer-token recall.  Then, against each text method, the questions where
it found answer words the fused ranking did not: how long its answer-bearing sentences are, whether they hold a
name of the question, and whether the fused ranking had them within 4x the budget (a near miss of ordering) or
not at all.  Writes bench/results/narrativeqa_small_budget.json.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
sys.path.insert(0, str(Path(__file__).resolve().parent))
from narrativeqa import book_store, split  # noqa: E402
from narrativeqa_ablations import ABLATIONS, Case, cases, fused_context, recall, text_context  # noqa: E402
from protocol import TEXT_BASELINES  # noqa: E402

from kgcore.index.views.contextual import context_graph
from kgcore.query.answer.words import content_words
from kgcore.query.engine import QueryEngine

_NAME = re.compile(r"\b[A-Z][a-z]+")


def names(question: str) -> set[str]:
    """The question's capitalised words past its first, lower-cased and singular (its characters and places).

    >>> sorted(names("Why does Anne visit Mrs. Lynde?"))
    ['anne', 'lynde', 'mrs']
    """
    return {w for m in _NAME.findall(question)[1:] for w in content_words(m)}


def shape(case: Case, sentences: list) -> dict:
    """What one context is made of (see the module docstring)."""
    cg = context_graph(case.index)
    rows = {case.index.sentence_row(s.id) for s in sentences}
    words = [len(s.text.split()) for s in sentences]
    held = set().union(*(content_words(s.text) for s in sentences)) if sentences else set()
    asked, named = content_words(case.question.text), names(case.question.text)
    return {"recall": recall(case, sentences), "sentences": len(sentences),
            "words_per_sentence": statistics.mean(words) if words else 0.0,
            "passages": len({int(cg.chunk_of[r]) for r in rows}),
            "adjacent": sum((r - 1 in rows) or (r + 1 in rows) for r in rows) / max(len(rows), 1),
            "question_words": len(asked & held) / max(len(asked), 1),
            "names": len(named & held) / len(named) if named else None}


def missed(case: Case, ours: list, theirs: list, wide: list) -> list[dict]:
    """The text method's sentences holding answer words the fused context lacks: their length, whether they hold a
    name of the question, and whether the fused ranking had them within ``wide`` (4x the budget)."""
    wanted = set().union(*(content_words(a) for a in case.question.answers))
    have = set().union(*(content_words(s.text) for s in ours)) if ours else set()
    near = {s.id for s in wide}
    named = names(case.question.text)
    return [{"words": len(s.text.split()), "names": bool(named & content_words(s.text)), "near": s.id in near}
            for s in theirs if (content_words(s.text) & wanted) - have]


def mean(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.mean(present), 3) if present else None


def run(all_cases: list[Case], budget: int, engine: QueryEngine) -> dict:
    contexts = {"groundedkg": [fused_context(c, budget) for c in all_cases]}
    contexts |= {m: [text_context(c, m, budget, engine) for c in all_cases] for m in TEXT_BASELINES}
    wide = [fused_context(c, 4 * budget) for c in all_cases]
    shapes = {m: [shape(c, ctx) for c, ctx in zip(all_cases, found, strict=True)] for m, found in contexts.items()}
    out: dict = {"budget": budget, "questions": len(all_cases),
                 "shape": {m: {k: mean([s[k] for s in rows]) for k in rows[0]} for m, rows in shapes.items()},
                 "against": {}}
    for method in TEXT_BASELINES:
        ours, theirs = shapes["groundedkg"], shapes[method]
        lost = [i for i in range(len(all_cases)) if theirs[i]["recall"] > ours[i]["recall"]]
        won = [i for i in range(len(all_cases)) if theirs[i]["recall"] < ours[i]["recall"]]
        sentences = [m for i in lost for m in missed(all_cases[i], contexts["groundedkg"][i], contexts[method][i],
                                                     wide[i])]
        out["against"][method] = {
            "lost": len(lost), "won": len(won), "tied": len(all_cases) - len(lost) - len(won),
            "lost_questions": {side: {k: mean([rows[i][k] for i in lost]) for k in rows[0]}
                               for side, rows in (("groundedkg", ours), (method, theirs))},
            "missed_sentences": {"count": len(sentences), "words": mean([m["words"] for m in sentences]),
                                 "with_a_question_name": mean([float(m["names"]) for m in sentences]),
                                 "within_4x_budget": mean([float(m["near"]) for m in sentences])}}
    return out


def main(argv: list[str] | None = None) -> None:
    from common import write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--ablation", default="default", help="an ablation of narrativeqa_ablations.py")
    args = parser.parse_args(argv)
    slugs = split()["design"]
    engine = QueryEngine(book_store(slugs))
    all_cases = cases(engine, slugs)
    with ABLATIONS[args.ablation]():
        result = run(all_cases, args.budget, engine)
    result["ablation"] = args.ablation
    write_json("narrativeqa_small_budget.json", result)
    print(result)


if __name__ == "__main__":
    main()
