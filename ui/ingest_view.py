"""Pure builders for the Library's ingestion reports: what reading each file found (pages, words, paragraphs and
sentences per role, running lines dropped, references, resolved citations, warnings) and which pages to show as
thumbnails.  Document text (warnings quote it) is escaped.

>>> from kgcore.core.document import IngestReport
>>> report = IngestReport(pages=2, words=349, roles={"body": 4, "table": 1}, sentences={"body": 12, "table": 4},
...                       header_footer_lines=4, references=4, citations_resolved=3,
...                       warnings=("page 3: no text layer (a scanned page needs OCR)",))
>>> roles_table(report).values.tolist()
[['body text', 4, 12, 'retrieved'], ['table', 1, 4, 'never retrieved']]
>>> [value for _, value, _ in report_metrics(report)]
[2, 349, 4, 4, 3]
>>> thumbnail_pages(report), thumbnail_pages(IngestReport(pages=40)), thumbnail_pages(IngestReport())
([1, 2], [1, 2, 3, 4, 5, 6], [])
"""

from __future__ import annotations

import pandas as pd

from kgcore.api import CollectionManifest, IngestReport

from .labels import ROLE_LABELS, label
from .markup_html import md_escape
from .roles_view import ordered_roles, retrieval_of

#: Pages shown as thumbnails per document, and their scale (a 612-point wide page becomes 184 pixels).
THUMBNAILS = 6
THUMBNAIL_SCALE = 0.3
#: What the Library says about a document indexed before kgcore kept ingestion reports.
NO_REPORT = "indexed before ingestion reports (re-index to get one)"
#: Headline numbers only a paged document (a PDF) has.
PAGED_METRICS = frozenset({"Pages", "Running lines dropped"})
OVERVIEW_COLUMNS = ["document", "file", "pages", "words", "paragraphs", "sentences", "running lines dropped",
                    "references", "citations resolved", "warnings"]


def roles_table(report: IngestReport) -> pd.DataFrame:
    """Paragraphs and sentences per role (in :data:`kgcore.core.types.ROLES` order) and what retrieval does."""
    roles = ordered_roles([*report.roles, *report.sentences])
    return pd.DataFrame([{
        "role": label(ROLE_LABELS, role), "paragraphs": report.roles.get(role, 0),
        "sentences": report.sentences.get(role, 0), "retrieval": retrieval_of(role),
    } for role in roles], columns=["role", "paragraphs", "sentences", "retrieval"])


def report_metrics(report: IngestReport) -> list[tuple[str, int, str]]:
    """(name, value, help) of the report's headline numbers; a text or markdown file (no pages) shows no page
    numbers ("Pages 0" and "Running lines dropped 0" said nothing about it).

    >>> [name for name, _, _ in report_metrics(IngestReport(words=900))]
    ['Words', 'References', 'Citations resolved']

    Words of Project Gutenberg's header and licence are said when some were taken out:

    >>> [(name, value) for name, value, _ in report_metrics(IngestReport(words=964, boilerplate_words=3100))][:2]
    [('Words', 964), ('Boilerplate words dropped', 3100)]
    """
    metrics = [
        ("Pages", report.pages, "Pages of the PDF"),
        ("Words", report.words, "Words of the cleaned text"),
        ("Running lines dropped", report.header_footer_lines,
         "Running header, footer and page-number lines taken out of the text"),
        *([("Boilerplate words dropped", report.boilerplate_words,
            "Words of Project Gutenberg's header, licence and production credits taken out of the text")]
          if report.boilerplate_words else []),
        ("References", report.references, "Entries parsed from the reference list"),
        ("Citations resolved", report.citations_resolved,
         "Sentences whose citation markers ([12], (Lewis et al., 2020)) resolved to a reference entry"),
    ]
    return metrics if report.pages else [m for m in metrics if m[0] not in PAGED_METRICS]


def report_warnings(doc_id: str, report: IngestReport | None) -> list[str]:
    """The report's warnings as markdown lines naming the document (text escaped).

    >>> report_warnings("scan*", IngestReport(warnings=("page 3: no text layer",)))
    ['**scan\\\\***: page 3: no text layer']
    >>> report_warnings("old", None)
    []
    """
    return [f"**{md_escape(doc_id)}**: {md_escape(w)}" for w in (report.warnings if report else ())]


def thumbnail_pages(report: IngestReport | None, limit: int = THUMBNAILS) -> list[int]:
    """The 1-based pages to draw as thumbnails: the first ``limit`` (none for text files and old indexes)."""
    return list(range(1, min(report.pages, limit) + 1)) if report else []


def ingest_overview(collection: CollectionManifest) -> pd.DataFrame:
    """One row per document of a collection: its report's numbers (empty cells: indexed before reports, and the
    page columns of a text or markdown file, which has no pages: "0 pages" said nothing about it).

    >>> from kgcore.index.store.collection import DocumentEntry
    >>> from kgcore.index.store.manifest import Manifest
    >>> new = Manifest("a", source_file="a.pdf", ingest=IngestReport(pages=2, roles={"body": 3}, sentences={"body": 9}))
    >>> text = Manifest("t", source_file="t.txt", ingest=IngestReport(words=5, roles={"body": 1}))
    >>> shelf = CollectionManifest("shelf", (DocumentEntry(new, "a.1"), DocumentEntry(Manifest("b"), "b.1"),
    ...                                      DocumentEntry(text, "t.1")))
    >>> ingest_overview(shelf)[["document", "pages", "running lines dropped", "words", "warnings"]].values.tolist()
    [['a', 2, 0, 0, 0], ['b', <NA>, <NA>, <NA>, <NA>], ['t', <NA>, <NA>, 5, 0]]
    """
    rows = []
    for m in (d.manifest for d in collection.documents):
        r = m.ingest
        paged = (r.pages, r.header_footer_lines) if r and r.pages else (None, None)
        numbers = [paged[0], r.words, sum(r.roles.values()), sum(r.sentences.values()), paged[1],
                   r.references, r.citations_resolved, len(r.warnings)] if r else [None] * 8
        rows.append([m.doc_id, m.source_file, *numbers])
    frame = pd.DataFrame(rows, columns=OVERVIEW_COLUMNS)
    return frame.astype(dict.fromkeys(OVERVIEW_COLUMNS[2:], "Int64"))


def missing_reports(collection: CollectionManifest) -> str:
    """A line naming the documents indexed before ingestion reports (markdown; "" when every document has one).

    >>> from kgcore.index.store.collection import DocumentEntry
    >>> from kgcore.index.store.manifest import Manifest
    >>> print(missing_reports(CollectionManifest("shelf", (DocumentEntry(Manifest("old_*"), "o.1"),))))
    **old\\_\\*** was indexed before ingestion reports (re-index to get one).
    """
    old = [f"**{md_escape(d.doc_id)}**" for d in collection.documents if d.manifest.ingest is None]
    if not old:
        return ""
    return f"{', '.join(old)} {'was' if len(old) == 1 else 'were'} {NO_REPORT}."
