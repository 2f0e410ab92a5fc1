"""Global questions: how much of each broad question's rubric every method's context covers.

    python bench/experiments/global_bench.py                        # every collection, method and budget
    python bench/experiments/global_bench.py --collections papers --budgets 1000

``bench/data/global_questions.jsonl`` holds 22 broad questions written from the texts alone before any method ran
on them (9 on the 24 RAG papers, 6 on Robinson Crusoe, 7 on the 40 ObliQA rulebooks; 114 points).  Each has 3-6 rubric
points; a point names the document(s) it comes from (id prefixes) and a **verbatim supporting phrase** found in
one of their retrievable sentences.  The bench first checks that every phrase is in its documents' stored
sentences (a rubric with a phrase that is not there stops the run).

For each question, method (groundedkg, dense, bm25, hybrid, lesegr, and community / hybrid-summaries when they
are in ``METHODS``) and word budget (1,000 and 2,000) the collection is searched globally and the context's
coverage of the rubric is measured.  A point is **covered** (deterministic rule, :func:`covered`) when

1. *phrase*: its supporting phrase, normalised (NFKC, invisible format characters dropped, quotes and dashes
   made ASCII, lower case, whitespace collapsed), is a substring of a normalised context unit — a context
   sentence, or the text of a community-summary claim; or
2. *semantic*: a context sentence of one of the point's documents shares at least half of the point statement's
   content words (:func:`content_words`: lower-cased words of 3+ letters, stop words out, a final "s" dropped)
   **and** has MiniLM cosine similarity ≥ 0.6 with the statement.

``coverage`` is the fraction of a question's points covered (rule 1 or 2); ``phrase_coverage`` uses rule 1 alone.
Checked by hand (first 20 questions): rule 2 accepts 71 of the 139 sentences that hold a supporting phrase
and 28 of 2,560 other sentences of the same documents; of 14 points covered by rule 2 alone in the results, 6
matches were right, 3 partial and 5 wrong — ``phrase_coverage`` is the strict measure, ``coverage`` an upper bound.
Both are averaged per collection and method (macro over questions), with the context's words.  With an
OpenAI-compatible endpoint (``KGCORE_OPENAI_*``; the judge's own with ``KGCORE_JUDGE_*``) each context is also
answered by the ``openai`` answerer and the answer judged (:mod:`kgcore.evaluate.judge`) against the rubric
points; offline the results say the judge was unavailable and why.  Nothing is tuned on these questions.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import ROOT, machine, write_json

from kgcore.core.embed import get_embedder
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import QueryResult
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine
from kgcore.query.methods import METHODS

QUESTIONS = ROOT / "bench" / "data" / "global_questions.jsonl"
#: Collection name -> store root.
STORES = {"papers": ROOT / "bench" / "stores" / "collections", "obliqa": ROOT / "bench" / "stores" / "collections",
          "robinson-crusoe": ROOT / "bench" / "stores" / "books"}
BUDGETS = (1000, 2000)
BASE_METHODS = ("groundedkg", "dense", "bm25", "hybrid", "lesegr")
OPTIONAL_METHODS = ("community", "hybrid-summaries")
MIN_WORD_SHARE = 0.5
MIN_COSINE = 0.6
_ASCII = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"',
                        "–": "-", "—": "-", "‐": "-", "‑": "-", "−": "-", "\u00a0": " "})
_WORD = re.compile(r"[a-z][a-z0-9\-]{2,}")
STOP = frozenset("""the and for with that this from are was were which what who whom whose how when where why
their them they its his her him she has have had not but can may must shall will would could should into onto
upon than then there these those such also only each any all one two very more most other being been does did
about after before over under between within without through using used use per via our your out off own same
""".split())


def normalize(text: str) -> str:
    """Text for phrase matching: NFKC, format characters (U+200E...) dropped, ASCII quotes/dashes, lower case.

    >>> normalize("Rule \\u200e8.3.1:  the customer’s  identity")
    "rule 8.3.1: the customer's identity"
    """
    text = unicodedata.normalize("NFKC", text).translate(_ASCII)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return " ".join(text.lower().split())


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ letters without stop words, a final "s" dropped.

    >>> sorted(content_words("The rewriter is trained with reinforcement learning"))
    ['learning', 'reinforcement', 'rewriter', 'trained']
    >>> sorted(content_words("Custody of Virtual Assets"))
    ['asset', 'custody', 'virtual']
    """
    words = _WORD.findall(normalize(text))
    return {w[:-1] if w.endswith("s") and len(w) > 4 and not w.endswith("ss") else w for w in words} - STOP


