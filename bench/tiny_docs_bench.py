"""Per-document overhead: many HotpotQA-sized documents in one collection against the same text as one document.

    python bench/tiny_docs_bench.py                 # 1,000 documents (target: overhead <= 50 ms each)
    python bench/tiny_docs_bench.py --documents 200

The documents are consecutive paragraph groups of The Phantom of the Opera (public domain, from
../shared/data), each 40-90 words like a HotpotQA paragraph, written to a temporary folder.  Both
runs index exactly the same words with models already loaded; the overhead per document is
``(wall(many) - wall(one)) / documents``; indexing both again unchanged (every file reused, nothing built)
gives the cost of re-adding per document.  That includes real extra work (coreference cannot cross
documents, so 100 documents have a third more nodes to embed than the same words as one), so the time
outside the model stages (spaCy and the encoder: reading, staging, manifests, linking, Chroma, commit)
per document is reported next to it.  Writes bench/results/tiny_docs.json.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, write_json

from kgcore.api import Job, Store, get_embedder, index_files, load_spacy, strip_gutenberg

PHANTOM = ROOT.parent / "shared" / "data" / "phantom_of_the_opera.txt"
TARGET_MS = 50
#: The stages whose time grows with the words (spaCy and the encoder), not with the number of documents.
MODEL_STAGES = ("coref", "parse", "graph", "embed", "qa")


def tiny_documents(count: int, low: int = 40, high: int = 90) -> list[str]:
    """``count`` texts of ``low``-``high`` words: consecutive paragraphs of the novel, joined or cut."""
    body = strip_gutenberg(PHANTOM.read_text(encoding="utf-8"))
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", body)][20:]  # past the title and contents
    out, current = [], []
    for words in (p.split() for p in paragraphs if len(p.split()) >= 8):
        current += words
        while len(current) >= low:
            out.append(" ".join(current[:high]))
            current = current[high:] if len(current) > high else []
            if len(out) == count:
                return out
    raise SystemExit(f"{PHANTOM}: only {len(out)} documents of {low}+ words")


def timed(store: Store, name: str, jobs: list[Job], workers: int) -> tuple[float, dict]:
    start = time.perf_counter()
    (outcome,) = index_files(jobs, store, name, workers=workers)
    wall = time.perf_counter() - start
    if outcome.failed:
        raise SystemExit(f"{name}: {outcome.failed[:3]}")
    c = outcome.collection.counts
    model_s = sum(v for m in outcome.added for k, v in m.timings_s.items() if k in MODEL_STAGES)
    return wall, {"documents": c.documents, "sentences": c.sentences, "nodes": c.nodes, "edges": c.edges,
                  "link_s": outcome.collection.link_seconds, "model_stages_s": round(model_s, 2),
                  "outside_model_stages_s": round(wall - model_s, 2)}


def readd(store: Store, name: str, jobs: list[Job]) -> float:
    """Seconds to index ``jobs`` again unchanged: every one must be reused, nothing built."""
    start = time.perf_counter()
    (outcome,) = index_files(jobs, store, name, workers=1)
    wall = time.perf_counter() - start
    if outcome.added or len(outcome.reused) != len(jobs):
        raise SystemExit(f"{name}: re-adding unchanged files built {len(outcome.added)} documents")
    return wall


def run(documents: int = 1000, workers: int = 1) -> dict:
    """Index ``documents`` tiny documents and the same words as one document; the per-document overhead."""
    texts = tiny_documents(documents)
    load_spacy()
    get_embedder()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        paths = []
        for i, text in enumerate(texts):
            paths.append(folder / f"doc-{i:04d}.txt")
            paths[-1].write_text(text + "\n", encoding="utf-8")
        whole = Path(tmp) / "whole.txt"
        whole.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
        store = Store(Path(tmp) / "store")
        one_s, one = timed(store, "one", [Job(whole.name, whole)], 1)
        many_s, many = timed(store, "many", [Job(p.name, p) for p in paths], workers)
        readd_one_s = readd(store, "one", [Job(whole.name, whole)])
        readd_many_s = readd(store, "many", [Job(p.name, p) for p in paths])
    overhead_ms = (many_s - one_s) / len(texts) * 1000
    fixed_ms = (many["outside_model_stages_s"] - one["outside_model_stages_s"]) / len(texts) * 1000
    row = {"documents": len(texts), "words": sum(len(t.split()) for t in texts), "workers": workers,
           "one_document_s": round(one_s, 2), "many_documents_s": round(many_s, 2),
           "overhead_per_document_ms": round(overhead_ms, 1),
           "outside_model_stages_per_document_ms": round(fixed_ms, 1), "target_ms": TARGET_MS,
           "meets_target": overhead_ms <= TARGET_MS,
           "readd_unchanged": {"one_document_s": round(readd_one_s, 3), "many_documents_s": round(readd_many_s, 3),
                               "per_document_ms": round(readd_many_s / len(texts) * 1000, 2)},
           "one": one, "many": many}
    print(json.dumps(row, indent=1), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default="tiny_docs.json", help="file name under bench/results")
    args = parser.parse_args()
    write_json(args.out, {"machine": machine(), **run(args.documents, args.workers)})


if __name__ == "__main__":
    main()
