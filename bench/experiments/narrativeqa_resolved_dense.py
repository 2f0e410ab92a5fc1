"""Does the dense signal gain from the coref-resolved text of a sentence ("She smiled at him" read as "Anne smiled
at Gilbert") on people's questions?  NarrativeQA design books.

    python bench/experiments/narrativeqa_resolved_dense.py

Sentence vectors are embedded from the written (normalised) text at indexing; BM25 already reads the words the
resolved text adds (``kgcore/query/expanded_bm25.py``).  Here each loaded book's sentence vectors are replaced, for
the whole run, by those of the resolved text (``resolved``) or by the normalised mean of both (``mean``), and every
method is measured as the NarrativeQA bench measures (answer-token recall, 200 / 500 / 1,000 / 2,000 words).  The
default method is compared with itself on the written vectors (paired 95 % interval) and with the best text
method on them.  The resolved texts' vectors are kept in ``bench/stores/resolved_vectors/`` (git-ignored); the
result is ``bench/results/narrativeqa_resolved_dense.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
import narrativeqa  # noqa: E402
from common import ROOT, write_json  # noqa: E402
from protocol import BUDGETS, TEXT_BASELINES, measure, paired_interval  # noqa: E402

from kgcore.api import QueryEngine  # noqa: E402

KEPT = ROOT / "bench" / "stores" / "resolved_vectors"
METHODS = ("groundedkg", *TEXT_BASELINES)
KINDS = ("written", "resolved", "mean")


def vectors(engine: QueryEngine, slug: str) -> dict[str, np.ndarray]:
    """The book's sentence vectors of each :data:`KINDS` (its index loaded and its views built first)."""
    measure(engine, slug, narrativeqa.questions(slug)[:1], "groundedkg", 500)
    index = engine.index(slug)
    kept = KEPT / f"{slug}.npy"
    if not kept.exists():
        KEPT.mkdir(parents=True, exist_ok=True)
        np.save(kept, engine.embedder.encode([s.resolved or s.normalized for s in index.sentences]))
    written, resolved = np.array(index.sentence_vectors, dtype=np.float32), np.load(kept).astype(np.float32)
    both = written + resolved
    return {"written": written, "resolved": resolved, "mean": both / np.linalg.norm(both, axis=1, keepdims=True)}


def main() -> None:
    books = narrativeqa.split()["design"]
    engine = QueryEngine(narrativeqa.book_store(books))
    kinds = {slug: vectors(engine, slug) for slug in books}
    per: dict[tuple[str, str, int], list[float]] = {}
    for kind in KINDS:
        for slug in books:  # the loaded index's vectors replaced for this kind
            object.__setattr__(engine.index(slug), "sentence_vectors", kinds[slug][kind])
        for budget in BUDGETS:
            for method in METHODS:
                per[(kind, method, budget)] = [v for slug in books for v in measure(
                    engine, slug, narrativeqa.questions(slug), method, budget)["per_question"]]
    rows = []
    for (kind, method, budget), values in per.items():
        base = per[("written", method, budget)]
        best = max(TEXT_BASELINES, key=lambda m: np.mean(per[("written", m, budget)]))
        rows.append({"vectors": kind, "method": method, "budget_words": budget,
                     "recall": round(float(np.mean(values)), 3),
                     "against_written": round(float(np.mean(values) - np.mean(base)), 3),
                     "ci95": list(paired_interval(values, base)) if kind != "written" else None,
                     "margin_to_best_text_written": round(float(np.mean(values) - np.mean(per[("written", best,
                                                                                                  budget)])), 3)})
        print(rows[-1], flush=True)
    write_json("narrativeqa_resolved_dense.json", {"books": books, "rows": rows})


if __name__ == "__main__":
    main()
