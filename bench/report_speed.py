"""The report's sections on cost: indexing, query latency and the cost curves of growing collections."""

from __future__ import annotations

import json
from pathlib import Path

from report_format import load, md_table, missing, write_bar_plot, yes_no


def sharded_rows(rows: list[dict]) -> list[list]:
    """One table row per size, actor count and method served by actors (rows of either layout: ``dense_on_N_...``
    holding dense alone, or ``on_N_...`` holding each method)."""
    out = []
    for r in rows:
        for name, value in r.items():
            if not name.endswith("_ray_actors"):
                continue
            methods = {"dense": value} if name.startswith("dense_on_") else {
                m: v for m, v in value.items() if isinstance(v, dict)}
            for method, v in methods.items():
                agreement = _agreement(v)
                actors = " / ".join(str(a["resident_mb"]) for a in value.get("actors", [])) or "–"
                crossing = f"{value['crossing_nodes']:,} of {r['nodes']:,}" if "crossing_nodes" in value else "–"
                out.append([r["documents"], name.split("_")[-3], method,
                            f"{r[method]['p50_ms']} / {r[method]['p95_ms']}", f"{v['p50_ms']} / {v['p95_ms']}",
                            value["start_s"], agreement, actors, crossing])
    return out


def _agreement(v: dict) -> str:
    """How the actors' sentences agree with one process's: identical (yes / no, or how many questions gave
    identical sentences) and the mean overlap where measured."""
    same, overlap = v.get("same_sentences_as_one_process"), v.get("overlap_with_one_process")
    parts = [yes_no(same) if isinstance(same, bool) else f"{same} identical" if same is not None else "",
             f"overlap {overlap}" if overlap is not None else ""]
    return ", ".join(p for p in parts if p) or "–"


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
             "Generated documents indexed into one collection per size (`bench/scale_bench.py`).  Rows without a "
             "date were measured on a 2-core machine shared with other jobs (load average about 11), so their wall "
             "times are inflated several-fold; dated rows on another, quieter 2-core machine.  CPU seconds and "
             "memory are the dependable figures; compare times within one machine."]
    for kind in ("short", "long"):
        data = load(f"scale_{kind}.json", results)
        if data is None:
            parts.append(missing(f"scale_{kind}.json", f"scale_bench.py --kind {kind}"))
            continue
        rows = [[r["documents"], r["sentences"], r.get("workers", 1),
                 r.get("measured_on", "–").split(" ")[0] + (f" (asked at {r['asked_at']})" if "asked_at" in r else ""),
                 round(r["index_cpu_s"] / r["documents"], 3),
                 round(r["index_wall_s"] / r["documents"], 3), r["link_s"],
                 round(r["readd_unchanged_s"] / r["documents"] * 1000, 1), r["index_peak_rss_mb"], r["disk_mb"],
                 r["loaded_collection_rss_mb"], r.get("loaded_collection_mapped_mb", "–"), r["after_queries_rss_mb"],
                 r["load_s"], f"{r['groundedkg']['p50_ms']} / {r['groundedkg']['p95_ms']}",
                 f"{r['dense']['p50_ms']} / {r['dense']['p95_ms']}"] for r in data["rows"]]
        parts.append(f"**{kind} documents** (generated text; measured under `nice -n {data.get('nice', 0)}`):")
        parts.append(md_table(["documents", "sentences", "index workers", "measured", "index CPU s/doc",
                               "index wall s/doc", "link s",
                               "re-add ms/doc", "index peak RSS MB", "disk MB", "loaded RSS MB",
                               "of it mapped MB", "after queries RSS MB", "load s", "groundedkg p50/p95 ms",
                               "dense p50/p95 ms"], rows))
        sharded = sharded_rows(data["rows"])
        if sharded:
            parts.append("Served by Ray actors (`ShardedEngine`, the same machine) against one process (agreement: "
                         "the questions whose sentences are one process's, and for the default method the mean "
                         "share of one process's sentences kept; each actor's resident memory after the questions, "
                         "models included; the nodes grounded in documents of several shards.  Rows asked before "
                         "the shards traded the links that cross them had those links cut, hence their overlap "
                         "below 1):")
            parts.append(md_table(["documents", "actors", "method", "one process p50/p95 ms", "actors p50/p95 ms",
                                   "actors start s", "agreement", "each actor's resident MB",
                                   "nodes in several shards"], sharded))
        fit = data.get("fit") or {}
        if fit:
            sizes = fit["extrapolated_to_documents"]
            parts.append(f"Fitted `a + b·x` over the sizes measured ({fit['sentences_per_document']} sentences per "
                         "document); the last columns are **extrapolated**, not measured:")
            parts.append(md_table(["cost", "per document", "per sentence", "log-log slope"]
                                  + [f"at {n:,}" for n in sizes],
                                  [[k, v["per_document"], v["per_sentence"], v["loglog_slope"], *v["extrapolated"]]
                                   for k, v in fit.items() if isinstance(v, dict)]))
    parts.append(agreement_table(load("sharded_agreement.json", results)))
    papers = load("sharded_agreement_papers.json", results)
    if papers is not None:
        parts.append(papers_agreement_table(papers))
    return "\n\n".join(parts) + "\n"