def word_share(point: str, sentence: str) -> float:
    """Fraction of the point's content words that are in the sentence.

    >>> word_share("Custody of Virtual Assets is restricted", "restricted to safekeeping Accepted Virtual Assets")
    0.75
    """
    need = content_words(point)
    return len(need & content_words(sentence)) / len(need) if need else 0.0


def covered(point: dict, units: list[tuple[str, str]], cosines: dict[str, float]) -> tuple[bool, bool, int]:
    """(covered by rule 1 or 2, covered by rule 1, position of the covering unit or -1) for one rubric point.

    ``units`` are (document id, text) of the context (document "" for summary claims); ``cosines[text]`` is the
    MiniLM cosine of the point statement with each context sentence.

    >>> p = {"point": "Custody is restricted to Accepted Virtual Assets", "documents": ["03_cobs"],
    ...      "phrase": "restricted to safekeeping Accepted Virtual Assets only"}
    >>> covered(p, [("03_cobs", "They are restricted to safekeeping Accepted  Virtual Assets only.")], {})
    (True, True, 0)
    >>> s = "Custody of Virtual Assets is restricted to Accepted Virtual Assets."
    >>> covered(p, [("03_cobs", s)], {s: 0.8}), covered(p, [("09_ifr", s)], {s: 0.8})
    ((True, False, 0), (False, False, -1))
    """
    phrase = normalize(point["phrase"])
    for i, (_, text) in enumerate(units):
        if phrase in normalize(text):
            return True, True, i
    for i, (doc, text) in enumerate(units):
        if doc and any(doc.startswith(prefix) for prefix in point["documents"]) \
                and word_share(point["point"], text) >= MIN_WORD_SHARE and cosines.get(text, 0.0) >= MIN_COSINE:
            return True, False, i
    return False, False, -1


def load_questions(path: Path = QUESTIONS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_rubric(questions: list[dict], indexes: dict) -> list[str]:
    """Problems with the rubric: a phrase that no retrievable sentence of its documents contains."""
    problems = []
    for q in questions:
        index = indexes.get(q["collection"])
        if index is None:
            continue
        texts = [(s.doc_id, normalize(s.original)) for s in index.sentences]
        for p in q["points"]:
            phrase = normalize(p["phrase"])
            if not any(phrase in t for d, t in texts if any(d.startswith(x) for x in p["documents"])):
                problems.append(f"{q['id']}: phrase not in {p['documents']}: {p['phrase']!r}")
    return problems


def context_units(result: QueryResult) -> list[tuple[str, str]]:
    """(document, text) of every context sentence, then the text of every summary claim (document "")."""
    units = [(s.id.split("/", 1)[0], s.text) for s in result.sentences]
    for summary in result.summaries:
        for claim in summary.get("claims", []) or []:
            text = claim.get("text", "") if isinstance(claim, dict) else ""
            if text:
                units.append(("", text))
    return units


def score_context(q: dict, result: QueryResult, embedder) -> dict:
    """Coverage of one question's rubric by one context."""
    units = context_units(result)
    sentences = [t for d, t in units if d]
    vectors = embedder.encode(sentences) if sentences else np.zeros((0, 1), np.float32)
    flags = []
    for p in q["points"]:
        cosines = dict(zip(sentences, (vectors @ embedder.encode([p["point"]])[0]).tolist())) if sentences else {}
        flags.append(covered(p, units, cosines))
    ids = [s.id for s in result.sentences]
    return {"covered": [a for a, _, _ in flags], "phrase_covered": [b for _, b, _ in flags],
            "evidence": [(ids[i] if i < len(ids) else "summary claim") if i >= 0 else "" for _, _, i in flags],
            "coverage": round(sum(a for a, _, _ in flags) / len(flags), 4),
            "phrase_coverage": round(sum(b for _, b, _ in flags) / len(flags), 4),
            "context_words": result.context_words, "summaries": len(result.summaries),
            "retrieval_ms": round(result.timings_ms.get("retrieval", 0.0), 1)}


def judge_context(engine: QueryEngine, judge, q: dict, result: QueryResult) -> dict:
    """Answer from the context with the ``openai`` answerer and judge the answer against the rubric points."""
    from kgcore.core.errors import KgcoreError

    try:
        answer = engine.answer(result, "openai")
    except KgcoreError as exc:
        return {"ok": False, "error": f"answering failed: {exc}"}
    return judge.score(q["question"], answer.text, [p["point"] for p in q["points"]]).to_dict()


def run(collections: list[str], methods: list[str], budgets: list[int], judge_on: bool) -> dict:
    questions = [q for q in load_questions() if q["collection"] in collections]
    engines = {c: QueryEngine(Store(STORES[c])) for c in collections}
    indexes = {c: engines[c].index(c) for c in collections}
    problems = check_rubric(questions, indexes)
    if problems:
        sys.exit("rubric problems:\n" + "\n".join(problems))
    embedder = get_embedder()
    judge, judge_note = _judge(judge_on)
    rows = []
    for q in questions:
        engine = engines[q["collection"]]
        for method in methods:
            for budget in budgets:
                result = engine.retrieve(q["collection"], q["question"],
                                         RetrievalOptions(method=method, budget_words=budget))
                row = {"id": q["id"], "collection": q["collection"], "method": method, "budget_words": budget,
                       **score_context(q, result, embedder)}
                if judge is not None:
                    row["judge"] = judge_context(engine, judge, q, result)
                rows.append(row)
                print(f"{q['id']:10} {method:17} {budget:5}  coverage {row['coverage']:.2f} "
                      f"(phrase {row['phrase_coverage']:.2f})", file=sys.stderr, flush=True)
    return {"rows": rows, "summary": summarize(rows), "judge": judge_note,
            "questions": len(questions), "points": sum(len(q["points"]) for q in questions)}


def _judge(judge_on: bool):
    """(Judge or None, a note saying which judge ran or why none did)."""
    from kgcore.evaluate.judge import PROMPT_VERSION, Judge, JudgeCache, judge_unavailable

    settings = Settings.from_env()
    reason = judge_unavailable(settings) if judge_on else "switched off (--no-judge)"
    if reason:
        return None, f"unavailable: {reason}; coverage only"
    judge = Judge(settings, JudgeCache.for_store(STORES["papers"]))
    return judge, f"{judge.model} ({PROMPT_VERSION})"


def summarize(rows: list[dict]) -> list[dict]:
    """Mean coverage (×100) per (collection, method, budget), macro over questions, with judge aggregates.

    >>> rows = [{"collection": "c", "method": "dense", "budget_words": 1000, "coverage": 0.5, "phrase_coverage": 0.25,
    ...          "context_words": 990, "retrieval_ms": 3.0}] * 2
    >>> summarize(rows)[0]["coverage"]
    50.0
    """
    from kgcore.evaluate.judge import aggregate

    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["collection"], r["method"], r["budget_words"]), []).append(r)
    out = []
    for (collection, method, budget), group in groups.items():
        row = {"collection": collection, "method": method, "budget_words": budget, "questions": len(group),
               "coverage": round(100 * statistics.fmean(r["coverage"] for r in group), 1),
               "phrase_coverage": round(100 * statistics.fmean(r["phrase_coverage"] for r in group), 1),
               "full_coverage_questions": sum(r["coverage"] == 1.0 for r in group),
               "context_words": round(statistics.fmean(r["context_words"] for r in group)),
               "retrieval_ms_p50": round(statistics.median(r["retrieval_ms"] for r in group), 1)}
        judged = [r["judge"] for r in group if "judge" in r]
        if judged:
            row["judge"] = aggregate(judged)
        out.append(row)
    return out


