"""Collect the benchmark results into docs/evaluation.md with tables, PNG plots and machine info.

    python bench/report.py                 # read bench/results/{index,query,...,fused_quality,multihop}.json
    python bench/report.py --run           # run the three benchmarks and the QA evaluations first (slow)
    python bench/report.py --eval out/     # also include another `python -m kgcore eval` summary (repeatable)

``--run`` also evaluates all six methods at word budgets 0 and 1000 with
the offline extractive answerer on Peter Rabbit (assets dev set) and
Robinson Crusoe (bench/data/robinson_crusoe_qa.csv) into
``bench/results/eval/<doc>/``; every summary found there is reported in the
shape of the paper's Table 1.  A missing result file becomes a note in the
report saying how to produce it.  Plots are PNG files drawn with matplotlib
(Agg backend) next to the report.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from common import PETER_QA, RESULTS, ROOT, STORE_ROOT, machine

BENCHES = ("index_bench.py", "query_bench.py", "retrieval_quality.py")
#: (document id in the bench store, QA set) evaluated by ``--run``.
# Crusoe is evaluated end to end on its held-out set (50 questions written before any tuning).
EVALS = (("peter-rabbit", PETER_QA), ("robinson-crusoe", ROOT / "bench" / "data" / "robinson_crusoe_qa_test.csv"))
EVAL_DIR = "eval"
#: The report, with the documentation.
DOC = ROOT / "docs" / "evaluation.md"
COLOURS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7")


# -- markdown and PNG ------------------------------------------------------------------
def md_table(headers: list[str], rows: list[list]) -> str:
    """A GitHub markdown table (``|`` in cells escaped, None shown as a dash)."""
    cell = lambda v: "–" if v is None else str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows])


def write_bar_plot(name: str, out_dir: Path, title: str, categories: list[str],
                   series: dict[str, list[float | None]], unit: str = "", y_max: float | None = None) -> str:
    """Write a grouped bar chart (one group per category, one bar per series) as ``name``.png.

    Returns the markdown image line.  The y axis runs from 0 to ``y_max``
    (default: matplotlib's choice); a None value leaves a gap in its group.
    """
    import matplotlib  # only the report needs it; the Agg backend draws without a display

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(max(6.4, 0.9 * len(categories) + 3.5), 4.6))
    bar_w = 0.8 / max(len(series), 1)
    for j, (label, values) in enumerate(series.items()):
        xs = [i + (j - (len(series) - 1) / 2) * bar_w for i, v in enumerate(values) if v is not None]
        axes.bar(xs, [v for v in values if v is not None], bar_w * 0.95, label=label, color=COLOURS[j % len(COLOURS)])
    axes.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    axes.set(title=title, ylabel=unit)
    axes.set_ylim(0, y_max)
    axes.grid(axis="y", color="#ddd")
    axes.set_axisbelow(True)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    figure.tight_layout()
    figure.savefig(out_dir / f"{name}.png", dpi=110)
    plt.close(figure)
    return f"![{name}]({name}.png)"


# -- sections ----------------------------------------------------------------------------
def load(name: str, results: Path) -> dict | None:
    path = results / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def missing(name: str, script: str) -> str:
    return f"_No `{name}` yet: run `python bench/{script}` (or `python bench/report.py --run`)._\n"


def yes_no(flag) -> str:
    return "–" if flag is None else ("yes" if flag else "**no**")


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


def quality_section(data: dict | None, out_dir: Path) -> str:
    if data is None:
        return "## Retrieval quality\n\n" + missing("retrieval_quality.json", "retrieval_quality.py")
    rows, parts = data["rows"], ["## Retrieval quality"]
    parts.append("Evidence hit rate (the evidence substring lies in the selected sentences) by word budget; "
                 "`dev` sets guided the design, `test` sets were written beforehand and held out.")
    whole = {(c["book"], c["split"]): c for c in data.get("whole_book", [])}
    for book, split in dict.fromkeys((r["book"], r.get("split", "dev")) for r in rows):
        mine = [r for r in rows if (r["book"], r.get("split", "dev")) == (book, split)]
        budgets = [b for b in dict.fromkeys(r["budget_words"] for r in mine) if b]
        methods = list(dict.fromkeys(r["method"] for r in mine))
        at = {(r["method"], r["budget_words"]): r for r in mine}
        ceiling = whole.get((book, split))
        note = (f", whole book: hit {ceiling['evidence_hit_rate']}, recall {ceiling['answer_token_recall']}"
                if ceiling else "")
        parts.append(f"### {book} — {split} ({mine[0]['questions']} questions{note})")
        parts.append(md_table(["method", *[str(b) for b in budgets], "no budget"],
                              [[m, *[at.get((m, b), {}).get("evidence_hit_rate") for b in [*budgets, 0]]]
                               for m in methods]))
        detail = [r for r in mine if r["budget_words"] in (200, 500, 1000, 0)]
        parts.append(md_table(["budget words", "method", "evidence hit", "answer-token recall", "mean words",
                               "mean sentences", "% of book"],
                              [[r["budget_words"] or "none", r["method"], r["evidence_hit_rate"],
                                r["answer_token_recall"], r["mean_words"], r["mean_sentences"], r["pct_of_book"]]
                               for r in detail]))
        series = {m: [at.get((m, b), {}).get("evidence_hit_rate") for b in budgets] for m in methods}
        parts.append(write_line_plot(f"evidence_hit_{book}_{split}", out_dir,
                                     f"{book} ({split}): evidence hit rate by word budget",
                                     budgets, series, "hit rate"))
    lines = data.get("groundedkg_beats_baselines", {}).get("lines", [])
    if lines:
        parts.append("\n".join(f"- {line}" for line in lines))
    return "\n\n".join(parts) + "\n"


def fused_section(data: dict | None) -> str:
    """The fused ranking's acceptance check: the default graph method against the best text baseline, per held-out and
    dev set and budget, with the paired 95% interval of the margin (bench/experiments/fused_quality.py)."""
    if data is None:
        title = "## Fused ranking against text retrieval"
        return f"{title}\n\n" + missing("fused_quality.json", "experiments/fused_quality.py")
    parts = ["## Fused ranking against text retrieval",
             "GroundedKG's default (fused) ranking against the best of dense, BM25 and hybrid at equal words: "
             "answer-token recall (books, papers), evidence-paragraph recall (QASPER), gold-passage recall (ObliQA). "
             "The interval is a paired bootstrap over the questions; a margin whose interval holds 0 is a tie."]
    titles = {"test": "Held-out sets", "test2": "Second held-out round, written after the design decisions",
              "test3": "Third held-out round, paraphrased in the NarrativeQA style",
              "test4": "Fourth held-out round, written after every design decision",
              "pooled": "Every held-out round of a collection pooled (a view chosen after the third round's results)",
              "unseen": "A collection kind no decision saw: eight RAG papers (PDF), each question asked within its "
                        "paper (bench/data/papers_qa.csv, run once)",
              "dev": "Dev sets"}
    for split, title in titles.items():
        found = data.get("target", {}).get(split)
        if not found or not found.get("per_set"):
            continue
        parts.append(f"### {title} (mean margin {found['mean_margin']}, "
                     f"never loses: {yes_no(found['never_loses'])})")
        parts.append(md_table(["set @ words", "groundedkg", "best text", "margin", "95% interval", "verdict"], [
            [key, v["groundedkg"], f"{v['best_text']} ({v.get('best_method', '?')})", v["margin"],
             " … ".join(map(str, v["ci95"])) if "ci95" in v else "", v.get("verdict", "")]
            for key, v in found["per_set"].items()]))
    return "\n\n".join(parts) + "\n"


#: multihop.json's sets and splits, in the order shown, with their titles.
MULTIHOP_PARTS = {
    "hotpotqa:dev": "HotpotQA dev (52 questions; decided on)",
    "hotpotqa:held_out": "HotpotQA held-out (51 questions; run once, after every decision)",
    "twohop:dev": "Self-written two-hop dev (64 questions; regression check)",
    "twohop:held_out": "Self-written two-hop held-out (65 questions; run once)",
}


def multihop_section(data: dict | None) -> str:
    """Questions that chain facts (bench/hotpotqa.py): both facts found per method and budget with the margin to the
    best text method, its paired interval and the documents spanned; the walk's own effect; every cell where the
    default does not clearly beat the best text method, per question kind; the NarrativeQA check."""
    title = "## Questions that chain facts (multi-hop retrieval)"
    if data is None:
        return f"{title}\n\n" + missing("multihop.json", "hotpotqa.py run")
    from hotpotqa import FLAT, table, walk_line

    parts = [title, (
        "HotpotQA's first 103 dev questions (distractor setting: each question's 2 gold and 8 distractor Wikipedia "
        "paragraphs, 1,021 paragraphs indexed as one collection), split by question into dev / held-out before any "
        "run (`bench/data/hotpotqa_split.json`), and two-hop questions written for this over the same paragraphs "
        "(compositional, inference, comparison; `bench/data/twohop_qa.jsonl`, split before any run; regression "
        "checks only, written by the same hand as the walk, so they flatter it). A cell: **both facts found** "
        "(every gold paragraph has one of its gold sentences in the context), its margin to the best text method "
        "at that budget (bold) with the paired 95% bootstrap interval, and the mean number of documents the "
        f"context spans. `groundedkg` is the fused default with the multi-hop walk, `{FLAT}` the same ranking "
        "without it. The walk was designed on the dev halves; the held-out halves were run once, after.")]
    ties = []
    for key, label in MULTIHOP_PARTS.items():
        part = data.get("summary", {}).get(key)
        if not part:
            continue
        parts.append(f"### {label}: both facts found\n\n{table(part, 'both')}\n\n"
                     f"{walk_line(part, 'both')}; supporting-sentence recall: "
                     f"{walk_line(part, 'recall').split(': ', 1)[1]}")
        for budget, cell in part.items():
            for figure in [k for k in cell if k.startswith("both")]:
                entry = cell[figure]["methods"].get("groundedkg")
                if entry and "ci95" in entry and entry["ci95"][0] <= 0:
                    kind = figure.partition(":")[2] or "all"
                    ties.append(f"{label.split(' (')[0]}, {kind}, {budget} words: {entry['both']:.3f}, margin "
                                f"{entry['margin']:+.3f} [{entry['ci95'][0]:+.3f}, {entry['ci95'][1]:+.3f}] "
                                f"to {cell[figure]['best_text']}")
    if ties:
        parts.append("Where the default does not clearly beat the best text method (interval reaching 0 or below):"
                     "\n\n" + "\n".join(f"* {t}" for t in ties))
    if novels := data.get("narrativeqa_unchanged"):
        same = sum(b["identical"] for b in novels["books"].values())
        total = sum(b["questions"] for b in novels["books"].values())
        parts.append(f"NarrativeQA design books with the walk on and off at {novels['budget_words']} words: {same} of "
                     f"{total} contexts identical (`python bench/hotpotqa.py novels`).")
    return "\n\n".join(parts) + "\n"


#: answer_ceiling.json's columns shown, with their headers.
CEILING_COLUMNS = {"book_share": "in the book", "context_groundedkg@1000": "in groundedkg's 1,000 words",
                   "answerer_sentences": "in the answerer's sentences", "some_pair": "in some pair's answer",
                   "best_pair": "in the best pair", "qa_kg_em": "qa-kg EM", "extractive_em": "extractive EM"}


def ceiling_section(data: dict | None) -> str:
    """How high an offline answer's exact match can go (bench/experiments/answer_ceiling.py): per QA set, the
    share of questions whose reference occurs in the text at each step of answering, beside the answerers' EM."""
    title = "## How high offline exact match can go"
    if data is None:
        return f"{title}\n\n" + missing("answer_ceiling.json", "experiments/answer_ceiling.py")
    rows = [[f"{r['book']} {r['split']} ({r['questions']})", *(r.get(k, "") for k in CEILING_COLUMNS)]
            for r in data.get("rows", [])]
    note = "Share of the questions (%) whose reference occurs, normalised, in each text; an offline answer only " \
           "repeats words it read."
    return "\n\n".join([title, note, md_table(["set", *CEILING_COLUMNS.values()], rows)]) + "\n"


def write_line_plot(name: str, out_dir: Path, title: str, xs: list[int], series: dict[str, list[float | None]],
                    unit: str) -> str:
    """Write one line per series over a log-scaled x axis as ``name``.png; returns the markdown image line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.2, 4.4))
    for j, (label, values) in enumerate(series.items()):
        points = [(x, v) for x, v in zip(xs, values) if v is not None]
        axes.plot([x for x, _ in points], [v for _, v in points], marker="o", label=label,
                  color=COLOURS[j % len(COLOURS)])
    axes.set_xscale("log")
    axes.set_xticks(xs, [str(x) for x in xs])
    axes.minorticks_off()
    axes.set(title=title, xlabel="word budget", ylabel=unit, ylim=(0, 1.02))
    axes.grid(color="#ddd")
    axes.legend(loc="lower right", frameon=False)
    figure.tight_layout()
    figure.savefig(out_dir / f"{name}.png", dpi=110)
    plt.close(figure)
    return f"![{name}]({name}.png)"


def eval_section(folder: Path, out_dir: Path) -> str:
    """A `kgcore eval` summary in the shape of the paper's Tables 1/2."""
    data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    columns = data["columns"]
    rows = data["rows"]
    meta = data["runs"][0]
    several = len({r["doc_id"] for r in rows}) > 1
    table = md_table((["document"] if several else []) + ["setting"] + list(columns.values()),
                     [([r["doc_id"]] if several else []) + [r["label"]] + [r[k] for k in columns] for r in rows])
    labels = [f"{r['label']}" + (f" ({r['doc_id']})" if several else "") for r in rows]
    metrics = {columns[k]: [r[k] for r in rows] for k in ("em", "sm", "rouge_l", "bertscore")}
    plot = write_bar_plot(f"eval_{folder.name}", out_dir, "Answer metrics (×100)", labels, metrics, "score", y_max=100)
    return "\n\n".join([
        f"## Answer quality: {meta['doc_id']}" + (f" ({folder.name})" if folder.name != meta["doc_id"] else ""),
        f"{meta['questions']} questions from `{meta.get('qa_file', '?')}` "
        f"on a {meta.get('book_words', '?')}-word book, "
        f"index {meta['index']}, answerer {meta['answerer']}"
        + (f" (model {meta['answer_model']})" if meta.get("answer_model") else "")
        + f", BERTScore encoder {meta['bertscore_model']}. "
        "EM/SM/ROUGE-L/BERTScore, evidence hit and answer recall ×100; latencies are medians in ms.",
        table, plot,
    ]) + "\n"


#: The classic-PDF bench's runs: (set, results before the work on classic papers, after its first pass, now).
PDF_CLASSIC_RUNS = (("8 classic papers", "pdf_classic_before.json", "pdf_classic_first.json", "pdf_classic.json"),
                    ("24 arXiv papers", "pdf_classic_arxiv_before.json", "pdf_classic_arxiv_first.json",
                     "pdf_classic_arxiv.json"))


def pdf_classic_section(results: Path) -> str:
    """Glued words, cut sentences, references, titles and citation edges, before and after, per set of papers."""
    rows = []
    for name, *files in PDF_CLASSIC_RUNS:
        for label, data in zip(("before", "first pass", "after"), (load(f, results) for f in files)):
            if data:
                t = data["totals"]
                rows.append([name, label, t["retrievable"], *t["per_100"].values(), t["references_parsed_pct"],
                             t["titles_found_pct"], f"{t['edges_right']}/{t['edges_expected']} ({t['edges_found']})",
                             t.get("read_s_per_page", "-")])
    if not rows:
        return "## Classic PDFs\n\n" + missing("pdf_classic.json", "pdf_classic.py")
    return "\n\n".join([
        "## Classic PDFs", "`bench/pdf_classic.py`: glued tokens against poppler's `pdftotext`, sentences opening "
        "with a citation marker or a lower-case continuation (per 100 retrievable sentences), reference lists "
        "parsed, titles found, and citation edges among the papers of a set (expected found / expected, and in "
        "brackets all found), and seconds per page to read a PDF (`load_document`, in the bench's niced run; "
        "measured since the first pass). After the first pass, lower-case starts let off a list item after a '*' "
        "bullet and a legend after its symbol ('– indicates ...'), one of each in the two sets. "
        "Targets: glued <= 0.5, starts <= 0.3, references and titles 100 %.",
        md_table(["set", "", "sentences", "glued", "citation starts", "lower-case starts", "references parsed %",
                  "titles found %", "citation edges", "read s/page"], rows)])


def machine_section(facts: dict) -> str:
    cpu = facts.get("cpu_model") or facts.get("cpu")
    return "## Machine\n\n" + md_table(["", ""], [
        ["CPU", cpu], ["cores", facts.get("cores")], ["RAM GB", facts.get("ram_gb")], ["python", facts.get("python")],
        ["torch", f"{facts.get('torch')} ({facts.get('torch_threads')} threads)"], ["platform", facts.get("platform")],
    ]) + "\n"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def run_benches(results: Path) -> None:
    for script in BENCHES:
        print(f"running {script} …", file=sys.stderr)
        subprocess.run([sys.executable, str(ROOT / "bench" / script)], check=True, cwd=ROOT / "bench")
    for doc_id, qa in EVALS:  # the benchmarks above built these indexes in the bench store
        print(f"evaluating {doc_id} …", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "kgcore", "eval", "--store", str(STORE_ROOT), "--doc", doc_id,
                        "--qa", str(qa), "--budget-words", "0,1000", "--answerer", "extractive", "--quiet",
                        "--out", str(results / EVAL_DIR / doc_id)], check=True, cwd=ROOT)


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


