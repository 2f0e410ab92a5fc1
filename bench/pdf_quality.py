"""PDF quality: what layout-aware ingestion serves as retrievable sentences, on the 24 RAG papers.

    python bench/pdf_quality.py [--papers DIR] [--limit N] [--out PATH] [--examples K]

Papers are loaded and split (``load_document``, ``split_sentences``); sentences with a role in ``RETRIEVABLE``
count.  Defects per 100 retrievable sentences (target):

* ``ligature`` (0): code points U+FB00-FB06.  ``garbled`` (no target): U+FFFD / private-use code points.
* ``hyphen_break`` (0.3): "gen- eration" (hyphen, space, lower case; not "pre- and post-") always; "lan-guage"
  (a two-part letters-only token outside a longer chain) when its hyphen ends a printed line (the paragraph's
  line boxes) and the document writes the joined form more often than the hyphenated one (tokens of all its
  sentences), so "multi-hop", "GPT-4", "state-of-the-art" never count; a soft hyphen U+00AD.
* ``bibliography`` (0.3): holds a year and starts "[12] Surname ..." or with an author list ("Lewis, P.,
  Perez, E.", "Patrick Lewis, Ethan Perez and") or a venue ("In Proceedings", "arXiv"), or holds two venue
  markers ("arXiv preprint", "pages 12-34", "URL http", "Conference on", "doi", ...).
* ``cut_citation`` (0.3): ends in "et al.", "e.g.", "i.e.", "Fig.", "Eq.", "Sec.", "cf.", "vs." or an initial
  ("by J.", "Lewis, P.", "J. K."; not "Appendix A."), or has more "(" than ")" or "[" than "]".
* ``lowercase_start`` (1.0): the first word is all lower-case letters ("but have ...", "els comprehend").
  Simple on purpose: "e.g.", "i.e.", URLs, words holding a capital or digit (iPhone, mT5) and one-letter
  words other than "a" (math variables) are let off; "where d(z) is ..." after an equation counts.
* ``running_header`` (0.2): a sentence of <= 10 words (>= 2 of letters) whose text (digits masked) is on >= 3
  pages, citations and figure labels ("Figure 2.") aside.
* ``citation_only`` (no target): nothing but citation markers ("[47].", "[He et al., 2024].").

``coverage`` (>= 95 % overall, >= 90 % per paper): a reference read with pypdfium2 (NFKC; lines on >= 3 pages
with digits masked, page numbers, the arXiv stamp dropped; cut at the first "References"/"Bibliography" line;
line-end hyphens joined).  Only prose lines count (>= 4 words, >= 60 % of tokens words); others (figure text,
equations, table rows, headings) are breaks no 5-gram crosses (``all_lines``: without this filter).  Coverage
is the share of its word 5-grams (lower-case ``[a-z0-9]+``) among those of the retrievable sentences joined in
order; both sides NFKC with in-word hyphens dropped ("pre-training" = "pretraining").  Missing 5-grams go to
the role of the kgcore paragraph holding them, ``boundary`` (across paragraphs) or ``absent`` (lost text;
longest runs kept as samples).  ``references`` (>= 80 % of papers with >= 5 parsed entries).  ``citations``
(>= 90 %): of retrievable sentences with a numbered marker ("[3]", "[4, 7-9]") the share with resolved
citations, in papers citing by number (more numbered than author-year sentences); the author-year share
("(Lewis et al., 2020)") in the others, no target.  Seconds per page,
single process: pdftext extraction (``read_pages``), extraction + layout (``read_pdf``, <= 0.15), splitting.
Writes bench/results/pdf_quality.json (per paper, totals, targets, verdicts, examples).
"""

from __future__ import annotations

import argparse
import bisect
import json
import re
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import pypdfium2 as pdfium
from common import RESULTS, ROOT, machine

from kgcore.api import RETRIEVABLE, load_document, load_spacy, read_pages, read_pdf, split_sentences

PAPERS = ROOT.parent / "shared" / "data" / "papers"
DEFECTS = ("ligature", "hyphen_break", "bibliography", "cut_citation", "lowercase_start", "running_header",
           "citation_only", "garbled")
