"""The report's sections on questions people wrote: every method on the NarrativeQA novels (design and held-out
books, pooled and per book), the per-signal ablations of the fused ranking on the design books, and the auditor's
own judgments (the verdict, the offline answer pick and the diagnosis) on papers, QASPER and novels."""

from __future__ import annotations

from pathlib import Path

from report_format import load, md_table, missing

#: narrativeqa.json's splits, in the order shown, with their titles.
SPLITS = {
    "design": "Design books (every ranking decision was taken on these)",
    "held_out": "Held-out books (looked at once per decision, as aggregates)",
}
#: The ablations shown first, in this order, when present (the rest follow in the order they were run).
LEADING = ("no graph", "no sparse", "no dense", "no propagation")


def narrativeqa_section(results: Path) -> str:
    """Answer-token recall of every method's context at equal words on the NarrativeQA novels
    (bench/narrativeqa.py), then the ablations (bench/experiments/narrativeqa_ablations.py)."""
    title = "## Questions people wrote: NarrativeQA novels"
    data = load("narrativeqa.json", results)
    if data is None:
        return f"{title}\n\n" + missing("narrativeqa.json", "narrativeqa.py run --split design")
    from narrativeqa import table

    parts = [title, (
        "Eight public-domain novels with their NarrativeQA test questions (about 30 per book, two reference answers "
        "each, written by people from plot summaries, not from the book's text). Whole books are split before any "
        "run (`bench/data/narrativeqa_split.json`). A cell: answer-token recall of the context (the best, over the "
        "two references, of the share of the answer's content words found among the context's words); the best "
        "text method at that budget in bold, every other method with its margin to it and the paired 95% "
        f"bootstrap interval over the questions. Measured at commit `{data.get('commit', '?')[:7]}`.")]
    for split, label in SPLITS.items():
        part = data.get("summary", {}).get(split)
        if not part:
            continue
        books = ", ".join(part["books"])
        parts.append(f"### {label}, pooled ({books})\n\n{table(part)}")
        parts.append(per_book_table(part))
    no_names = load("narrativeqa_no_names.json", results)  # the default's rows before the names were weighed
    parts.append(layers_section(no_names or data, load("narrativeqa_one_layer.json", results),
                                load("narrativeqa_layers_threshold.json", results)))
    no_kind = load("narrativeqa_no_asked_kind.json", results)  # the default's rows before the asked kind raised any
    parts.append(names_section(no_kind or data, no_names, load("narrativeqa_fusion.json", results)))
    parts.append(ablation_section(load("narrativeqa_ablations.json", results)))
    parts.append(small_budget_section(load("narrativeqa_small_budget.json", results),
                                      load("narrativeqa_small_budget_fixes.json", results)))
    spans = "narrativeqa_answer_type_name-number-person-place-time"
    parts.append(answer_type_section(data, no_kind, {
        "design, every kind": load("narrativeqa_answer_type.json", results),
        "held out, every kind (first version: normalised text, a 50% cut over every kind)":
            load("narrativeqa_answer_type_held_out.json", results),
        "design, span kinds (the default)": load(f"{spans}.json", results),
        "held out, span kinds (the default)": load(f"{spans}_held_out.json", results),
        "design, span kinds, the first 100 candidates": load(f"{spans}_head100.json", results),
        "design, span kinds, persons and names also in the resolved text":
            load(f"{spans}_resolved-name-person.json", results),
        "design, every kind, the kind alone": load("narrativeqa_answer_type_stored.json", results),
        "design, every kind, the kind alone, question's words left out":
            load("narrativeqa_answer_type_stored_filtered.json", results)}))
    return "\n\n".join(p for p in parts if p) + "\n"


