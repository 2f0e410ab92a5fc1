"""The report's sections on cost: indexing, query latency and the cost curves of growing collections."""

from __future__ import annotations

import json
from pathlib import Path

from report_format import load, md_table, missing, write_bar_plot, yes_no


def index_section(data: dict | None, out_dir: Path) -> str:
    if data is None:
        return "## Indexing\n\n" + missing("index.json", "index_bench.py")
    books = data["books"]
    rows = [[b["doc_id"], b["counts"]["words"], b["counts"]["sentences"], b["counts"]["nodes"], b["counts"]["edges"],
             b["wall_s"], b.get("model_load_s"), b["peak_rss_mb"], yes_no(b.get("meets_targets"))] for b in books]
    stages = list(dict.fromkeys(s for b in books for s in b["stages_s"]))
    stage_rows = [[b["doc_id"]] + [b["stages_s"].get(s) for s in stages] for b in books]
    plot = write_bar_plot("index_stages", out_dir, "Indexing time per stage", stages,
                          {b["doc_id"]: [b["stages_s"].get(s) for s in stages] for b in books}, "seconds")
    targets = ", ".join(f"{k}: " + ", ".join(f"{m} ≤ {v}" for m, v in t.items())
                        for k, t in data.get("targets", {}).items())
    return "\n\n".join([
        "## Indexing", f"Targets: {targets}." if targets else "",
        md_table(["book", "words", "sentences", "nodes", "edges", "wall s", "model load s", "peak RSS MB",
                  "meets targets"], rows),
        "Seconds per stage:", md_table(["book"] + stages, stage_rows), plot,
    ]) + "\n"


def query_section(data: dict | None, out_dir: Path) -> str:
    if data is None:
        return "## Query latency\n\n" + missing("query.json", "query_bench.py")
    methods = data["methods"]
    steps = list(dict.fromkeys(s for m in methods.values() for s in m.get("p50_step_ms", {})))
    met = data.get("meets_targets", {})
    rows = [[m, r["questions"], r["p50_ms"], r["p95_ms"], r.get("max_ms")]
            + [r.get("p50_step_ms", {}).get(s) for s in steps]
            + [yes_no(met.get(m))] for m, r in methods.items()]
    if data.get("obliqa"):  # the fused ranking on the 40-rulebook collection (124k graph nodes)
        r = data["obliqa"]
        rows.append(["groundedkg on ObliQA", r["questions"], r["p50_ms"], r["p95_ms"], r.get("max_ms")]
                    + [r.get("p50_step_ms", {}).get(s) for s in steps] + [yes_no(met.get("obliqa-groundedkg"))])
    plot = write_bar_plot("query_latency", out_dir, "Retrieval latency (answer generation excluded)", list(methods),
                          {"p50": [r["p50_ms"] for r in methods.values()],
                           "p95": [r["p95_ms"] for r in methods.values()]}, "ms")
    return "\n\n".join([
        "## Query latency", f"Peak RSS {data.get('peak_rss_mb')} MB; targets {json.dumps(data.get('targets', {}))}.",
        "The Crusoe methods run one after another on the same 50 questions, so every method after the first finds "
        "the questions' vectors in the process's cache of encoded strings (its embed step is near 0); the ObliQA "
        "row asks each of its questions once.",
        md_table(["method", "questions", "p50 ms", "p95 ms", "max ms"] + [f"p50 {s} ms" for s in steps]
                 + ["meets targets"], rows),
        plot,
    ]) + "\n"


def scale_section(results: Path) -> str:
    """The cost curves of bench/scale_bench.py: measured rows per kind of document, then the fitted growth."""
    parts = ["## Cost curves (scale)",
             "Generated documents indexed into one collection per size (`bench/scale_bench.py`).  The machine was "
             "shared with other jobs (load average about 11 on 2 cores), so wall times are inflated several-fold; "
             "CPU seconds and memory are the dependable figures."]
    for kind in ("short", "long"):
        data = load(f"scale_{kind}.json", results)
        if data is None:
            parts.append(missing(f"scale_{kind}.json", f"scale_bench.py --kind {kind}"))
            continue
        rows = [[r["documents"], r["sentences"], round(r["index_cpu_s"] / r["documents"], 3),
                 round(r["index_wall_s"] / r["documents"], 3), r["link_s"],
                 round(r["readd_unchanged_s"] / r["documents"] * 1000, 1), r["index_peak_rss_mb"], r["disk_mb"],
                 r["loaded_collection_rss_mb"], r.get("loaded_collection_mapped_mb", "–"), r["after_queries_rss_mb"],
                 r["load_s"], f"{r['groundedkg']['p50_ms']} / {r['groundedkg']['p95_ms']}",
                 f"{r['dense']['p50_ms']} / {r['dense']['p95_ms']}"] for r in data["rows"]]
        parts.append(f"**{kind} documents** (generated text; measured under `nice -n {data.get('nice', 0)}`):")
        parts.append(md_table(["documents", "sentences", "index CPU s/doc", "index wall s/doc", "link s",
                               "re-add ms/doc", "index peak RSS MB", "disk MB", "loaded RSS MB",
                               "of it mapped MB", "after queries RSS MB", "load s", "groundedkg p50/p95 ms",
                               "dense p50/p95 ms"], rows))
        sharded = [[r["documents"], n.split("_")[2], f"{r['dense']['p50_ms']} / {r['dense']['p95_ms']}",
                    f"{v['p50_ms']} / {v['p95_ms']}", v["start_s"], yes_no(v["same_sentences_as_one_process"])]
                   for r in data["rows"] for n, v in r.items() if n.startswith("dense_on_")]
        if sharded:
            parts.append("Dense served by Ray actors (`ShardedEngine`, the same machine) against one process:")
            parts.append(md_table(["documents", "actors", "one process p50/p95 ms", "actors p50/p95 ms",
                                   "actors start s", "same sentences"], sharded))
        fit = data.get("fit") or {}
        if fit:
            sizes = fit["extrapolated_to_documents"]
            parts.append(f"Fitted `a + b·x` over the sizes measured ({fit['sentences_per_document']} sentences per "
                         "document); the last columns are **extrapolated**, not measured:")
            parts.append(md_table(["cost", "per document", "per sentence", "log-log slope"]
                                  + [f"at {n:,}" for n in sizes],
                                  [[k, v["per_document"], v["per_sentence"], v["loglog_slope"], *v["extrapolated"]]
                                   for k, v in fit.items() if isinstance(v, dict)]))
    return "\n\n".join(parts) + "\n"
