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
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from common import PETER_QA, RESULTS, ROOT, STORE_ROOT, machine
from report_format import load, md_table
from report_graphs import communities_section, neighbours_section
from report_people import narrativeqa_section, verdict_section
from report_quality import (
    ceiling_section,
    entity_types_section,
    eval_section,
    fused_section,
    multihop_section,
    pdf_classic_section,
    quality_section,
)
from report_speed import ask_page_section, index_section, query_section, scale_section

BENCHES = ("index_bench.py", "query_bench.py", "retrieval_quality.py")
#: (document id in the bench store, QA set) evaluated by ``--run``.
# Crusoe is evaluated end to end on its held-out set (50 questions written before any tuning).
EVALS = (("peter-rabbit", PETER_QA), ("robinson-crusoe", ROOT / "bench" / "data" / "robinson_crusoe_qa_test.csv"))
EVAL_DIR = "eval"
#: The report, with the documentation.
DOC = ROOT / "docs" / "evaluation.md"


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
        "# Evaluation",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by `python bench/report.py` from the JSON "
        "results in `bench/results/` (what each benchmark measures: its docstring; finished experiments: "
        "`bench/experiments/README.md`; the methods: `docs/methods.md`).",
        machine_section(facts),
        index_section(load("index.json", results), results),
        query_section(load("query.json", results), results),
        ask_page_section(results),
        quality_section(load("retrieval_quality.json", results), results),
        fused_section(load("fused_quality.json", results)),
        narrativeqa_section(results),
        verdict_section(results),
        multihop_section(load("multihop.json", results)),
        ceiling_section(load("answer_ceiling.json", results)),
        scale_section(results),
        pdf_classic_section(results),
        entity_types_section(load("entities.json", results)),
        communities_section(results),
        neighbours_section(results),
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
