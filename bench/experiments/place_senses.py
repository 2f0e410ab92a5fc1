"""Which place spans does WordNet take away, and are they places?

    KGCORE_WORDNET=/nonexistent python bench/verdict_bench.py --part design --sets novels --rows ...
    python bench/experiments/place_senses.py

For every "where" question of the NarrativeQA design books, every sentence of its 1,000-word context (the rows
the verdict bench kept, from a run without WordNet: with it, the contexts already leave out sentences whose only
place it takes away) is read for place spans twice: with WordNet (:mod:`kgcore.core.wordnet`) and without it (the
word lists alone, ``KGCORE_WORDNET`` pointed nowhere).  A span found without WordNet that overlaps none found with
it is *removed*.  The removed spans, deduplicated, in a fixed random order, go to
``bench/results/place_senses.json``; the first 100 were read by hand, and :data:`READ` says which of them name a
place a "where" can ask for, and which a part of the body something lies on or in.  The title rule (a proper noun
after a title is a person) reads no WordNet, is the same in both readings and is not measured here.
"""

from __future__ import annotations

import ast
import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
from common import RESULTS, write_json  # noqa: E402
from verdict_bench import ROWS  # noqa: E402

from kgcore.core import wordnet  # noqa: E402
from kgcore.core.nlp import load_spacy  # noqa: E402
from kgcore.query.answer.expected import expected_answer  # noqa: E402
from kgcore.query.answer.spans import answer_spans  # noqa: E402

#: The reading of the first 100 removed spans (1-based positions in the written list): places, and parts of the body
#: (the other 87 name no place: "to its beauties", "by auction", "in silence", "in a half-dream"; the places: "in
#: the moonlight", "at the mass").
READ = {"place": [23, 26], "part of the body": [13, 33, 50, 55, 59, 63, 64, 66, 68, 69, 81], "read": 100}


def spans(doc, expected, question, folder: str) -> list[tuple[int, int]]:
    """The place spans of ``doc`` with WordNet read from ``folder``."""
    os.environ["KGCORE_WORDNET"] = folder
    wordnet.forget()
    return answer_spans(list(doc), expected, question)


def removed(rows: list[dict], nlp) -> list[dict]:
    """Every place span found without WordNet and overlapping none found with it, with its question and sentence."""
    out = []
    for row in rows:
        question = nlp(row["question"])
        expected = expected_answer(question)
        if expected.kind != "place":
            continue
        context = row["context"] if isinstance(row["context"], list) else ast.literal_eval(row["context"])
        for sentence in context:
            doc = nlp(sentence["text"])
            kept = spans(doc, expected, question, wordnet.DEFAULT_DIR)
            out += [{"question": row["question"], "span": doc[a:b].text, "sentence": sentence["text"]}
                    for a, b in spans(doc, expected, question, "/nonexistent")
                    if not any(a < y and x < b for x, y in kept)]
    return out


def main() -> None:
    rows = json.loads((ROWS / "novels_extractive.json").read_text(encoding="utf-8"))
    found = removed(rows, load_spacy())
    random.Random(0).shuffle(found)
    unique = list({item["span"]: item for item in found}.values())
    write_json(RESULTS / "place_senses.json", {"removed": len(found), "distinct": len(unique), "reading": READ,
                                               "spans": unique})
    print(f"{len(found)} removed place spans, {len(unique)} distinct; read: {READ}")


if __name__ == "__main__":
    main()