def answer_type_section(data: dict, before: dict | None, runs: dict[str, dict | None]) -> str:
    """The asked answer kind as a ranking signal (:mod:`kgcore.query.asked_kind`): the default before and after it,
    per split and budget, with the paired 95% interval of the change; then each run of
    bench/experiments/narrativeqa_answer_type.py (label -> its results), each weight against the signal off."""
    rows = []
    for label, run in runs.items():
        for weight in sorted({r["weight"] for r in (run or {}).get("rows", []) if r["weight"]}):
            cells = {r["budget_words"]: diff_cell({"diff": r["difference"], "ci95": r["ci95"]})
                     for r in run["rows"] if r["weight"] == weight}  # type: ignore[index]
            rows.append([label, weight, *(cells.get(b, "") for b in (200, 500, 1000, 2000))])
    text = ["### The asked answer kind raises the candidates that hold one",
            "Among each stage's first 200 sentences, the fused default scores one holding a span of the kind the "
            "question asks for (the answer pick's finders: a figure for \"how many\", a date for \"when\", a person "
            "for \"who\", a place for \"where\", a name for \"which dataset\") four times as high, unless more than "
            "half of them hold one (`kgcore.query.asked_kind`); decided on the design books, the held-out books "
            "looked at once. Pooled answer-token recall, without it against with it, with the paired 95% interval of "
            "the change:"]
    if before:
        text.append(md_table(["books", "words", "without", "with", "change"], change_rows(data, before)))
    text += ["Each run of `python bench/experiments/narrativeqa_answer_type.py` against the signal off (weight: "
             "the score's factor is 1 + weight). Every kind with spans, clause kinds (reason, manner, action, object) "
             "included, gains less: manner questions lost 0.09-0.12 at 500 and 1,000 words, their clause finders "
             "fire on many sentences that do not answer; so the default raises the span kinds only. \"The kind "
             "alone\": spans found without the question's words and asked noun, as answer kinds stored per sentence "
             "at indexing would give them, which would spare the parse at query time: it loses the gain, and so does "
             "the kind alone with a span kept only when it adds a word the question lacks -- the gain lies in the "
             "finders that read the question's asked noun.",
             md_table(["run", "weight", "200", "500", "1000", "2000"], rows)]
    return "\n\n".join(text)


def change_rows(data: dict, before: dict) -> list[list]:
    """Per split and budget, the fused default's pooled recall in ``before``'s rows and in ``data``'s (the same
    questions), with the paired 95% interval of the change."""
    from narrativeqa import split
    from protocol import paired_interval

    rows = []
    for name, books in split().items():
        for budget in sorted({r["budget_words"] for r in before["rows"]}):
            def pooled(found: list[dict], budget: int = budget, books: list[str] = books) -> list[float]:
                return [x for b in books for r in found if r["book"] == b and r["variant"] == "groundedkg"
                        and r["budget_words"] == budget for x in r["per_question"]]
            old, new = pooled(before["rows"]), pooled(data["rows"])
            if old and len(old) == len(new):
                lo, hi = paired_interval(new, old)
                gain = sum(new) / len(new) - sum(old) / len(old)
                rows.append([name, budget, f"{sum(old) / len(old):.3f}", f"{sum(new) / len(new):.3f}",
                             f"{gain:+.3f} [{lo:+.3f}, {hi:+.3f}]"])
    return rows


def layers_section(data: dict, before: dict | None, threshold: dict | None) -> str:
    """The default before and after small budgets got two propagation layers, per split and budget, with the
    paired 95% interval of the change; and where a second layer stops helping (design books)."""
    if not before:
        return ""
    text = ["### Small budgets propagate over two layers",
            "The fused default propagates over two layers under a budget of at most 250 words, over one above "
            "(`kgcore.query.fused.SMALL_BUDGET_WORDS`, `SMALL_BUDGET_LAYERS`); decided on the design books, the "
            "held-out books looked at once. Pooled answer-token recall, one layer everywhere against the rule, "
            "with the paired 95% interval of the change (measured before the question's names were weighed):",
            md_table(["books", "words", "one layer", "two under 250 words", "change"],
                     change_rows(data, before))]
    if threshold:
        cells = [f"{b} words {diff_cell(e['vs_default']['layers=2'])}"
                 for b, e in threshold["ablations"]["budgets"].items() if "layers=2" in e["vs_default"]]
        text.append("Where a second layer stops helping (design books, against one layer): " + "; ".join(cells) +
                    ", and at 200 / 500 / 1,000 / 2,000 words the ablation table's `small budgets: 2 layers` and "
                    "`layers=2` rows.")
    return "\n\n".join(text)