#: Per 100 retrievable sentences (at most); None: reported, no target.
TARGETS = {"ligature": 0.0, "hyphen_break": 0.3, "bibliography": 0.3, "cut_citation": 0.3, "lowercase_start": 1.0,
           "running_header": 0.2, "citation_only": None, "garbled": None, "coverage_pct": 95.0,
           "coverage_paper_min_pct": 90.0, "references_pct": 80.0, "citations_numbered_pct": 90.0,
           "read_pdf_s_per_page": 0.15}
N = 5
_LIGATURES = re.compile("[\ufb00-\ufb06]")
_GARBLED = re.compile("[\ufffd\ue000-\uf8ff]")
_HYPHEN_SPACE = re.compile(r"(?<![\w-])([A-Za-z]+)[-\u2010] ([a-z]+)\b")
_HYPHEN_PAIR = re.compile(r"(?<![\w-])([A-Za-z]+)[-\u2010]([a-z]+)(?![\w-])")
_SUSPENDED = {"and", "or", "nor", "to", "vs", "versus", "as"}
_TOKEN = re.compile(r"[A-Za-z]+(?:[-\u2010][A-Za-z]+)*")
_YEAR = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b")
_NAME = r"[A-Z][\w'’`´¨.-]*"
_NUMBERED_ENTRY = re.compile(rf"^\[\d{{1,3}}\]\s+{_NAME}(?:,\s*|\s+)(?:[A-Z]|and\b)")
_AUTHOR_LIST = re.compile(rf"^(?:{_NAME}\s?){{1,4}},\s*(?:{_NAME}\s?){{1,4}}(?:,|\s(?:and|&)\s)")
_VENUE = re.compile(r"In Proceedings|Proceedings of|arXiv preprint|arXiv:|abs/\d|pages \d+\s*[–-]\s*\d+|pp\. \d|"
                    r"URL https?|https?://|doi[:.]|Conference on|Journal of|Transactions on|Workshop on|"
                    r"Association for Computational|vol\. \d|Advances in Neural|CoRR|OpenReview", re.IGNORECASE)
_STARTS_VENUE = re.compile(r"^(?:In (?:Proceedings|Advances|[A-Z]\w* (?:Conference|Workshop|Meeting))|Proceedings|arXiv"
                           r"|URL|CoRR|Advances in)")
_ABBREV_END = re.compile(r"(?:\bet al|\be\.g|\bi\.e|\bFigs?|\bEqs?|\bSecs?|\bcf|\bvs)\.$")
_INITIAL_END = re.compile(r"(?:(?:^|,\s*|\b(?:by|and)\s+)(?:[A-Z]\.\s*)+|(?:[A-Z]\.\s*){2,})$")
_LOWER_OK = re.compile(r"^(?:e\.g\.|i\.e\.|cf\.|et al\.|vs\.)")
_NUMBERED = re.compile(r"\[\s*\d{1,3}(\s*[,–-]\s*\d{1,3})*\s*\]")
_AUTHOR_YEAR = re.compile(r"\([^()]*?[A-Z][\w'’-]+(?: et al\.?| (?:and|&) [A-Z][\w'’-]+)?,\s*(?:19|20)\d{2}[a-z]?"
                          r"[^()]*\)|[A-Z][\w'’-]+ et al\.\s*\((?:19|20)\d{2}[a-z]?\)")
_CITATION_ONLY = re.compile(r"^[\s.,;:]*(?:(?:\[\s*\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\s*\]"
                            r"|[\[(][^\[\]()]*?(?:19|20)\d\d[a-z]?[\])])[\s.,;:]*)+$")
_WORD = re.compile(r"[a-z0-9]+")
_WORDY = re.compile(r"[A-Za-z]{2,}")
_PROSE_TOKEN = re.compile(r"[(\"“‘]?[A-Za-z][a-z]*(?:-[A-Za-z][a-z]*)*[)\"”’,.;:!?]*")
_IN_WORD_HYPHEN = re.compile(r"(?<=[a-z0-9])[-\u2010\x02](?=[a-z0-9])")
_ARXIV_STAMP = re.compile(r"^arXiv:\d{4}\.\d{4,5}v\d+")
_REF_HEADING = re.compile(r"^(?:[\dIVX]+\.?\s*)?(?:References|REFERENCES|Bibliography|BIBLIOGRAPHY)\s*$")


