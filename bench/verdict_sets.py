"""The question sets of the verdict bench (``bench/verdict_bench.py``): people's questions on papers and novels,
split into design and held-out parts by whole documents.

* ``papers``: ``bench/data/papers_qa.csv`` (question, answer, the evidence sentence) over eight arXiv PDFs of
  ``../shared/data/papers/``; the split is ``bench/data/papers_split.json`` (``papers_qa``).
* ``qasper``: ``../shared/data/qasper/qasper_qa.jsonl`` (questions written from titles and abstracts, answers
  with evidence paragraphs) over ten papers; the split is ``bench/data/papers_split.json`` (``qasper``).  A question
  all of whose answers say "unanswerable" is kept as ``unanswerable``: any answer to it is wrong; one whose
  answers are all "yes"/"no" is ``yes/no``: an offline answer quotes the text and never says yes or no, so it is
  counted apart.
* ``novels``: ``../shared/data/narrativeqa/`` (questions written from plot summaries, two reference answers);
  the split is ``bench/data/narrativeqa_split.json``.  There is no gold evidence: the bench derives it from the
  reference answers (:func:`kgcore.evaluate.diagnose.gold_support`).

Each part of the papers and QASPER is its own collection in the verdict store (``papers-design``,
``papers-held-out``, ``qasper-design``, ``qasper-held-out``), so that the support check's per-collection
threshold of a design collection never reads a held-out paper; each question is asked within its paper.  The
novels are read from a store of one collection per book.

    python bench/verdict_sets.py --store /work/stores/verdict     # index the papers and QASPER parts once
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import dataclass
from pathlib import Path

from common import ROOT

DATA = ROOT.parent / "shared" / "data"
BENCH = ROOT / "bench"
PAPERS_SPLIT = BENCH / "data" / "papers_split.json"
NOVELS_SPLIT = BENCH / "data" / "narrativeqa_split.json"
PARTS = ("design", "held_out")
KINDS = ("answerable", "yes/no", "unanswerable")


@dataclass(frozen=True)
class Item:
    """One question of a set: the collection and document it is asked in, the reference answers and the gold
    evidence (sentences for papers, paragraphs for QASPER, none for novels)."""

    set: str
    part: str
    collection: str
    document: str
    question: str
    answers: tuple[str, ...]
    evidence: tuple[str, ...] = ()
    kind: str = "answerable"


def collection_name(set_name: str, part: str) -> str:
    """``papers-design``, ``qasper-held-out``: the verdict store's collection of one part of a set."""
    return f"{set_name}-{part.replace('_', '-')}"


def split(set_name: str) -> dict[str, list[str]]:
    """The committed split of a set: its design and held-out files (books for ``novels``)."""
    if set_name == "novels":
        data = json.loads(NOVELS_SPLIT.read_text(encoding="utf-8"))
        return {part: data[part] for part in PARTS}
    key = {"papers": "papers_qa", "qasper": "qasper"}[set_name]
    return json.loads(PAPERS_SPLIT.read_text(encoding="utf-8"))[key]


def source_files(set_name: str, part: str) -> list[Path]:
    folder = {"papers": DATA / "papers", "qasper": DATA / "qasper" / "papers", "novels": DATA / "narrativeqa"}
    suffix = ".txt" if set_name == "novels" else ""
    return [folder[set_name] / f"{name}{suffix}" for name in split(set_name)[part]]


def items(set_name: str, part: str, novel_collections: dict[str, str] | None = None) -> list[Item]:
    """The questions of one part of a set, in file order; ``novel_collections`` maps a book slug to its
    collection in the novels' store."""
    from kgcore.api import doc_id_for

    files = split(set_name)[part]
    if set_name == "papers":
        rows = csv.DictReader((BENCH / "data" / "papers_qa.csv").open(encoding="utf-8"))
        return [Item("papers", part, collection_name("papers", part), doc_id_for(r["paper"]), r["question"],
                     (r["answer"],), (r["evidence"],)) for r in rows if r["paper"] in files]
    if set_name == "qasper":
        lines = (DATA / "qasper" / "qasper_qa.jsonl").open(encoding="utf-8")
        return [qasper_item(json.loads(line), part) for line in lines if json.loads(line)["paper"] in files]
    out = []
    for book in files:
        collection = (novel_collections or {}).get(book, book)
        rows = csv.DictReader((DATA / "narrativeqa" / f"{book}_qa.csv").open(encoding="utf-8"))
        out += [Item("novels", part, collection, "", r["question"].strip(),
                     tuple(a.strip() for a in (r["answer1"], r["answer2"]) if a.strip())) for r in rows]
    return out