def table(summary: list[dict]) -> str:
    lines = [f"{'collection':16} {'method':17} {'words':>5} {'cover%':>7} {'phrase%':>8} {'full':>4} {'ctx':>5}"]
    lines += [f"{r['collection']:16} {r['method']:17} {r['budget_words']:5} {r['coverage']:7.1f} "
              f"{r['phrase_coverage']:8.1f} {r['full_coverage_questions']:4} {r['context_words']:5}" for r in summary]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collections", default=",".join(STORES))
    parser.add_argument("--methods", default="", help="default: the base methods plus community methods present")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--no-judge", action="store_true", help="coverage only, even with an endpoint")
    parser.add_argument("--check", action="store_true", help="only check that every phrase is in its documents")
    args = parser.parse_args()
    collections = [c for c in args.collections.split(",") if c]
    methods = [m for m in args.methods.split(",") if m] or \
        [*BASE_METHODS, *(m for m in OPTIONAL_METHODS if m in METHODS)]
    if args.check:
        questions = [q for q in load_questions() if q["collection"] in collections]
        indexes = {c: Store(STORES[c]).load(c) for c in collections}
        problems = check_rubric(questions, indexes)
        print("\n".join(problems) or f"{len(questions)} questions, every phrase found")
        sys.exit(1 if problems else 0)
    started = time.perf_counter()
    result = run(collections, methods, [int(b) for b in args.budgets.split(",")], not args.no_judge)
    result.update(methods=methods, rule={"min_word_share": MIN_WORD_SHARE, "min_cosine": MIN_COSINE},
                  seconds=round(time.perf_counter() - started, 1), machine=machine())
    print(table(result["summary"]))
    print(f"judge: {result['judge']}")
    write_json("global.json", result)


if __name__ == "__main__":
    main()