def hyphen_breaks(text: str, vocab: Counter, line_starts: set[int] | None = None) -> int:
    """Words broken at a line end in ``text`` (rule in the module docstring); ``line_starts``: offsets in ``text``
    where a printed line starts (None: unknown, the vocabulary alone decides)."""
    found = sum(1 for m in _HYPHEN_SPACE.finditer(text) if m[2] not in _SUSPENDED) + text.count("\u00ad")
    for m in _HYPHEN_PAIR.finditer(text):
        if line_starts is not None and not {m.end(1) + 1, m.end(1) + 2} & line_starts:
            continue
        a, b = m[1].lower(), m[2]
        found += vocab[a + b] > vocab[f"{a}-{b}"] + vocab[f"{a}\u2010{b}"]
    return found


def bibliography_like(text: str) -> bool:
    starts = _NUMBERED_ENTRY.match(text) or _AUTHOR_LIST.match(text) or _STARTS_VENUE.match(text)
    return bool(_YEAR.search(text)) and bool(starts or len({m[0].lower()[:6] for m in _VENUE.finditer(text)}) >= 2)


def cut_in_citation(text: str) -> bool:
    text = text.rstrip()
    ends_open = _ABBREV_END.search(text) or _INITIAL_END.search(text)
    return bool(ends_open) or text.count("(") > text.count(")") or text.count("[") > text.count("]")


def lowercase_start(text: str) -> bool:
    text = text.lstrip(" \"'“‘•·-–—*")
    if not text or not text[0].islower() or _LOWER_OK.match(text) or text.startswith(("http", "www.")):
        return False
    first = re.split(r"[\s,;:]", text, maxsplit=1)[0].rstrip(".")
    return bool(re.fullmatch(r"[a-z]{2,}(?:-[a-z]+)*|a", first))


def sentence_defects(text: str, vocab: Counter, line_starts: set[int] | None = None) -> Counter:
    return +Counter({"ligature": len(_LIGATURES.findall(text)), "hyphen_break": hyphen_breaks(text, vocab, line_starts),
                     "bibliography": bibliography_like(text), "cut_citation": cut_in_citation(text),
                     "lowercase_start": lowercase_start(text), "citation_only": bool(_CITATION_ONLY.match(text)),
                     "garbled": len(_GARBLED.findall(text))})


def running_texts(sentences) -> set[str]:
    """Sentence texts of <= 10 words (>= 2 of letters, not only citations; digits masked) on >= 3 pages."""
    pages = defaultdict(set)
    for s in sentences:
        if len(s.original.split()) <= 10 and len(_WORDY.findall(s.original)) >= 2 and not _CITATION_ONLY.match(
                s.original):
            pages[masked(s.original)].add(s.page)
    return {text for text, on in pages.items() if len(on) >= 3}


def masked(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.split()))


def starts_within(starts: list[int], sentence) -> set[int] | None:
    """Where printed lines start inside ``sentence`` (offsets in it), from the document's sorted line starts."""
    if sentence.start < 0:
        return None
    first = bisect.bisect_right(starts, sentence.start)
    last = bisect.bisect_left(starts, sentence.end)
    return {x - sentence.start for x in starts[first:last]}


def reference_lines(pages: list[tuple[int, list[str]]], prose: bool) -> list[tuple[int, str | None]]:
    """(page, line) of the body: running lines, page numbers and the arXiv stamp out, cut at References.
    With ``prose``, a line that is not prose (figure text, equations, table rows, headings) becomes a break
    (None) that no 5-gram crosses."""
    repeats = Counter(m for _, lines in pages for m in {masked(x) for x in lines if x})
    kept: list[tuple[int, str | None]] = []
    for number, lines in pages:
        for line in lines:
            if _REF_HEADING.match(line):
                return kept
            if not line or line.isdigit() or repeats[masked(line)] >= 3 or _ARXIV_STAMP.match(line):
                continue
            tokens = line.split()
            words = sum(1 for t in tokens if _PROSE_TOKEN.fullmatch(t))
            kept.append((number, line if not prose or (words >= 4 and words >= 0.6 * len(tokens)) else None))
    return kept


