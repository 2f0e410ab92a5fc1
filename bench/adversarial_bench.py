"""Index size and peak memory per input byte on adversarial inputs.

Each input is indexed by a real ``python -m kgcore index`` subprocess into a fresh store; its peak
resident memory comes from ``wait4`` (the child's own ``ru_maxrss``), its index size from the files it
left.  A tiny file gives the baseline (the models alone), so ``rss_per_input_byte`` is the memory the
input itself cost.

Inputs (written here, deterministic):

* ``one_line_commas`` -- one 200,000-character line of clauses joined by commas, no full stop;
* ``one_line_bare`` -- one 200,000-character line of words, no punctuation at all;
* ``repeated_100k`` -- 100 KB of one paragraph repeated (the same entities grounded thousands of times).

Run: ``.venv/bin/python bench/adversarial_bench.py`` (figures printed, written to
``bench/results/adversarial.json``).  ``--only NAME`` runs one input (and the baseline).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, write_json

CLAUSE = "the old rabbit ran past the gate and the gardener shouted at him"
WORDS = ("peter", "rabbit", "garden", "gate", "radish", "gardener", "ran", "ate", "lost", "shoe", "jacket",
         "cabbage", "mother", "wood", "tea", "basket")
PARAGRAPH = ("Peter ate some lettuces and some French beans; and then he ate some radishes. Mr. McGregor was on his "
             "hands and knees planting out young cabbages, but he jumped up and ran after Peter. ")
LINE_CHARS = 200_000
REPEATED_BYTES = 100_000


def inputs() -> dict[str, str]:
    """Name -> text of every input (the baseline first)."""
    commas = ", ".join([CLAUSE] * (LINE_CHARS // (len(CLAUSE) + 2) + 1))[:LINE_CHARS]
    bare = " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(LINE_CHARS // 5))[:LINE_CHARS]
    repeated = (PARAGRAPH * (REPEATED_BYTES // len(PARAGRAPH) + 1))[:REPEATED_BYTES]
    return {"baseline": "Peter ran home. His mother gave him some tea.\n", "one_line_commas": commas,
            "one_line_bare": bare, "repeated_100k": repeated}


def folder_bytes(folder: Path) -> tuple[int, str, int]:
    """(total bytes under ``folder``, its largest file's name, that file's bytes)."""
    sizes = [(p.stat().st_size, p.name) for p in folder.rglob("*") if p.is_file()]
    biggest = max(sizes, default=(0, ""))
    return sum(s for s, _ in sizes), biggest[1], biggest[0]


def run_one(name: str, text: str, work: Path) -> dict:
    """Index ``text`` as ``<name>.txt`` in a subprocess; its time, peak memory and index size."""
    source = work / f"{name}.txt"
    source.write_text(text, encoding="utf-8")
    store = work / f"store-{name}"
    cmd = [sys.executable, "-m", "kgcore", "index", str(source), "--collection", name, "--store", str(store),
           "--workers", "1", "--quiet"]
    start = time.perf_counter()
    with (work / f"{name}.err").open("wb") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak memory (communicate() would reap it)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    total, biggest, biggest_bytes = folder_bytes(store / name) if (store / name).exists() else (0, "", 0)
    row = {"input_bytes": len(text.encode()), "exit": code, "seconds": round(seconds, 1),
           "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "index_bytes": total, "largest_file": biggest,
           "largest_file_bytes": biggest_bytes}
    if code:
        row["stderr"] = (work / f"{name}.err").read_text(errors="replace")[-500:]
    row.update(_sentence_facts(store, name))
    return row


def _sentence_facts(store: Path, name: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from kgcore.api import Store

    try:
        index = Store(store).load(name)
    except Exception as exc:  # noqa: BLE001 - a failed run is reported, not raised
        return {"load_error": str(exc)[:200]}
    words = [len(s.original.split()) for s in index.sentences]
    return {"sentences": len(words), "max_sentence_words": max(words, default=0), "nodes": len(index.node_ids)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only this input (and the baseline)")
    args = parser.parse_args()
    texts = inputs()
    if args.only:
        texts = {k: v for k, v in texts.items() if k in ("baseline", args.only)}
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="kgcore-adversarial-") as tmp:
        for name, text in texts.items():
            rows[name] = run_one(name, text, Path(tmp))
            print(name, rows[name], flush=True)
    base = rows["baseline"]
    for name, row in rows.items():
        if name == "baseline":
            continue
        row["rss_over_baseline_mb"] = round(row["peak_rss_mb"] - base["peak_rss_mb"], 1)
        row["rss_bytes_per_input_byte"] = round(row["rss_over_baseline_mb"] * 2**20 / row["input_bytes"], 1)
        row["index_bytes_per_input_byte"] = round(row["index_bytes"] / row["input_bytes"], 1)
    print(f"{'input':<18}{'bytes':>9}{'s':>7}{'RSS MB':>8}{'+MB':>7}{'RSS B/B':>9}{'index B/B':>10}{'sents':>7}"
          f"{'max words':>10}  largest file")
    for name, r in rows.items():
        print(f"{name:<18}{r['input_bytes']:>9}{r['seconds']:>7}{r['peak_rss_mb']:>8}"
              f"{r.get('rss_over_baseline_mb', 0):>7}"
              f"{r.get('rss_bytes_per_input_byte', 0):>9}{r.get('index_bytes_per_input_byte', 0):>10}"
              f"{r.get('sentences', 0):>7}{r.get('max_sentence_words', 0):>10}  {r['largest_file']} "
              f"({r['largest_file_bytes']:,} B)")
    write_json("adversarial.json", {"inputs": rows})


if __name__ == "__main__":
    main()
