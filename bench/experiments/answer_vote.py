"""Does the offline answer pick gain by counting how many context sentences name the same answer (answer
redundancy), instead of trusting the one best-scored sentence?  Replayed on the verdict bench's design rows.

    python bench/experiments/answer_vote.py                       # every design set, every variant
    python bench/experiments/answer_vote.py --sets novels

For a question asking for a person, place, time, quantity or name, every shortlisted context sentence's spans of
that kind are candidates (a span naming a word of the question is not: "Who does Anne marry?" is not answered by
"Anne"); a candidate's vote is the sum over the sentences holding it of ``exp((score - best) / T)``; the pick
quotes the best-scored sentence holding the candidate with the most votes.  Variants: the current pick, votes at
several temperatures ``T`` (``vote-pp``: on people and places only), and the whole best sentence instead of its
clause (how much the clause trimming costs).
Design rows only (``bench/verdict_bench.py --part design --rows``); the measure is the verdict bench's: the answer
right when the gold evidence is in the context.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
from verdict_bench import ROWS, SETS  # noqa: E402
from verdict_replay import context_of, right_rates  # noqa: E402
from verdict_sets import Item, is_right  # noqa: E402

from kgcore.query.answer.base import ParseMemo  # noqa: E402
from kgcore.query.answer.extractive import ExtractiveGenerator  # noqa: E402
from kgcore.query.answer.select import Question, ScoredSentence  # noqa: E402
from kgcore.query.answer.words import content_words  # noqa: E402

VOTED = frozenset(("person", "place", "time", "number", "name"))
#: The kinds a novel's questions ask most (``vote-pp=T`` variants vote on these only).
PEOPLE_PLACES = frozenset(("person", "place"))
#: A span longer than this many words is a whole sentence named by coreference, not a candidate.
MAX_SPAN_WORDS = 6


def key(text: str) -> str:
    """A candidate's key: its content words, lower-cased and sorted ("Mr. Gilbert Blythe" -> "blythe gilbert")."""
    return " ".join(sorted(content_words(text)))


def voted(scored: list[ScoredSentence], parsed: Question, question: str, temperature: float,
          kinds: frozenset[str] = VOTED) -> ScoredSentence | None:
    """The best-scored sentence holding the candidate with the most votes, or None when no candidate."""
    if parsed.qtype not in kinds or not scored:
        return None
    asked = content_words(question)
    best = scored[0].score
    votes: dict[str, float] = defaultdict(float)
    holders: dict[str, list[ScoredSentence]] = defaultdict(list)
    for s in scored:
        if not s.type_match:
            continue
        seen = set()
        for a, b in s.spans:
            text = s.sentence.text[a:b]
            k = key(text)
            if not k or len(text.split()) > MAX_SPAN_WORDS or set(k.split()) <= asked or k in seen:
                continue
            seen.add(k)
            votes[k] += math.exp((s.score - best) / temperature)
            holders[k].append(s)
    if not votes:
        return None
    top = max(votes, key=lambda k: (votes[k], -min(scored.index(h) for h in holders[k])))
    return max(holders[top], key=lambda s: s.score)


def replay(rows: list[dict], generator: ExtractiveGenerator, set_name: str, variant: str) -> list[dict]:
    out = []
    for row in rows:
        context = context_of(row)
        nlp = ParseMemo(generator.nlp)
        answer, scored = generator._extract(row["question"], context, nlp)
        text = answer.text
        parsed = Question.parse(row["question"], nlp)
        if variant == "sentence":
            text = scored[0].sentence.text
        elif variant.startswith("vote"):
            kinds = PEOPLE_PLACES if variant.startswith("vote-pp") else VOTED
            pick = voted(scored, parsed, row["question"], float(variant.split("=")[1]), kinds)
            if pick is not None and pick is not scored[0]:
                text = generator._quote(pick, parsed, nlp)
        item = Item(set_name, "design", "", "", row["question"], tuple(row["answers"]), (), row["kind"])
        out.append({**{k: row[k] for k in ("question", "kind", "answers", "evidence_in_context")},
                    "answer": text, "right": is_right(text, item), "qtype": parsed.qtype})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--variants", default="current,sentence,vote=0.25,vote=0.5,vote=1")
    args = parser.parse_args()
    generator = ExtractiveGenerator()
    results = {}
    for set_name in args.sets.split(","):
        rows = json.loads((ROWS / f"{set_name}_extractive.json").read_text(encoding="utf-8"))
        for variant in args.variants.split(","):
            replayed = replay(rows, generator, set_name, variant)
            by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for r in replayed:
                if r["kind"] == "answerable" and r["evidence_in_context"]:
                    by_kind[str(r["qtype"])][0] += r["right"]
                    by_kind[str(r["qtype"])][1] += 1
            results[f"{set_name}/{variant}"] = {**right_rates(replayed), "by_kind": dict(by_kind)}
            print(set_name, variant, json.dumps(results[f"{set_name}/{variant}"]), flush=True)
    (ROWS / "answer_vote.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
