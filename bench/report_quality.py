"""The report's sections on quality: retrieval on the self-written sets, the fused ranking's margins, multi-hop
questions, the offline answers' ceiling, `kgcore eval` summaries, the classic PDFs and entity types on papers."""

from __future__ import annotations

import json
from pathlib import Path

from report_format import load, md_table, missing, write_bar_plot, write_line_plot, yes_no


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


def entity_types_section(data: dict | None) -> str:
    """Entity-type accuracy on papers' hand-typed entities, per collection and split, before and after."""
    title = "## Entity types on papers"
    if not data or "research_types" not in data:
        return f"{title}\n\n" + missing("entities.json", "experiments/entities_bench.py --parts research-types")
    rows = []
    after, before = data["research_types"]["by_collection_split"], data.get("research_types_before", {})
    for cell, now in after.items():
        then = before.get("by_collection_split", {}).get(cell, {})
        rows.append([cell, now["n"], then.get("accuracy", "–"), now["accuracy"],
                     f"{now['majority_baseline']['type']} {now['majority_baseline']['accuracy']}"])
    never = data["research_types"].get("never_persons", {})
    names = "; ".join(f"{c}: {', '.join(v) or 'none'}" for c, v in never.items())
    what = data.get("research_types_before", {}).get("what", "the typer without a person's cues")
    return "\n\n".join([
        title, "`bench/experiments/entities_bench.py --parts research-types`: the type of the entity each "
        "hand-typed node ends in (`bench/data/entity_types.csv`, typed from the node's sentences before the typer "
        "ran on them). `classicdev` (four classic papers) and the arXiv dev rows guided the design; `classic` (four "
        f"other classic papers) and the arXiv test rows were held out. Before: {what} (same stores). Chubby, "
        f"Bigtable, GFS, Paxos and MapReduce in the classic papers: {names}.",
        md_table(["collection/split", "n", "before", "after", "majority type"], rows)])
