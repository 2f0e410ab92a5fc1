"""Classic-PDF quality: glued words, cut sentences, references, titles and the citation graph of a set of papers.

    python bench/pdf_classic.py [--papers DIR] [--titles JSON] [--out PATH] [--examples K]

Each paper is loaded and split (``load_document``, ``split_sentences``); sentences with a role in ``RETRIEVABLE``
count.  Per 100 retrievable sentences (target):

* ``glued`` (0.5): a token of ours (a run of letters, lower-cased, 4 letters or more) that poppler's
  ``pdftotext`` never prints, while it prints the same letters as two adjacent words somewhere in the paper
  ("chunkreplicas" where poppler prints "chunk replicas").  Poppler reads glyph positions; it is the reference
  here, not a runtime dependency (Debian ``poppler-utils``).
* ``citation_start`` (0.3): the sentence opens with a citation marker ("[17] to store ...", "(Smith et al.,
  2003) showed", "[Lam78]").
* ``lowercase_start`` (0.3): the first word is all lower-case letters (the rule of ``bench/pdf_quality.py``:
  "e.g.", URLs, one-letter math variables are let off), a continuation cut from its sentence; an item after a
  bullet ("• further refinement of ...", "* sig ∈ Keys is ...") and a legend after its symbol ("– indicates
  numbers that are not reported") are let off too: the bullet or symbol opens them, as printed.

Per paper: ``references`` -- a paper has a reference list when poppler prints a "References" (or
"Bibliography") heading line, read with spaces and punctuation dropped ("R EFERENCES" in small capitals); the
list counts as parsed when at least 80 % of its entries have a title, a first author and a year (when the entry
prints one), with at least three entries (target: 100 % of papers with a list).  ``title`` -- the document's
title (its first run of ``title`` sentences) reads like the paper's real title as printed on page 1 (rapidfuzz
ratio >= 85 after normalisation; titles from ``--titles``, by default ``bench/data/classic_titles.json`` or
``bench/data/arxiv_titles.json`` by the folder's name; target: every paper).  ``citation edges`` -- the pairs of
papers of the set where the cited paper's real title (or its main title before a colon, of at least five words)
is printed, letters and digits only, in the citing paper's poppler text after its first page: recall and
precision of ``citation_graph`` over the set against those pairs.  ``read_s_per_page``: seconds per page of
``load_document`` (PDF reading and layout, single process; the run is niced on a shared machine, so read
times compare only roughly between runs).

Writes bench/results/pdf_classic.json (``--out``): per paper, totals, targets, verdicts, examples.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

from common import DATA, RESULTS, ROOT, machine
from pdf_quality import lowercase_start
from rapidfuzz import fuzz, utils

from kgcore.api import RETRIEVABLE, CitingDocument, citation_graph, load_document, load_spacy, split_sentences

PAPERS = ROOT.parent / "shared" / "data" / "papers_classic"
#: Real titles, as printed on each paper's first page (the arXiv set's inventory abbreviates some).
TITLES = {"papers_classic": DATA / "classic_titles.json", "papers": DATA / "arxiv_titles.json"}
TARGETS = {"glued": 0.5, "citation_start": 0.3, "lowercase_start": 0.3, "references_parsed_pct": 100.0,
           "titles_found_pct": 100.0}
#: A reference list counts as parsed when this share of its entries has a title, a first author and a year.
PARSED_SHARE = 0.8
TITLE_RATIO = 85.0
_LETTERS = re.compile(r"[a-z]+")
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
#: A list item's bullet ("* sig ∈ Keys is a chained-MAC signature"): what follows it starts an item, not a
#: continuation; so does a legend's symbol ("– indicates numbers that are not reported", "† denotes ...").
_BULLET = re.compile(r"^\s*(?:[•◦▪●‣*]\s|[^\w\s]{1,2}\s+(?:indicates|denotes|means|marks|represents)\b)")
#: A reference list's heading, squeezed (letters and digits only: "R EFERENCES", "7. References").
_REF_HEADING = re.compile(r"(?:\d+|[ivx]+)?(?:references|bibliography|literaturecited)")
_CITATION_START = re.compile(r"^\s*(?:\[\s*\d{1,4}(?:\s*[,;–-]\s*\d{1,4})*\s*\]|\[[A-Z][A-Za-z+]*\d{2,4}[a-z]?\]"
                             r"|\([^()]*?(?:19|20)\d{2}[a-z]?\))")


def poppler_text(path: Path) -> str:
    """The paper as ``pdftotext`` prints it (NFKC), a hyphen at a line end joined to the next line's word."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return re.sub(r"(?<=[a-z])-\n(?=[a-z])", "", unicodedata.normalize("NFKC", out))