def reference_words(lines: list[tuple[int, str | None]]) -> tuple[list[str], list[int]]:
    """The words of the reference body and the page of each, a hyphen at a line end joined; "#" at a break."""
    words, pages, prev_line = [], [], ""
    for number, line in lines:
        line_words = words_of(line) if line is not None else ["#"]
        if words and line_words and prev_line.endswith(("-", "\x02")) and prev_line[-2:-1].isalnum():
            words[-1] += line_words.pop(0)
        words += line_words
        pages += [number] * (len(words) - len(pages))
        prev_line = line or ""
    return words, pages


def grams(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + N]) for i in range(len(words) - N + 1)}


def words_of(text: str) -> list[str]:
    """Lower-case words, hyphens inside words dropped on both sides ("pre-training" = "pretraining")."""
    return _WORD.findall(_IN_WORD_HYPHEN.sub("", unicodedata.normalize("NFKC", text).lower()))


def coverage(path: Path, doc, retrievable, samples: int) -> dict:
    """Body coverage on prose lines (the target) and on every body line; where the missing 5-grams are."""
    served = grams(words_of(" ".join(s.original for s in retrievable)))
    everywhere = grams(words_of(" ".join(p.text for p in doc.paragraphs)))
    role_of = {}
    for p in doc.paragraphs:
        if p.kind not in RETRIEVABLE:
            role_of.update(dict.fromkeys(grams(words_of(p.text)), p.kind))
    pdf, pages = pdfium.PdfDocument(str(path)), []
    for number, page in enumerate(pdf, start=1):  # pdfium's hyphen mark U+FFFE -> \x02, joined like "-"
        text = unicodedata.normalize("NFKC", page.get_textpage().get_text_range().replace("\ufffe", "\x02"))
        pages.append((number, [" ".join(line.split()) for line in re.split(r"\r\n|\n|\r", text)]))
    pdf.close()
    prose = missing_grams(*reference_words(reference_lines(pages, prose=True)), served, everywhere, role_of)
    every = missing_grams(*reference_words(reference_lines(pages, prose=False)), served, everywhere, role_of)
    prose["absent_samples"] = prose["absent_samples"][:samples]
    return {**prose, "pct": pct(prose["covered"], prose["grams"]), "all_lines": {
        "grams": every["grams"], "covered": every["covered"], "pct": pct(every["covered"], every["grams"]),
        "missing_by_role": every["missing_by_role"]}}


def missing_grams(words, pages, served, everywhere, role_of) -> dict:
    """Covered 5-grams; the rest by the role of the kgcore paragraph holding them ("absent": none does)."""
    missing, runs, run, total = Counter(), [], [0, -2], 0
    for i in range(len(words) - N + 1):
        gram = tuple(words[i:i + N])
        if "#" in gram:
            continue
        total += 1
        if gram in served:
            continue
        where = role_of.get(gram, "boundary") if gram in everywhere else "absent"
        missing[where] += 1
        if where == "absent" and run[1] == i - 1:
            run[1] = i
        elif where == "absent":
            run = [i, i]
            runs.append(run)
    runs.sort(key=lambda r: r[0] - r[1])
    absent = [{"page": pages[a], "grams": b - a + 1, "text": " ".join(words[a:b + N][:40])} for a, b in runs]
    return {"grams": total, "covered": total - sum(missing.values()), "missing_by_role": dict(missing.most_common()),
            "absent_samples": absent}