def names_section(data: dict, before: dict | None, fusion: dict | None) -> str:
    """The default before and after the question's names were weighed, per split and budget, with the paired 95%
    interval of the change; then every ranking change tried against the default without names (design books)."""
    if not before:
        return ""
    text = ["### The question's names weigh past small budgets",
            "Above 250 words the fused default multiplies each sentence's and passage's own relevance by 1 + the share "
            "of the question's names (its capitalised words past the first) it holds, written or added by "
            "coreference (`kgcore.query.names`, `kgcore.query.fused.NAME_WEIGHT`); decided on the design books, the "
            "held-out books looked at once. Pooled answer-token recall, without names against with them, with the "
            "paired 95% interval of the change:",
            md_table(["books", "words", "without names", "with names", "change"], change_rows(data, before))]
    if fusion:
        text.append(ablation_rows(fusion, (
            "Every change tried (`python bench/experiments/narrativeqa_fusion.py`; design books only), against the "
            "default without names, with the paired 95% interval: the names' weight (`name_weight=`), the names at "
            "every budget, on sentences only, added to the graph signal gated by dense relevance, in the message "
            "gates; BM25's rank over the written words added to the sparse signal (`bm25 in f0`); the fused score "
            "plus BM25's or dense retrieval's own rank before the budget cuts (`late bm25`, `late dense`); with the "
            "names (the default now), the fused order's tail (final score under a fraction of the best) taken one "
            "sentence per passage before the rest, and the question's dense vector plus a weight times the embedding "
            "of the question with its names replaced by 'someone' (`dense without names`; inf: that embedding "
            "alone), of the question as a statement without its wh-word and auxiliary (`dense as statement`), or "
            "minus the embedding of its names alone (`dense minus names`). Against the default (with names), the "
            "best of these, `dense without names 0.5`, is +0.016 [-0.004, +0.039] / -0.002 [-0.029, +0.026] / +0.014 "
            "[-0.012, +0.043] / -0.001 [-0.011, +0.011]: within noise at every budget, so not adopted (it would "
            "embed every question twice) and never run on the held-out books:")))
    return "\n\n".join(text)


def small_budget_section(shape: dict | None, fixes: dict | None) -> str:
    """What each method's context is made of at a small budget, and the fixes tried (design books)."""
    if not shape:
        return ""
    keys = ["recall", "sentences", "words_per_sentence", "passages", "adjacent", "question_words", "names"]
    rows = [[m, *(f"{v[k]:.3f}" if k in ("recall", "adjacent", "question_words", "names") else f"{v[k]:.1f}"
                  for k in keys)] for m, v in shape["shape"].items()]
    lost = [[m, a["lost"], a["won"], a["tied"], (ms := a["missed_sentences"])["count"], f"{ms['words']:.1f}",
             f"{ms['with_a_question_name']:.2f}", f"{ms['within_4x_budget']:.2f}"] for m, a in shape["against"].items()]
    text = [f"### What {shape['budget']} words hold: the fused default against text retrieval (design books)",
            "`python bench/experiments/narrativeqa_small_budget.py`: per method, the mean over the questions of the "
            "context's answer-token recall, sentences, words per sentence, passages spanned (contextual-graph "
            "chunks), share of sentences next to another selected one, and share of the question's content words "
            "and names it holds.",
            md_table(["method", *keys], rows),
            "Against each text method: questions it won, lost and tied against the fused default, and the sentences "
            "of its context that held answer words the fused context lacked (on the questions it won): how many, "
            "their mean words, the share naming a character of the question, the share the fused ranking had "
            "within 4x the budget.",
            md_table(["text method", "it won", "it lost", "tied", "missed sentences", "their words",
                      "with a question name", "within 4x budget"], lost)]
    if fixes:
        text.append(ablation_rows(fixes, "Fixes tried on the design books, against the default (not used; never "
                                         "run on the held-out books):"))
    return "\n\n".join(text)


def ablation_rows(data: dict, intro: str) -> str:
    """One row per ablation of ``data``: its difference to the default per budget with the paired interval."""
    budgets = data["ablations"]["budgets"]
    labels = list(dict.fromkeys(k for e in budgets.values() for k in e["vs_default"]))
    rows = [[label, *(diff_cell(e["vs_default"].get(label)) for e in budgets.values())] for label in labels]
    return intro + "\n\n" + md_table(["ranking", *budgets], rows)