class Reference:
    """Poppler's words and adjacent word pairs of one paper."""

    def __init__(self, text: str) -> None:
        self.words: set[str] = set()
        self.pairs: set[tuple[str, str]] = set()
        for line in text.lower().splitlines():
            tokens = [t.strip(".,;:!?()[]\"'“”‘’") for t in line.split()]
            for a, b in zip(tokens, tokens[1:]):
                if a.isalpha() and b.isalpha():
                    self.pairs.add((a, b))
            self.words.update(w for t in tokens for w in _LETTERS.findall(t))

    def glued(self, token: str) -> bool:
        """``token`` is two of poppler's words run together (see the module docstring)."""
        return token not in self.words and any((token[:i], token[i:]) in self.pairs for i in range(1, len(token)))


def measure(path: Path, nlp, reference_title: str) -> tuple[dict, CitingDocument, str]:
    text = poppler_text(path)
    ref = Reference(text)
    start = time.perf_counter()
    doc = load_document(path)
    read_s = time.perf_counter() - start
    sentences = split_sentences(doc, nlp)
    retrievable = [s for s in sentences if s.role in RETRIEVABLE]
    counts, examples = Counter(), defaultdict(list)
    for s in retrievable:
        glued = [t for t in _LETTERS.findall(s.original.lower()) if len(t) >= 4 and ref.glued(t)]
        found = {"glued": len(glued), "citation_start": bool(_CITATION_START.match(s.original)),
                 "lowercase_start": lowercase_start(s.original) and not _BULLET.match(s.original)}
        for name, value in found.items():
            if value:
                counts[name] += value
                examples[name].append({"page": s.page, "text": s.original[:240], **({"tokens": glued} if glued
                                                                                    else {})})
    citing = CitingDocument.of(path.stem, sentences, doc.references, path.name)
    parsed = [r for r in doc.references if r.title and r.first_author and (r.year or not _YEAR.search(r.text))]
    has_list = any(_REF_HEADING.fullmatch(squeeze(line)) for line in text.splitlines())
    row = {"paper": path.stem, "pages": doc.report.pages, "read_s": round(read_s, 3), "retrievable": len(retrievable),
           "defects": {k: int(counts[k]) for k in ("glued", "citation_start", "lowercase_start")},
           "has_reference_list": has_list, "references": len(doc.references), "references_complete": len(parsed),
           "references_parsed": has_list and len(doc.references) >= 3
           and len(parsed) >= PARSED_SHARE * len(doc.references),
           "title": citing.title, "real_title": reference_title,
           "title_found": bool(citing.title) and title_ratio(citing.title, reference_title) >= TITLE_RATIO,
           "warnings": list(doc.report.warnings)[:5], "examples": dict(examples)}
    return row, citing, squeeze(text.split("\f", 1)[-1])


def title_ratio(found: str, real: str) -> float:
    return fuzz.ratio(utils.default_process(found), utils.default_process(real))