def measure(path: Path, nlp, samples: int) -> dict:
    data = path.read_bytes()
    t0 = time.perf_counter()
    read_pages(data, path.name)
    t1 = time.perf_counter()
    read_pdf(data, path.name)
    t2 = time.perf_counter()
    doc = load_document(path)
    t3 = time.perf_counter()
    sentences = split_sentences(doc, nlp)
    t4 = time.perf_counter()
    retrievable = [s for s in sentences if s.role in RETRIEVABLE]
    vocab = Counter(t.lower() for s in sentences for t in _TOKEN.findall(s.original))  # hyphen chains kept whole
    running = running_texts(sentences)
    starts = sorted(p.start + line.start for p in doc.paragraphs for line in p.lines if line.start > 0)
    counts, examples = Counter(), defaultdict(list)
    for s in retrievable:
        found = sentence_defects(s.original, vocab, starts_within(starts, s))
        found["running_header"] = masked(s.original) in running
        for name, value in (+found).items():
            counts[name] += value
            examples[name].append({"page": s.page, "role": s.role, "text": s.original[:300]})
    return {"paper": path.stem, "pages": doc.report.pages, "sentences": len(sentences),
           "retrievable": len(retrievable), "defects": {d: int(counts[d]) for d in DEFECTS},
           "references": len(doc.references), **citation_rates(retrievable),
           "extract_s": round(t1 - t0, 3), "read_pdf_s": round(t2 - t1, 3), "split_s": round(t4 - t3, 3),
           "coverage": coverage(path, doc, retrievable, samples), "examples": dict(examples)}


def citation_rates(retrievable) -> dict:
    numbered = [s for s in retrievable if _NUMBERED.search(s.original)]
    author_year = [s for s in retrievable if _AUTHOR_YEAR.search(s.original)]
    return {"style": "numbered" if len(numbered) > len(author_year) else "author-year",
            "numbered": len(numbered), "numbered_resolved": sum(1 for s in numbered if s.citations),
            "author_year": len(author_year), "author_year_resolved": sum(1 for s in author_year if s.citations)}


def pct(part: float, whole: float) -> float | None:
    return round(100 * part / whole, 2) if whole else None


def totals(rows: list[dict]) -> dict:
    total = sum(r["retrievable"] for r in rows)
    pages = sum(r["pages"] for r in rows)
    rates = {d: round(100 * sum(r["defects"][d] for r in rows) / max(total, 1), 3) for d in DEFECTS}
    grams_all = sum(r["coverage"]["grams"] for r in rows)
    covered = sum(r["coverage"]["covered"] for r in rows)
    missing = Counter()
    for r in rows:
        missing.update(r["coverage"]["missing_by_role"])
    return {"papers": len(rows), "pages": pages, "retrievable": total, "per_100": rates,
            "coverage_pct": pct(covered, grams_all),
            "coverage_all_lines_pct": pct(sum(r["coverage"]["all_lines"]["covered"] for r in rows),
                                          sum(r["coverage"]["all_lines"]["grams"] for r in rows)),
            "coverage_paper_min_pct": min((r["coverage"]["pct"] or 0 for r in rows), default=None),
            "missing_by_role_pct": {k: pct(v, grams_all) for k, v in missing.most_common()},
            "references_pct": pct(sum(r["references"] >= 5 for r in rows), len(rows)),
            **citation_totals(rows),
            "extract_s_per_page": round(sum(r["extract_s"] for r in rows) / max(pages, 1), 4),
            "read_pdf_s_per_page": round(sum(r["read_pdf_s"] for r in rows) / max(pages, 1), 4),
            "split_s_per_page": round(sum(r["split_s"] for r in rows) / max(pages, 1), 4)}


def citation_totals(rows: list[dict]) -> dict:
    """Resolution of numbered markers in papers citing by number, of author-year ones in the others."""
    def share(kind: str, style: str | None) -> float | None:
        chosen = [r for r in rows if style in (None, r["style"])]
        return pct(sum(r[f"{kind}_resolved"] for r in chosen), sum(r[kind] for r in chosen))

    return {"citations_numbered_pct": share("numbered", "numbered"),
            "citations_numbered_all_papers_pct": share("numbered", None),
            "citations_author_year_pct": share("author_year", "author-year")}


def verdicts(t: dict) -> dict:
    """True where the target is met (None: no target or nothing to measure)."""
    out = {d: (t["per_100"][d] <= TARGETS[d] if TARGETS[d] is not None else None) for d in DEFECTS}
    for key in ("coverage_pct", "coverage_paper_min_pct", "references_pct", "citations_numbered_pct"):
        out[key] = t[key] >= TARGETS[key] if t[key] is not None else None
    out["read_pdf_s_per_page"] = t["read_pdf_s_per_page"] <= TARGETS["read_pdf_s_per_page"]
    return out