def qasper_item(row: dict, part: str) -> Item:
    """A QASPER question: its answerable answers and their evidence paragraphs, and its kind."""
    from kgcore.api import doc_id_for

    answered = [a for a in row["answers"] if not a["unanswerable"]]
    texts = tuple(dict.fromkeys(a["answer"].strip() for a in answered if a["answer"].strip()))
    evidence = tuple(dict.fromkeys(e for a in answered for e in a["evidence"] if e.strip()))
    kind = "unanswerable" if not answered else "yes/no" if all(
        t.lower().strip(" .") in ("yes", "no") for t in texts) else "answerable"
    return Item("qasper", part, collection_name("qasper", part), doc_id_for(row["paper"]), row["question"].strip(),
                texts, evidence, kind)


# -- the truth ----------------------------------------------------------------------
#: A document sentence lies in a gold evidence text when this share of its content words is in it (PDF and
#: markdown text is re-flowed and cleaned at indexing, so the sentence is rarely an exact substring).
INSIDE_SHARE = 0.7
#: ... and it has at least this many content words (not a heading or a number alone).
MIN_WORDS = 3


def is_right(answer: str, item: Item) -> bool:
    """The truth of an answer: it holds at least half (``kgcore.api.CORRECT_RECALL``) of a reference answer's
    content words that the question does not say, the diagnosis's own rule; an ``unanswerable`` question has no
    right answer."""
    from kgcore.api import CORRECT_RECALL, answer_share

    return item.kind != "unanswerable" and answer_share(answer, item.answers, item.question) >= CORRECT_RECALL


def evidence_ids(item: Item, index, embedder) -> list[str] | None:
    """The ids of the document's gold evidence sentences: for papers and QASPER the sentences lying in the gold
    evidence (:data:`INSIDE_SHARE`) and among them those holding the most reference words; for novels the
    sentences :mod:`kgcore.evaluate.diagnose` finds supporting a reference answer.  None when there is none (no
    evidence given, evidence in a table the text lacks, or no sentence of the book supports an answer)."""
    from kgcore.api import SUPPORT_MIN, answer_share, content_words, evidence_rows, gold_support

    if item.set == "novels":
        scores = gold_support(index, embedder, item.question, list(item.answers))
        rows = evidence_rows(scores) if scores["support"].max() >= SUPPORT_MIN else []
        return [index.sentences[r].id for r in rows] or None
    texts = [content_words(e) | content_words(e.replace("-", "")) for e in item.evidence]
    inside = []
    for s in index.sentences:
        words = content_words(s.original)
        if s.doc_id == item.document and len(words) >= MIN_WORDS and any(
                len(words & t) / len(words) >= INSIDE_SHARE for t in texts):
            inside.append((answer_share(s.original, item.answers, item.question), s.id))
    if not inside:
        return None
    best = max(share for share, _ in inside)
    return [sid for share, sid in inside if share == best]


def index_parts(store_root: Path, workers: int, sets: tuple[str, ...] = ("qasper", "papers"),
                parts: tuple[str, ...] = PARTS) -> None:
    """Index each part of the papers and QASPER into its own collection (an identical one is reused)."""
    from kgcore.api import Job, Store, index_files

    store = Store(store_root)
    for set_name in sets:
        for part in parts:
            name = collection_name(set_name, part)
            (outcome,) = index_files([Job(p.name, p) for p in source_files(set_name, part)], store, name,
                                     workers=workers)
            print(name, outcome.collection.counts, "failed:", outcome.failed, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description="Index the verdict bench's papers and QASPER collections.")
    parser.add_argument("--store", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    index_parts(args.store, args.workers)


if __name__ == "__main__":
    main()
