"""Does the fused ranking hold more of people's answers when a sentence holding a span of the kind the question
asks for (a place for "where", a reason clause for "why", a person for "who") ranks higher?  NarrativeQA design
books.  The fused default does this (:mod:`kgcore.query.asked_kind`, weight 3, for the span kinds); this script
runs its weights against 0 (off), and the variants it was chosen over.

    python bench/experiments/narrativeqa_answer_type.py --kinds name,number,person,place,time  # 0.5 / 1 / 2 / 3 / 5
    python bench/experiments/narrativeqa_answer_type.py --kinds name,number,person,place,time --weights 3 --held-out
    python bench/experiments/narrativeqa_answer_type.py --weights 0.5 --selective 1 --candidates 100
    python bench/experiments/narrativeqa_answer_type.py --weights 1 --stored   # spans from the asked kind alone
    python bench/experiments/narrativeqa_answer_type.py --weights 1 --stored-filtered   # ... adding a new word

The question's expected answer (:func:`kgcore.query.answer.expected.expected_answer`) is the one the offline answer
pick and the verdict use; the spans (:func:`kgcore.query.answer.spans.answer_spans`) too.  The fused order's first
``--candidates`` sentences are reordered by their final score times ``1 + weight`` when the sentence holds a span of
the asked kind (kinds without spans -- definition, yes/no, none -- change nothing); both stages of the ranking are
reordered.  Measured as the NarrativeQA bench measures (answer-token recall of the context, 200 / 500 / 1,000 /
2,000 words, default method), paired against weight 0.  Per kind, the questions' differences are reported too.
Design books unless ``--held-out``; writes ``bench/results/narrativeqa_answer_type[_stored][_headN][_held_out].json``
(``_headN`` when ``--candidates`` is not 200).  With the first 50 candidates only, weight 1 gave +0.010 / -0.001 /
-0.013 [-0.028, -0.002] / +0.000: the gain needs the longer head.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
import narrativeqa  # noqa: E402
from common import write_json  # noqa: E402
from protocol import BUDGETS, measure, paired_interval, setting  # noqa: E402

from kgcore.api import QueryEngine  # noqa: E402
from kgcore.core.nlp import load_spacy  # noqa: E402
from kgcore.query import asked_kind  # noqa: E402
from kgcore.query.answer.expected import Expected, expected_answer  # noqa: E402
from kgcore.query.answer.spans import FINDERS, adds_content, answer_spans  # noqa: E402
from kgcore.query.methods import groundedkg  # noqa: E402

NLP = load_spacy()
ORIGINAL_KIND = groundedkg.asked_kind


class StoredKind(asked_kind.AskedKind):
    """The asked kind read as spans stored per sentence at indexing would read it: the kind alone, without the
    question's words and asked noun (``--stored``); ``filtered``: those spans kept only when they add a word the
    question lacks (``--stored-filtered``: stored spans checked against the question's words, no parse)."""

    filtered: set[str] | None = None

    def holds(self, texts):
        docs = self.parse([written for written, _ in texts])
        empty = NLP("")
        out = []
        for doc in docs:
            spans = answer_spans(list(doc), Expected(self.expected.kind), empty)
            out.append(any(adds_content(doc[a:b], self.filtered) for a, b in spans) if self.filtered is not None
                       else bool(spans))
        return np.array(out, dtype=bool)


def asking(stored: bool, filtered: bool = False):
    """``groundedkg.asked_kind`` as production reads it, or (``stored``) the :class:`StoredKind` variant."""
    def kind(question, nlp, sentences=0):
        found = ORIGINAL_KIND(question, nlp, sentences)
        if found is None or not stored:
            return found
        variant = StoredKind(found.expected, found.question, found.parse, found.weight, found.candidates,
                             found.selective)
        variant.filtered = ({t.lower_ for t in found.question} | {t.lemma_.lower() for t in found.question}
                            if filtered else None)
        return variant
    return kind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default="0.5,1,2,3,5", help="weights to try (0, the raise off, always runs)")
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--selective", type=float, default=0.5,
                        help="raise only where at most this share of the candidates holds a span (1: always)")
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--resolved", default="",
                        help="asked kinds also found in a candidate's coref-resolved text (e.g. person,name)")
    parser.add_argument("--kinds", default=",".join(sorted(FINDERS)),
                        help="the asked kinds that raise candidates (default: every kind with spans)")
    parser.add_argument("--stored", action="store_true",
                        help="find the spans from the asked kind alone, as kinds stored per sentence would")
    parser.add_argument("--stored-filtered", action="store_true",
                        help="--stored, then keep a span only when it adds a word the question lacks")
    args = parser.parse_args()
    books = narrativeqa.split()["held_out" if args.held_out else "design"]
    engine = QueryEngine(narrativeqa.book_store(books))
    kinds = [expected_answer(NLP(q.text)).kind for slug in books for q in narrativeqa.questions(slug)]
    per: dict[tuple[float, int], list[float]] = {}
    kind = asking(args.stored or args.stored_filtered, args.stored_filtered)
    for weight in sorted({0.0, *(float(x) for x in args.weights.split(","))}):
        with setting(asked_kind, "WEIGHT", weight), setting(asked_kind, "CANDIDATES", args.candidates), \
                setting(asked_kind, "SELECTIVE", args.selective), setting(groundedkg, "asked_kind", kind), \
                setting(asked_kind, "KINDS", frozenset(args.kinds.split(","))), \
                setting(asked_kind, "RESOLVED_KINDS", frozenset(filter(None, args.resolved.split(",")))):
            for budget in BUDGETS:
                per[(weight, budget)] = [v for slug in books for v in measure(
                    engine, slug, narrativeqa.questions(slug), "groundedkg", budget)["per_question"]]
    rows = []
    for (weight, budget), values in sorted(per.items()):
        base = per[(0.0, budget)]
        by_kind: dict[str, list[float]] = defaultdict(list)
        for kind, v, b in zip(kinds, values, base):
            by_kind[str(kind)].append(v - b)
        rows.append({"weight": weight, "budget_words": budget, "recall": round(float(np.mean(values)), 3),
                     "difference": round(float(np.mean(values) - np.mean(base)), 3),
                     "ci95": list(paired_interval(values, base)) if weight else None,
                     "by_kind": {k: [len(d), round(float(np.mean(d)), 3)] for k, d in sorted(by_kind.items())}})
        print(rows[-1], flush=True)
    mode = "_stored_filtered" if args.stored_filtered else "_stored" if args.stored else ""
    head = "" if args.candidates == 200 else f"_head{args.candidates}"  # the recorded runs read the first 200
    kinds = sorted(args.kinds.split(","))
    mode += "" if kinds == sorted(FINDERS) else "_" + "-".join(kinds)  # the recorded runs raise every kind
    mode += f"_resolved-{'-'.join(sorted(args.resolved.split(',')))}" if args.resolved else ""
    name = f"narrativeqa_answer_type{mode}{head}{'_held_out' if args.held_out else ''}.json"
    write_json(name, {"books": books, "candidates": args.candidates, "selective": args.selective, "rows": rows})


if __name__ == "__main__":
    main()