_SHORT = dict(zip(DEFECTS, ("lig", "hyph", "bib", "cut", "lower", "head", "cite-only", "garbled")))


def print_table(rows: list[dict], t: dict, verdict: dict) -> None:
    head = f"{'paper':<22}{'pages':>6}{'sents':>6}" + "".join(f"{_SHORT[d]:>10}" for d in DEFECTS)
    print(head + f"{'cov%':>7}{'refs':>6}{'cite%':>7}{'s/page':>8}")
    for r in rows:
        cells = "".join(f"{r['defects'][d]:>10}" for d in DEFECTS)
        cite = pct(*((r["numbered_resolved"], r["numbered"]) if r["style"] == "numbered" else
                     (r["author_year_resolved"], r["author_year"])))
        print(f"{r['paper'][:21]:<22}{r['pages']:>6}{r['retrievable']:>6}{cells}{r['coverage']['pct'] or 0:>7.1f}"
              f"{r['references']:>6}{cite if cite is not None else '-':>7}{r['read_pdf_s'] / max(r['pages'], 1):>8.3f}")
    mark = {True: "PASS", False: "FAIL", None: "-"}
    print("\nper 100 retrievable sentences (target):")
    for d in DEFECTS:
        print(f"  {d:<24}{t['per_100'][d]:>8.3f}  ({TARGETS[d] if TARGETS[d] is not None else 'none'})  "
              f"{mark[verdict[d]]}")
    for key in ("coverage_pct", "coverage_paper_min_pct", "references_pct", "citations_numbered_pct",
                "read_pdf_s_per_page"):
        print(f"  {key:<24}{t[key]!s:>8}  ({TARGETS[key]})  {mark[verdict[key]]}")
    print(f"  author-year citations resolved {t['citations_author_year_pct']}%; extraction "
          f"{t['extract_s_per_page']} s/page; splitting {t['split_s_per_page']} s/page")
    print(f"  coverage counting every body line (figure text, equations, tables too): {t['coverage_all_lines_pct']}%")
    print(f"  missing prose 5-grams by where they are (% of all): {t['missing_by_role_pct']}")


def print_examples(rows: list[dict], k: int) -> None:
    """Up to ``k`` examples per defect type, one paper after another so that they spread over papers."""
    for d in DEFECTS:
        queues = [[(r["paper"], e) for e in r["examples"].get(d, [])] for r in rows]
        picked = []
        while len(picked) < k and any(queues):
            picked += [q.pop(0) for q in queues if q][:k - len(picked)]
        if picked:
            print(f"\n== {d}")
            for paper, e in picked:
                print(f"  [{paper[:30]} p.{e['page']} {e['role']}] {e['text'][:240]!r}")
    print("\n== absent body text (reference 5-grams in no kgcore paragraph)")
    for r in rows:
        for s in r["coverage"]["absent_samples"][:2]:
            print(f"  [{r['paper'][:30]} p.{s['page']}] {s['text']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=Path, default=PAPERS)
    parser.add_argument("--limit", type=int, default=0, help="only the first N papers (0: all)")
    parser.add_argument("--out", type=Path, default=RESULTS / "pdf_quality.json")
    parser.add_argument("--examples", type=int, default=0, help="print up to K example sentences per defect")
    args = parser.parse_args()
    paths = sorted(args.papers.glob("*.pdf"))[:args.limit or None]
    nlp = load_spacy()
    rows = []
    for path in paths:
        rows.append(measure(path, nlp, samples=5))
        print(f"  {path.stem[:40]}: {rows[-1]['retrievable']} sentences", flush=True)
    t = totals(rows)
    verdict = verdicts(t)
    print_table(rows, t, verdict)
    if args.examples:
        print_examples(rows, args.examples)
    for r in rows:
        r["examples"] = {d: e[:5] for d, e in r["examples"].items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "targets": TARGETS, "totals": t, "verdicts": verdict,
                                    "papers": rows}, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
