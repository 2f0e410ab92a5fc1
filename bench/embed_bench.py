"""Embedding backends side by side: throughput, agreement with torch, and what int8 does to retrieval.

    python bench/embed_bench.py

On the sentences of Robinson Crusoe (``../shared/data``, else assets/) and the node strings of its
graph-sized vocabulary (clauses cut at commas), each backend (torch, onnx, onnx-int8) encodes the
same texts; reported: seconds, texts per second, the minimum cosine to torch's vectors, and for
dense sentence retrieval with the Crusoe dev questions (bench/robinson_crusoe_qa*.csv, never the
held-out file): top-10 agreement with torch and evidence hit@10 / @30.  Writes
bench/results/embed.json.  int8 is only offered with these figures next to it.
"""

from __future__ import annotations

import csv
import re
import time

import numpy as np
from common import CRUSOE_QA, ROOT, crusoe_path, machine, write_json

from kgcore.api import SHORT_MAX_TOKENS, evidence_hit, get_embedder, load_document, load_spacy, split_sentences

DEV = [CRUSOE_QA, ROOT / "bench" / "data" / "robinson_crusoe_qa_dev2.csv"]
BACKENDS = ("torch", "onnx", "onnx-int8")


def questions() -> list[tuple[str, str]]:
    rows = []
    for path in DEV:
        with path.open(encoding="utf-8") as fh:
            rows += [(r["question"], r["evidence"]) for r in csv.DictReader(fh) if r.get("evidence")]
    return rows


def retrieval(vectors: np.ndarray, qvecs: np.ndarray, texts: list[str], items, k: int) -> tuple[np.ndarray, float]:
    top = np.argsort(-(qvecs @ vectors.T), axis=1)[:, :k]
    hits = [evidence_hit(evidence, [texts[i] for i in sorted(row)]) for row, (_, evidence) in zip(top, items)]
    return top, float(np.mean(hits))


def main() -> None:
    sentences = [s.normalized for s in split_sentences(load_document(crusoe_path()), load_spacy())]
    clauses = list(dict.fromkeys(c.strip() for s in sentences for c in re.split(r"[,;:]", s) if c.strip()))
    items = questions()
    rows, reference = [], {}
    for backend in BACKENDS:
        embedder = get_embedder("", "cpu", backend)
        embedder.encode(sentences[:64])  # warm
        start = time.perf_counter()
        svecs = embedder.encode(sentences)
        sentence_s = time.perf_counter() - start
        start = time.perf_counter()
        cvecs = embedder.encode(clauses, max_tokens=SHORT_MAX_TOKENS)
        clause_s = time.perf_counter() - start
        qvecs = embedder.encode([q for q, _ in items])
        top10, hit10 = retrieval(svecs, qvecs, sentences, items, 10)
        _, hit30 = retrieval(svecs, qvecs, sentences, items, 30)
        reference = reference or {"s": svecs, "c": cvecs, "top10": top10}
        agreement = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top10, reference["top10"])])
        rows.append({"backend": backend, "model": embedder.name,
                     "sentences": len(sentences), "sentence_s": round(sentence_s, 2),
                     "sentences_per_s": round(len(sentences) / sentence_s, 1),
                     "node_strings": len(clauses), "node_string_s": round(clause_s, 2),
                     "node_strings_per_s": round(len(clauses) / clause_s, 1),
                     "min_cosine_to_torch": round(float(min((svecs * reference["s"]).sum(1).min(),
                                                            (cvecs * reference["c"]).sum(1).min())), 5),
                     "top10_agreement_with_torch": round(float(agreement), 3),
                     "dev_questions": len(items), "evidence_hit_at_10": round(hit10, 3),
                     "evidence_hit_at_30": round(hit30, 3)})
        print(rows[-1], flush=True)
    torch_s = rows[0]["sentence_s"] + rows[0]["node_string_s"]
    for r in rows:
        r["speedup_vs_torch"] = round(torch_s / (r["sentence_s"] + r["node_string_s"]), 2)
    print(f"{'backend':<10} {'sent/s':>8} {'nodes/s':>8} {'speedup':>8} {'min cos':>8} {'top10 agr':>9} "
          f"{'hit@10':>7} {'hit@30':>7}")
    for r in rows:
        print(f"{r['backend']:<10} {r['sentences_per_s']:>8} {r['node_strings_per_s']:>8} {r['speedup_vs_torch']:>8} "
              f"{r['min_cosine_to_torch']:>8} {r['top10_agreement_with_torch']:>9} {r['evidence_hit_at_10']:>7} "
              f"{r['evidence_hit_at_30']:>7}")
    write_json("embed.json", {"machine": machine(), "backends": rows})


if __name__ == "__main__":
    main()
