"""Replay the verdict bench's design questions without retrieving again: the contexts kept by
``bench/verdict_bench.py --part design --rows`` are answered and judged anew, so a change to the answer pick or
the verdict is measured in a few minutes instead of twelve.

    python bench/experiments/verdict_replay.py                # answer + judge every design row, print the tables
    python bench/experiments/verdict_replay.py --features     # also keep each answer's verifier features

Only design rows exist (held-out rows are never written).  The retrieval's own signals (lexical, dense, graph)
are not kept in the rows, so they are 0 here; the answer pick's weights do not read them.  Each replayed row has
the fields :func:`verdict_bench.verdict_table` reads, the answer right-rates, and with ``--features`` the
verifier's features of the answer (:func:`kgcore.query.answer.verifier.answer_features`), written to
``bench/stores/verdict/features.json`` for ``bench/experiments/verdict_verifier_fit.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
from verdict_bench import CONTEXT_FIELDS, ROWS, SETS, state_of, verdict_table  # noqa: E402
from verdict_sets import Item, is_right  # noqa: E402

from kgcore.api import SelectedSentence  # noqa: E402
from kgcore.core.verdicts import ClaimCheck  # noqa: E402
from kgcore.query.answer.base import ParseMemo  # noqa: E402
from kgcore.query.answer.extractive import ExtractiveGenerator  # noqa: E402
from kgcore.query.answer.select import Question, ScoredSentence  # noqa: E402
from kgcore.query.answer.verdict import judge, with_verdict  # noqa: E402
from kgcore.query.answer.weights import SPECIFIC  # noqa: E402
from kgcore.query.answer.words import content_words  # noqa: E402

#: Open questions: their answer is a clause, not a span (why, how, what happened, what is X).
OPEN = frozenset(("reason", "manner", "action", "definition", "object"))
#: The features of an answer's check a verifier can be fitted on (``bench/experiments/verdict_verifier_fit.py``).
FEATURES = ("strength", "score", "question_cosine", "cosine", "overlap", "rare_overlap", "matched_share", "typed",
            "near", "margin", "specific", "name", "open", "untyped_kind", "question_terms", "answer_words", "rank")

FEATURES_FILE = ROWS / "features.json"


def context_of(row: dict) -> list[SelectedSentence]:
    """The row's context as the answerer received it (document order)."""
    return [SelectedSentence(**{k: c[k] for k in CONTEXT_FIELDS}) for c in row["context"]]


def replay(rows: list[dict], generator: ExtractiveGenerator, set_name: str) -> list[dict]:
    """Each row answered and judged again over its kept context; the truth recomputed for the new answer."""
    out = []
    for row in rows:
        context = context_of(row)
        nlp = ParseMemo(generator.nlp)
        answer, scored = generator._extract(row["question"], context, nlp)
        answer = with_verdict(answer, judge(row["question"], answer, context, nlp, generator.embedder, scored,
                                            quoted=True))
        item = Item(set_name, "design", "", "", row["question"], tuple(row["answers"]), (), row["kind"])
        verdict = answer.verdict
        out.append({**{k: row[k] for k in ("question", "kind", "answers", "gold_evidence", "evidence_in_context")},
                    "answer": answer.text, "right": is_right(answer.text, item), "state": state_of(answer),
                    "reason": answer.support_reason,
                    "features": answer_features(verdict, scored, Question.parse(row["question"], nlp)),
                    "document": document_of(row)})
    return out


def answer_features(verdict, scored: list[ScoredSentence], parsed: Question) -> dict[str, float]:
    """The :data:`FEATURES` of the verdict's best claim: its strength and the answer score's parts, how far its
    sentence leads the best other candidate (``margin``), what the question asks for, how long question and claim
    are; ``rule``: 1 when a rule decided the state (a quantity, time, person or place asked for and none held)."""
    checks: list[ClaimCheck] = [c for c in (verdict.evidence if verdict else []) if c.sentence_id]
    by_id = {s.sentence.id: s for s in scored}
    if not checks or checks[0].sentence_id not in by_id:
        return {}
    check = max(checks, key=lambda c: c.strength or 0.0)
    best = by_id[check.sentence_id]
    others = [s.score for s in scored if s.sentence.id != best.sentence.id]
    asked = len(check.matched) + len(check.missing)
    kind = parsed.qtype
    return {
        "strength": float(check.strength or 0.0), "score": best.score,
        "question_cosine": float(check.question_cosine or 0.0), "cosine": best.cosine, "overlap": best.overlap,
        "rare_overlap": best.features.get("rare_overlap", 0.0), "matched_share": len(check.matched) / asked
        if asked else 0.0, "typed": float(bool(check.span)), "near": best.features.get("near", 0.0),
        "margin": best.score - max(others) if others else 0.0, "specific": float(kind in SPECIFIC),
        "name": float(kind == "name"), "open": float(kind in OPEN), "untyped_kind": float(kind is None),
        "question_terms": float(asked), "answer_words": float(len(content_words(check.claim))),
        "rank": best.features.get("rank", 0.0), "rule": float(kind in SPECIFIC and not check.span),
    }


def document_of(row: dict) -> str:
    """The document the row's question was asked about: the one most of its context comes from."""
    docs = Counter(c["document"] for c in row["context"] if c.get("document"))
    return docs.most_common(1)[0][0] if docs else ""


def right_rates(rows: list[dict]) -> dict:
    answerable = [r for r in rows if r["kind"] == "answerable"]
    inside = [r for r in answerable if r["evidence_in_context"]]
    return {"answer_right": round(sum(r["right"] for r in answerable) / max(len(answerable), 1), 3),
            "right_evidence_in_context": round(sum(r["right"] for r in inside) / max(len(inside), 1), 3),
            "n_in_context": len(inside)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--features", action="store_true", help=f"write the replayed rows to {FEATURES_FILE}")
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--weight", action="append", default=[], metavar="FEATURE=VALUE",
                        help="experiment: the answer pick's weight of a feature (kgcore.query.answer.weights.RULES)")
    args = parser.parse_args()
    from kgcore.query.answer.weights import RULES

    for setting in args.weight:
        feature, value = setting.split("=")
        RULES.weights[feature] = float(value)
    generator = ExtractiveGenerator()
    kept: dict[str, list[dict]] = {}
    for set_name in args.sets.split(","):
        rows = json.loads((args.rows / f"{set_name}_extractive.json").read_text(encoding="utf-8"))
        kept[set_name] = replay(rows, generator, set_name)
        if args.features:
            FEATURES_FILE.with_name(f"features_{set_name}.json").write_text(json.dumps(kept[set_name]),
                                                                            encoding="utf-8")
        table = verdict_table(kept[set_name])
        print(set_name, json.dumps({k: table[k] for k in ("confusion", "balanced_accuracy", "unsure")}),
              json.dumps(right_rates(kept[set_name])), flush=True)
    if args.features:
        FEATURES_FILE.write_text(json.dumps(kept), encoding="utf-8")


if __name__ == "__main__":
    main()