def diff_cell(found: dict | None) -> str:
    """An ablation's difference to the default with its paired interval (empty when not measured).

    >>> diff_cell({"diff": 0.031, "ci95": [0.008, 0.055]})
    '+0.031 [+0.008, +0.055]'
    """
    return f"{found['diff']:+.3f} [{found['ci95'][0]:+.3f}, {found['ci95'][1]:+.3f}]" if found else ""


def per_book_table(part: dict) -> str:
    """The default's recall per book and budget beside the best text method's (which it is, in brackets).

    >>> cell = {"best_text": "dense", "methods": {"groundedkg": {"recall": 0.4}, "dense": {"recall": 0.5}}}
    >>> print(per_book_table({"per_book": {"emma": {"200": cell}}}))
    Per book, the default (groundedkg) against the best text method:
    <BLANKLINE>
    | book | 200 |
    |---|---|
    | emma | 0.400 / 0.500 (dense) |
    """
    rows, budgets = [], []
    for book, at in part["per_book"].items():
        budgets = budgets or list(at)
        rows.append([book, *(f"{at[b]['methods']['groundedkg']['recall']:.3f} / "
                             f"{at[b]['methods'][at[b]['best_text']]['recall']:.3f} ({at[b]['best_text']})"
                             for b in budgets)])
    return "Per book, the default (groundedkg) against the best text method:\n\n" + md_table(["book", *budgets], rows)


def ablation_section(data: dict | None) -> str:
    """Each ablation's difference to the default ranking per budget, with its paired 95% interval."""
    if not data or "ablations" not in data:
        return missing("narrativeqa_ablations.json", "experiments/narrativeqa_ablations.py")
    budgets = data["ablations"]["budgets"]
    first = next(iter(budgets.values()))
    labels = [k for k in LEADING if k in first["vs_default"]]
    labels += [k for k in first["vs_default"] if k not in labels]
    rows = [["one layer everywhere", *(f"{b['vs_best_text']['default']['recall']:.3f}" for b in budgets.values())]]
    rows += [[label, *(diff_cell(entry["vs_default"].get(label)) for entry in budgets.values())] for label in labels]
    text = {name: [f"{b['text'][name]:.3f}" for b in budgets.values()] for name in first["text"]}
    rows += [[f"{name} (text)", *values] for name, values in text.items()]
    return "\n\n".join([
        f"### Why the fused ranking wins or loses: ablations on the design books ({data['ablations']['questions']} "
        "questions)",
        "Each row changes one signal or setting of the fused ranking and gives its difference to the ranking with "
        "one propagation layer at every budget (the default before small budgets got two; the same ranking from "
        "500 words) with the paired 95% interval (`python bench/experiments/narrativeqa_ablations.py`; never run "
        "on held-out books).",
        md_table(["ranking", *budgets], rows)])


#: verdict_<part>.json's parts, in the order shown, with their titles.
VERDICT_PARTS = {
    "design": "Design sets (every decision is taken on these)",
    "held_out": "Held-out sets (looked at once per decision)",
}


def verdict_section(results: Path) -> str:
    """The verdict bench's table per part (bench/verdict_bench.py): the support verdict against the truth, the
    answer right-rates and the diagnosis agreement, per set and answerer."""
    from verdict_bench import table

    title = "## The auditor's judgments on people's questions: verdict, answer pick, diagnosis"
    parts = [title, (
        "People's questions on papers (`bench/data/papers_qa.csv`), QASPER papers and NarrativeQA novels, whole "
        "documents split into design and held-out parts. Right: S / N / U and wrong: S / N / U count the support "
        "verdict's states (supported / not supported / unsure) among right and wrong answers; balanced accuracy "
        "over the decided verdicts with its 95% bootstrap interval; the answer right overall and when the gold "
        "evidence is in the 1,000-word context; the diagnosis's agreement with the gold-derived stage, from the "
        "reference answers and without gold. Design and the held-out figures' history: `docs/verdict.md`.")]
    for part, label in VERDICT_PARTS.items():
        data = load(f"verdict_{part}.json", results)
        if data is None:
            parts.append(missing(f"verdict_{part}.json", f"verdict_bench.py --part {part}"))
            continue
        parts.append(f"### {label}\n\n{table(data)}")
    return "\n\n".join(parts) + "\n"