def squeeze(text: str) -> str:
    """Letters and digits only, lower case: titles compare alike however a PDF spaced or hyphenated them."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def expected_edges(rows: list[dict], tails: dict[str, str]) -> set[tuple[str, str]]:
    """(citing, cited) where the cited paper's real title is printed after the citing paper's References."""
    found = set()
    for cited in rows:
        title = cited["real_title"]
        forms = {squeeze(title)} | ({squeeze(title.split(":")[0])} if len(title.split(":")[0].split()) >= 5 else set())
        for citing in rows:
            if citing is not cited and any(f and f in tails[citing["paper"]] for f in forms):
                found.add((citing["paper"], cited["paper"]))
    return found


def real_titles(papers: Path, titles: Path | None) -> dict[str, str]:
    """File stem -> the paper's real title (``--titles``, else the set's ``inventory.json``)."""
    if titles and titles.exists():
        return json.loads(titles.read_text(encoding="utf-8"))
    inventory = json.loads((papers / "inventory.json").read_text(encoding="utf-8"))
    return {Path(e["file"]).stem: e["actual_title"] for e in inventory}


def totals(rows: list[dict], edges: list, expected: set[tuple[str, str]]) -> dict:
    total = sum(r["retrievable"] for r in rows)
    with_list = [r for r in rows if r["has_reference_list"]]
    found = {(e.citing, e.cited) for e in edges}
    return {"papers": len(rows), "retrievable": total,
            "read_s_per_page": round(sum(r["read_s"] for r in rows) / max(sum(r["pages"] for r in rows), 1), 4),
            "per_100": {k: round(100 * sum(r["defects"][k] for r in rows) / max(total, 1), 3)
                        for k in ("glued", "citation_start", "lowercase_start")},
            "with_reference_list": len(with_list),
            "references_parsed_pct": pct(sum(r["references_parsed"] for r in with_list), len(with_list)),
            "titles_found_pct": pct(sum(r["title_found"] for r in rows), len(rows)),
            "edges_expected": len(expected), "edges_found": len(found), "edges_right": len(found & expected),
            "edges_recall_pct": pct(len(found & expected), len(expected)),
            "edges_precision_pct": pct(len(found & expected), len(found)),
            "edges_with_sentences_pct": pct(sum(1 for e in edges if e.sentences), len(edges)),
            "edges_missed": sorted(expected - found), "edges_extra": sorted(found - expected)}


def pct(part: float, whole: float) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def verdicts(t: dict) -> dict:
    out = {k: t["per_100"][k] <= TARGETS[k] for k in ("glued", "citation_start", "lowercase_start")}
    for key in ("references_parsed_pct", "titles_found_pct"):
        out[key] = t[key] >= TARGETS[key] if t[key] is not None else None
    return out


def print_table(rows: list[dict], t: dict, verdict: dict, k: int) -> None:
    print(f"{'paper':<32}{'sents':>6}{'glued':>7}{'cite':>6}{'lower':>6}{'refs':>6}{'full':>6}  title")
    for r in rows:
        d = r["defects"]
        print(f"{r['paper'][:31]:<32}{r['retrievable']:>6}{d['glued']:>7}{d['citation_start']:>6}"
              f"{d['lowercase_start']:>6}{r['references']:>6}{r['references_complete']:>6}  "
              f"{'ok' if r['title_found'] else 'MISSED'} {r['title'][:50]!r}")
    mark = {True: "PASS", False: "FAIL", None: "-"}
    for key, value in t["per_100"].items():
        print(f"  {key:<24}{value:>8.3f} per 100  ({TARGETS[key]})  {mark[verdict[key]]}")
    for key in ("references_parsed_pct", "titles_found_pct"):
        print(f"  {key:<24}{t[key]!s:>8}  ({TARGETS[key]})  {mark[verdict[key]]}")
    print(f"  read {t['read_s_per_page']:.3f} s/page")
    print(f"  citation edges: {t['edges_right']}/{t['edges_expected']} expected found, {t['edges_found']} found "
          f"(recall {t['edges_recall_pct']}%, precision {t['edges_precision_pct']}%); missed {t['edges_missed']}; "
          f"extra {t['edges_extra']}")
    for name in ("glued", "citation_start", "lowercase_start"):
        picked = [(r["paper"], e) for r in rows for e in r["examples"].get(name, [])[:max(k // 2, 1)]][:k]
        if k and picked:
            print(f"\n== {name}")
            for paper, e in picked:
                print(f"  [{paper[:24]} p.{e['page']}] {e.get('tokens', '')} {e['text'][:200]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=Path, default=PAPERS)
    parser.add_argument("--titles", type=Path, default=None, help="JSON: file stem -> real title")
    parser.add_argument("--out", type=Path, default=RESULTS / "pdf_classic.json")
    parser.add_argument("--examples", type=int, default=0, help="print up to K example sentences per defect")
    args = parser.parse_args()
    titles = real_titles(args.papers, args.titles or TITLES.get(args.papers.name))
    nlp = load_spacy()
    rows, docs, tails = [], [], {}
    for path in sorted(args.papers.glob("*.pdf")):
        row, citing, tails[path.stem] = measure(path, nlp, titles.get(path.stem, ""))
        rows.append(row)
        docs.append(citing)
        print(f"  {path.stem[:40]}: {row['retrievable']} sentences", flush=True)
    edges = citation_graph(docs)
    t = totals(rows, edges, expected_edges(rows, tails))
    verdict = verdicts(t)
    print_table(rows, t, verdict, args.examples)
    for r in rows:
        r["examples"] = {d: e[:5] for d, e in r["examples"].items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "targets": TARGETS, "totals": t, "verdicts": verdict,
                                    "edges": [e.to_dict() for e in edges], "papers": rows}, indent=1,
                                   ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