def papers_agreement_table(data: dict) -> str:
    """The same on an indexed collection, with the offline answer compared too (``sharded_agreement.py --store``)."""
    rows = [[r["method"], r["shards"], r["budget_words"], r.get("same_answer", "–"), r["overlap"], r["min_overlap"],
             r["same"], r["gold_recall_one"], r["gold_recall_sharded"]] for r in data["rows"]]
    return (f"The same on collection `{data['collection']}` ({data['documents']} documents, {data['sentences']:,} "
            f"sentences; {data['questions']} questions of `{data.get('qa', 'bench/data/papers_qa.csv')}`, each with "
            "its evidence sentence as gold; shards in one process): same answer = questions whose offline answer and "
            "verdict are one process's.\n\n"
            + md_table(["method", "shards", "words", "same answer", "overlap", "least", "same sentences",
                        "gold, one process", "gold, sharded"], rows))


def agreement_table(data: dict | None) -> str:
    """How close the sharded engine comes to one process, per method, shards and budget
    (``bench/sharded_agreement.py``)."""
    if data is None:
        return missing("sharded_agreement.json", "sharded_agreement.py")
    rows = [[r["method"], r["shards"], r["budget_words"], r["overlap"], r["min_overlap"], r["same"],
             r["gold_recall_one"], r["gold_recall_sharded"],
             " to ".join(f"{x:+.3f}" for x in r["recall_change_95ci"]) if "recall_change_95ci" in r else "–"]
            for r in data["rows"]]
    return (f"Sharded against one process on people's questions ({data['questions']} HotpotQA dev questions over "
            f"{data['documents']} of its paragraphs, {data.get('sentences', '?')} sentences; "
            "`bench/sharded_agreement.py`): overlap = share of one process's sentences the sharded context keeps "
            "(mean and least over questions), same = identical selections, gold = supporting-sentence recall, "
            "with the paired-bootstrap 95 % interval of sharded minus one process.\n\n"
            + md_table(["method", "shards", "words", "overlap", "least", "same", "gold, one process",
                        "gold, sharded", "change 95 % CI"], rows))


def ask_page_section(results: Path) -> str:
    """The Ask page timed in Chromium (``ask_bench.py --output ask_page.json``): each side's question p50 / p95,
    its stages, and every page's first open."""
    title = "## The Ask page in a browser"
    data = load("ask_page.json", results)
    if data is None:
        return f"{title}\n\n" + missing("ask_page.json", "ask_bench.py --store STORE --output ask_page.json")
    sides = data["summary"]
    loads = {side: [r["load_before"][0] for r in runs] for side, runs in data["runs"].items()}
    rows = [[side, s["questions"], s["p50_s"], s["p95_s"], s["stages_p50"].get("answer_s"),
             s["stages_p50"].get("graph_s"), s["stages_p50"].get("polled_s"), s["first_question_s"],
             s["waited_prepared_s"], " / ".join(str(x) for x in loads.get(side, []))] for side, s in sides.items()]
    targets = data["targets"]
    first = next(iter(sides.values()))
    pages = [[page] + [s["pages_s"].get(page) for s in sides.values()] for page in first["pages_s"]]
    return "\n\n".join([
        title,
        f"Collection `{data['collection']}`; {data['rounds']} round(s) per side, sides alternating (base: "
        f"`{data['base'] or 'none'}`). A question is timed from the click on *Ask* until its answer is shown, its "
        "subgraph drawn and the app idle, clocked in the browser to the frame; *polled* is the same end as "
        f"Playwright's polling saw it. Targets: p50 ≤ {targets['p50_s']} s, p95 ≤ {targets['p95_s']} s, every page "
        f"≤ {targets['page_s']} s.",
        md_table(["side", "questions", "p50 (s)", "p95 (s)", "answer shown, p50 (s)", "subgraph drawn, p50 (s)",
                  "polled end, p50 (s)", "first question (s)", "background preparation (s)", "load at start"], rows),
        md_table(["first open of (s)", *sides], pages),
        "Meets the targets: " + "; ".join(f"{side}: p50 {yes_no(m['p50'])}, p95 {yes_no(m['p95'])}, pages "
                                          f"{yes_no(m['pages'])}" for side, m in data["meets_targets"].items()) + ".",
    ])
