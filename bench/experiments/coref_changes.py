"""Which pronoun resolutions does a change to the ``heuristic`` coreference backend change, and is the new one right?

Coreference has no gold annotation here, so a change is judged on what it changes: every third-person pronoun of
the NarrativeQA design books (``bench/data/narrativeqa_split.json``; the sentences of an indexed store) is resolved
by the code on ``PYTHONPATH`` and its links written out (``--links``); ``--compare OLD NEW`` pairs two such files
and writes, for a random sample of the pronouns whose antecedent differs, a sheet a reader judges blind: the
pronoun in its sentence with the two sentences before, and two candidate antecedents in random order (``A`` /
``B``, one of them possibly "(left as written)").  ``--score KEY JUDGED`` counts the judge's verdicts
(``A``, ``B``, ``both`` or ``neither`` per row) against the key: how often the new resolution is the right one.

    PYTHONPATH=/work/wt-nqa python bench/experiments/coref_changes.py --links old.json
    PYTHONPATH=. python bench/experiments/coref_changes.py --links new.json
    python bench/experiments/coref_changes.py --compare old.json new.json --sample 120
    python bench/experiments/coref_changes.py --score coref_sheet_key.json judged.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEEP = "(left as written)"


def links(store_root: str, out: Path, part: str = "design") -> None:
    """Every resolved pronoun of the ``part`` books: ``{book: {"sentences": [...], "links": [...]}}``."""
    from kgcore.api import Store
    from kgcore.index.coref import get_resolver

    books = json.loads((ROOT / "bench/data/narrativeqa_split.json").read_text())[part]
    store, resolver, found = Store(store_root), get_resolver("heuristic"), {}
    for book in books:
        sentences = list(store.load(book).sentences) if store.exists(book) else _split(book)
        _, made = resolver.resolve_with_links(sentences)
        row = {s.id: k for k, s in enumerate(sentences)}
        found[book] = {"sentences": [s.normalized for s in sentences],
                       "links": [[row[x.sentence_id], x.start, x.end, x.pronoun, x.antecedent] for x in made]}
        print(book, len(sentences), "sentences,", len(made), "pronouns resolved", file=sys.stderr)
    out.write_text(json.dumps(found))


def _split(book: str) -> list:
    """A book's prose sentences as indexing splits them, where no indexed store holds it (no store is needed to
    see what a coreference change changes)."""
    from kgcore.core.nlp import load_spacy
    from kgcore.core.settings import Settings
    from kgcore.core.types import RETRIEVABLE
    from kgcore.index.load import load_document
    from kgcore.index.sentences import split_sentences

    settings = Settings()
    document = load_document(ROOT.parent / "shared/data/narrativeqa" / f"{book}.txt", settings, name=book)
    sentences = split_sentences(document, load_spacy(settings.spacy_model), settings.chunk_tokens,
                                settings.max_sentence_words)
    return [s for s in sentences if s.role in RETRIEVABLE]


def compare(old_path: Path, new_path: Path, sample: int, seed: int, out: Path) -> None:
    """The blind sheet (``out``) and its key (``out`` with ``_key``) for ``sample`` changed pronouns."""
    old, new = json.loads(old_path.read_text()), json.loads(new_path.read_text())
    changed = []
    for book, made in new.items():
        before = {(k, s): a for k, s, _e, _p, a in old[book]["links"]}
        after = {(k, s): (e, p, a) for k, s, e, p, a in made["links"]}
        ends = {(k, s): (e, p) for k, s, e, p, _a in old[book]["links"]} | {key: v[:2] for key, v in after.items()}
        for key in sorted(set(before) | set(after)):
            was, now = before.get(key, KEEP), after.get(key, (0, "", KEEP))[2]
            if was != now:
                changed.append((book, key, ends[key], was, now))
    # Only the name's describing adjective changed ("astonished Anne" -> "Anne"): the same referent, not judged.
    same = [c for c in changed if _same_referent(c[3], c[4])]
    changed = [c for c in changed if not _same_referent(c[3], c[4])]
    counts = Counter(book for book, *_ in changed)
    print(f"{len(changed)} pronouns changed ({len(same)} more only by a describing adjective): {dict(counts)}",
          file=sys.stderr)
    rng = random.Random(seed)
    picked = rng.sample(changed, min(sample, len(changed)))
    sheet, key = [], []
    for n, (book, (k, start), (end, pronoun), was, now) in enumerate(picked):
        sentences = new[book]["sentences"]
        text = sentences[k]
        marked = f"{text[:start]}[[{text[start:end]}]]{text[end:]}"
        first_is_new = rng.random() < 0.5
        a, b = (now, was) if first_is_new else (was, now)
        sheet.append({"row": n, "before": sentences[max(0, k - 2):k], "sentence": marked, "pronoun": pronoun,
                      "A": a, "B": b})
        key.append({"row": n, "book": book, "new": "A" if first_is_new else "B", "old": was, "now": now})
    out.write_text(json.dumps(sheet, indent=1))
    out.with_name(out.stem + "_key.json").write_text(json.dumps({"changed": len(changed), "by_book": counts,
                                                                  "adjective_only": len(same),
                                                                  "rows": key}, indent=1))


def _same_referent(was: str, now: str) -> bool:
    """Whether two antecedents differ only by leading lower-case words: "astonished Anne" and "Anne" ("Charles
    Musgrove" and "Musgrove" may be two people, and are judged)."""
    if KEEP in (was, now) or was == now:
        return False
    longer, shorter = (was, now) if len(was) > len(now) else (now, was)
    prefix = longer[:-len(shorter)].split() if longer.endswith(" " + shorter) else []
    return bool(prefix) and all(w.islower() for w in prefix)


def score(key_path: Path, judged_path: Path) -> dict:
    """How often the judge took the new antecedent, the old one, both or neither."""
    key = {r["row"]: r for r in json.loads(key_path.read_text())["rows"]}
    judged = json.loads(judged_path.read_text())
    tally: Counter[str] = Counter()
    for row in judged:
        verdict, new = row["verdict"].strip(), key[row["row"]]["new"]
        verdict = verdict.upper() if verdict.upper() in ("A", "B") else verdict.lower()
        tally["new right" if verdict == new else "old right" if verdict in ("A", "B") else verdict] += 1
    return dict(tally)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="/work/stores/narrativeqa")
    parser.add_argument("--links", type=Path)
    parser.add_argument("--split", choices=("design", "held_out"), default="design",
                        help="whose books --links resolves (the held-out ones: once, to check the design rounds)")
    parser.add_argument("--compare", nargs=2, type=Path)
    parser.add_argument("--sample", type=int, default=120)
    parser.add_argument("--seed", type=int, default=58)
    parser.add_argument("--sheet", type=Path, default=Path("coref_sheet.json"))
    parser.add_argument("--score", nargs=2, type=Path, metavar=("KEY", "JUDGED"))
    args = parser.parse_args()
    if args.links:
        links(args.store, args.links, args.split)
    if args.compare:
        compare(*args.compare, args.sample, args.seed, args.sheet)
    if args.score:
        print(json.dumps(score(*args.score)))


if __name__ == "__main__":
    main()
