"""Collect the benchmark results into bench/results/REPORT.md with tables, SVG plots and machine info.

    python bench/report.py                 # read bench/results/{index,query,retrieval_quality}.json
    python bench/report.py --run           # run the three benchmarks and the QA evaluations first (slow)
    python bench/report.py --eval out/     # also include another `python -m kgcore eval` summary (repeatable)

``--run`` also evaluates all six methods at word budgets 0 and 1000 with
the offline extractive answerer on Peter Rabbit (assets dev set) and
Robinson Crusoe (bench/robinson_crusoe_qa.csv) into
``bench/results/eval/<doc>/``; every summary found there is reported in the
shape of the paper's Table 1.  A missing result file becomes a note in the
report saying how to produce it.  Plots are hand-written SVG (matplotlib and kaleido are not installed
in the project's environment, so no PNG is produced).
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from common import CRUSOE_QA, PETER_QA, RESULTS, ROOT, STORE_ROOT, machine

BENCHES = ("index_bench.py", "query_bench.py", "retrieval_quality.py")
#: (document id in the bench store, QA set) evaluated by ``--run``.
EVALS = (("peter-rabbit", PETER_QA), ("robinson-crusoe", CRUSOE_QA))
EVAL_DIR = "eval"
COLOURS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7")


# -- markdown and SVG ------------------------------------------------------------------
def md_table(headers: list[str], rows: list[list]) -> str:
    """A GitHub markdown table (``|`` in cells escaped, None shown as a dash)."""
    cell = lambda v: "–" if v is None else str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows])


def svg_bars(title: str, categories: list[str], series: dict[str, list[float | None]], unit: str = "",
             y_max: float | None = None) -> str:
    """A grouped bar chart as standalone SVG: one group per category, one bar per series.

    The y axis runs from 0 to ``y_max`` (default: the largest value).
    """
    width, height, left, bottom, top = max(480, 70 * len(categories) + 220), 370, 60, 110, 40
    plot_w, plot_h = width - left - 150, height - top - bottom
    peak = y_max or max([v for vals in series.values() for v in vals if v is not None] + [1e-9])
    group_w = plot_w / max(len(categories), 1)
    bar_w = group_w * 0.8 / max(len(series), 1)
    esc = lambda t: html.escape(str(t), quote=True)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{esc(title)}</text>',
           f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#333"/>']
    for tick in range(5):
        value = peak * tick / 4
        y = top + plot_h - plot_h * tick / 4
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{value:.3g}</text>')
    for i, category in enumerate(categories):
        x0 = left + i * group_w + group_w * 0.1
        for j, (name, values) in enumerate(series.items()):
            v = values[i]
            if v is None:
                continue
            h = plot_h * v / peak
            out.append(f'<rect x="{x0 + j * bar_w:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w * 0.95:.1f}" '
                       f'height="{h:.1f}" fill="{COLOURS[j % len(COLOURS)]}"><title>{esc(name)}: {v:g} {esc(unit)}</title></rect>')
        x, y = x0 + group_w * 0.4, top + plot_h + 14
        out.append(f'<text x="{x:.1f}" y="{y}" text-anchor="end" transform="rotate(-30 {x:.1f} {y})">{esc(category)}</text>')
    for j, name in enumerate(series):
        y = top + 14 * j
        out.append(f'<rect x="{left + plot_w + 12}" y="{y}" width="10" height="10" fill="{COLOURS[j % len(COLOURS)]}"/>')
        out.append(f'<text x="{left + plot_w + 26}" y="{y + 9}">{esc(name)}</text>')
    out.append(f'<text x="14" y="{top + plot_h / 2}" transform="rotate(-90 14 {top + plot_h / 2})" '
               f'text-anchor="middle">{esc(unit)}</text></svg>')
    return "\n".join(out)


def write_plot(name: str, svg: str, out_dir: Path) -> str:
    """Write ``name``.svg next to the report; returns the markdown image line."""
    (out_dir / f"{name}.svg").write_text(svg, encoding="utf-8")
    return f"![{name}]({name}.svg)"


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
    plot = svg_bars("Indexing time per stage", stages, {b["doc_id"]: [b["stages_s"].get(s) for s in stages] for b in books}, "seconds")
    targets = ", ".join(f"{k}: " + ", ".join(f"{m} ≤ {v}" for m, v in t.items()) for k, t in data.get("targets", {}).items())
    return "\n\n".join([
        "## Indexing", f"Targets: {targets}." if targets else "",
        md_table(["book", "words", "sentences", "nodes", "edges", "wall s", "model load s", "peak RSS MB", "meets targets"], rows),
        "Seconds per stage:", md_table(["book"] + stages, stage_rows), write_plot("index_stages", plot, out_dir),
    ]) + "\n"


def query_section(data: dict | None, out_dir: Path) -> str:
    if data is None:
        return "## Query latency\n\n" + missing("query.json", "query_bench.py")
    methods = data["methods"]
    steps = list(dict.fromkeys(s for m in methods.values() for s in m.get("p50_step_ms", {})))
    met = data.get("meets_targets", {})
    rows = [[m, r["questions"], r["p50_ms"], r["p95_ms"], r.get("max_ms")] + [r.get("p50_step_ms", {}).get(s) for s in steps]
            + [yes_no(met.get(m))] for m, r in methods.items()]
    plot = svg_bars("Retrieval latency (answer generation excluded)", list(methods),
                    {"p50": [r["p50_ms"] for r in methods.values()], "p95": [r["p95_ms"] for r in methods.values()]}, "ms")
    return "\n\n".join([
        "## Query latency", f"Peak RSS {data.get('peak_rss_mb')} MB; targets {json.dumps(data.get('targets', {}))}.",
        md_table(["method", "questions", "p50 ms", "p95 ms", "max ms"] + [f"p50 {s} ms" for s in steps] + ["meets targets"], rows),
        write_plot("query_latency", plot, out_dir),
    ]) + "\n"


def quality_section(data: dict | None, out_dir: Path) -> str:
    if data is None:
        return "## Retrieval quality\n\n" + missing("retrieval_quality.json", "retrieval_quality.py")
    rows, parts = data["rows"], ["## Retrieval quality"]
    for book in dict.fromkeys(r["book"] for r in rows):
        mine = [r for r in rows if r["book"] == book]
        budgets = list(dict.fromkeys(r["budget_words"] for r in mine))
        methods = list(dict.fromkeys(r["method"] for r in mine))
        at = {(r["method"], r["budget_words"]): r for r in mine}
        parts.append(f"### {book} ({mine[0]['questions']} questions)")
        parts.append(md_table(["budget words", "method", "evidence hit", "answer-token recall", "mean words", "mean sentences", "% of book"],
                              [[r["budget_words"] or "none", r["method"], r["evidence_hit_rate"], r["answer_token_recall"],
                                r["mean_words"], r["mean_sentences"], r["pct_of_book"]] for r in mine]))
        series = {m: [at[(m, b)]["evidence_hit_rate"] if (m, b) in at else None for b in budgets] for m in methods}
        plot = svg_bars(f"{book}: evidence hit rate by word budget", [str(b or "none") for b in budgets], series, "hit rate",
                        y_max=1.0)
        parts.append(write_plot(f"evidence_hit_{book}", plot, out_dir))
    lines = data.get("groundedkg_beats_baselines", {}).get("lines", [])
    if lines:
        parts.append("\n".join(f"- {line}" for line in lines))
    return "\n\n".join(parts) + "\n"


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
    plot = svg_bars("Answer metrics (×100)", labels, metrics, "score", y_max=100)
    name = f"eval_{folder.name}"
    return "\n\n".join([
        f"## Answer quality: {meta['doc_id']}" + (f" ({folder.name})" if folder.name != meta["doc_id"] else ""),
        f"{meta['questions']} questions from `{meta.get('qa_file', '?')}` on a {meta.get('book_words', '?')}-word book, "
        f"index {meta['index']}, answerer {meta['answerer']}"
        + (f" (model {meta['answer_model']})" if meta.get("answer_model") else "")
        + f", BERTScore encoder {meta['bertscore_model']}. "
        "EM/SM/ROUGE-L/BERTScore, evidence hit and answer recall ×100; latencies are medians in ms.",
        table, write_plot(name, plot, out_dir),
    ]) + "\n"


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


def build_report(results: Path, evals: list[Path]) -> str:
    facts = {**machine(), "cpu_model": cpu_model()}
    sections = [
        "# GroundedKG benchmark report",
        f"Generated {datetime.now(timezone.utc).isoformat(timespec='seconds')} by `python bench/report.py`.",
        machine_section(facts),
        index_section(load("index.json", results), results),
        query_section(load("query.json", results), results),
        quality_section(load("retrieval_quality.json", results), results),
    ]
    sections += [eval_section(folder, results) for folder in evals]
    sections.append("Plots are SVG files next to this report (no PNG backend is installed).")
    return "\n\n".join(sections) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the three benchmarks first")
    parser.add_argument("--eval", action="append", default=[], type=Path, help="a `kgcore eval --out` folder to include")
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder of the JSON results and the report")
    args = parser.parse_args(argv)
    if args.run:
        run_benches(args.results)
    found = sorted(p.parent for p in (args.results / EVAL_DIR).glob("*/summary.json"))
    args.eval = found + [f for f in args.eval if f not in found]
    for folder in args.eval:
        if not (folder / "summary.json").is_file():
            parser.error(f"{folder}: no summary.json (run `python -m kgcore eval ... --out {folder}`)")
    args.results.mkdir(parents=True, exist_ok=True)
    report = args.results / "REPORT.md"
    report.write_text(build_report(args.results, args.eval), encoding="utf-8")
    print(f"wrote {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