def build_report(results: Path, evals: list[Path]) -> str:
    facts = {**machine(), "cpu_model": cpu_model()}
    sections = [
        "# Evaluation",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by `python bench/report.py` from the JSON "
        "results in `bench/results/` (what each benchmark measures: its docstring; finished experiments: "
        "`bench/experiments/README.md`; the methods: `docs/methods.md`).",
        machine_section(facts),
        index_section(load("index.json", results), results),
        query_section(load("query.json", results), results),
        quality_section(load("retrieval_quality.json", results), results),
        fused_section(load("fused_quality.json", results)),
        multihop_section(load("multihop.json", results)),
        ceiling_section(load("answer_ceiling.json", results)),
        scale_section(results),
        pdf_classic_section(results),
    ]
    sections += [eval_section(folder, results) for folder in evals]
    sections.append("Plots are PNG files in `bench/results/`.")
    return "\n\n".join(sections) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the three benchmarks first")
    parser.add_argument("--eval", action="append", default=[], type=Path,
                        help="a `kgcore eval --out` folder to include")
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder of the JSON results and the plots")
    parser.add_argument("--out", type=Path, default=None,
                        help="the report (default: docs/evaluation.md, or evaluation.md beside other --results)")
    args = parser.parse_args(argv)
    if args.run:
        run_benches(args.results)
    found = sorted(p.parent for p in (args.results / EVAL_DIR).glob("*/summary.json"))
    args.eval = found + [f for f in args.eval if f not in found]
    for folder in args.eval:
        if not (folder / "summary.json").is_file():
            parser.error(f"{folder}: no summary.json (run `python -m kgcore eval ... --out {folder}`)")
    args.results.mkdir(parents=True, exist_ok=True)
    report = args.out or (DOC if args.results == RESULTS else args.results / "evaluation.md")
    text = build_report(args.results, args.eval)
    plots = os.path.relpath(args.results, report.parent)
    if plots != ".":  # the plots' links, relative to the report
        text = re.sub(r"\]\(([\w.-]+\.png)\)", lambda m: f"]({plots}/{m.group(1)})", text)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(text, encoding="utf-8")
    print(f"wrote {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
