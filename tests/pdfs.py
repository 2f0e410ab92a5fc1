"""Small papers written as real PDFs with fpdf2 for the ingestion tests (no downloaded files).

Each paper is laid out line by line, as a typesetter would: a title and
authors, an abstract, two columns with a heading in the middle of the left
column, a running header and page numbers on every page, a figure caption, a
table, a footnote, ligature code points (the DejaVu font matplotlib ships
has the glyphs), a word hyphenated at a line end, and a numbered or an
author-year reference list whose entries the body cites.  Fonts: DejaVu
Serif (body), its bold (headings, title).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
from fpdf import FPDF

FONTS = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
PAGE_W, PAGE_H = 900.0, 792.0  # wide enough for two columns of 70-character lines
MARGIN, GUTTER = 54.0, 24.0
COLUMN_W = (PAGE_W - 2 * MARGIN - GUTTER) / 2
TOP, BOTTOM = 80.0, PAGE_H - 70.0
HEADER = "Preprint. Work in progress."


@dataclass
class Column:
    """A column's cursor: where the next line goes."""

    x: float
    y: float = TOP


@dataclass
class Writer:
    """Lays out lines into two columns of successive pages."""

    pdf: FPDF = field(default_factory=lambda: FPDF(unit="pt", format=(PAGE_W, PAGE_H)))
    columns: list[Column] = field(default_factory=list)
    current: int = 0

    def __post_init__(self) -> None:
        self.pdf.set_auto_page_break(False)
        self.pdf.add_font("serif", "", str(FONTS / "DejaVuSerif.ttf"))
        self.pdf.add_font("serif", "B", str(FONTS / "DejaVuSerif-Bold.ttf"))

    def page(self, top: float = TOP) -> None:
        self.pdf.add_page()
        number = self.pdf.page_no()
        self.pdf.set_font("serif", "", 8)
        self.pdf.text(MARGIN, 40, HEADER)
        self.pdf.text(PAGE_W / 2 - 4, PAGE_H - 36, str(number))
        self.columns = [Column(MARGIN, top), Column(MARGIN + COLUMN_W + GUTTER, top)]
        self.current = 0

    def full_width(self, lines: list[str], size: float, bold: bool = False, gap: float = 10) -> None:
        """Lines across the page (title, authors, abstract) from the top cursor."""
        self.pdf.set_font("serif", "B" if bold else "", size)
        y = max(c.y for c in self.columns)
        for line in lines:
            y += size * 1.25
            self.pdf.text(MARGIN, y, line)
        for c in self.columns:
            c.y = y + gap

    def lines(self, lines: list[str], size: float = 9, bold: bool = False, gap: float = 7) -> None:
        """A paragraph in the current column, moving to the next column or page when it is full."""
        self.pdf.set_font("serif", "B" if bold else "", size)
        for line in lines:
            column = self.columns[self.current]
            if column.y + size * 1.25 > BOTTOM:
                self.next_column()
                column = self.columns[self.current]
            column.y += size * 1.25
            indent = 12 if line.startswith("    ") else 0  # a hanging indent is a position, not spaces
            self.pdf.text(column.x + indent, column.y, line.strip())
        self.columns[self.current].y += gap

    def cells(self, rows: list[list[str]], size: float = 8.5) -> None:
        """A table: cells at fixed offsets in the current column."""
        self.pdf.set_font("serif", "", size)
        column = self.columns[self.current]
        for row in rows:
            column.y += size * 1.4
            for i, cell in enumerate(row):
                self.pdf.text(column.x + i * (COLUMN_W / len(row)), column.y, cell)
        column.y += 8

    def footnote(self, text: str) -> None:
        self.pdf.set_font("serif", "", 7)
        self.pdf.text(MARGIN, BOTTOM + 14, text)

    def next_column(self) -> None:
        if self.current == 0:
            self.current = 1
        else:
            self.page()

    def bytes(self) -> bytes:
        return bytes(self.pdf.output())


ABSTRACT = [
    "We study retrieval for question answering over long documents. Our method is efﬁcient and",
    "needs no ﬁne-tuning of the reader; it improves accuracy on three benchmarks by six points.",
]
INTRO = [
    "Large language models answer many questions from their parameters",
    "alone, but they hallucinate facts that a reader cannot verify.",
    "Retrieval-augmented generation [1] conditions the model on passages",
    "found by a retriever, and dense retrievers [2, 3] ﬁnd better passages",
    "than sparse ones. Every retrieval method still needs a good lan-",
    "guage model to read what it ﬁnds, and the language model must",
    "cite its evidence.",
]
INTRO_2 = [
    "We show that a grounded graph of the sentences helps the retriever.",
    "Our contributions are a graph index and a study of its errors.",
]
METHOD = [
    "The graph links every entity to the sentences that mention it. A query",
    "graph is matched against it and the matched sentences are ranked by",
    "their alignment with the query, as in prior work [4]. The reader then",
    "answers from at most one thousand words of context. We keep the",
    "multi-hop questions, which need two sentences, in a separate split.",
]
CAPTION = ["Figure 1: The grounded graph of a short story, with the sentences", "each node is grounded in."]
RESULTS = [
    "Table 1 compares the methods at equal context. The graph method",
    "wins on multi-hop questions and ties on single-hop ones; dense",
    "retrieval [2] is close behind, and sparse retrieval [3] trails both.",
]
TABLE = [["Method", "EM", "F1"], ["Graph", "41.2", "55.0"], ["Dense", "39.8", "53.1"], ["BM25", "33.0", "47.4"]]
ABLATION = [
    "Without coreference the graph loses a tenth of its edges, e.g. those",
    "joining a pronoun to its entity, and exact match drops by two points.",
]
TABLE_CAPTION = ["Table 1: Exact match and F1 on the test split at one thousand words."]
NUMBERED_REFERENCES = [
    ["[1] Patrick Lewis, Ethan Perez, and Douwe Kiela. Retrieval-augmented",
     "generation for knowledge-intensive NLP tasks. In NeurIPS, 2020."],
    ["[2] Vladimir Karpukhin and Barlas Oguz. Dense passage retrieval for",
     "open-domain question answering. In EMNLP, 2020."],
    ["[3] Stephen Robertson and Hugo Zaragoza. The probabilistic relevance",
     "framework: BM25 and beyond. Foundations and Trends, 2009."],
    ["[4] Kelvin Guu, Kenton Lee, and Zora Tung. REALM: Retrieval-augmented",
     "language model pre-training. In ICML, 2020. arXiv:2002.08909."],
]
AUTHOR_YEAR_INTRO = [
    "Retrieval-augmented generation (Lewis et al., 2020) conditions a model",
    "on passages found by a retriever. Karpukhin et al. (2020) showed that",
    "dense retrievers beat sparse ones (Robertson and Zaragoza, 2009).",
]
AUTHOR_YEAR_REFERENCES = [
    ["Karpukhin, V. and Oguz, B. 2020. Dense passage retrieval for",
     "    open-domain question answering. In EMNLP."],
    ["Lewis, P., Perez, E., and Kiela, D. 2020. Retrieval-augmented",
     "    generation for knowledge-intensive NLP tasks. In NeurIPS."],
    ["Robertson, S. and Zaragoza, H. 2009. The probabilistic relevance",
     "    framework: BM25 and beyond. Foundations and Trends."],
]


def numbered_paper() -> bytes:
    """Two pages, two columns, a numbered reference list (see the module docstring)."""
    w = Writer()
    w.page(top=60)
    w.full_width(["Grounded Graphs for Question Answering"], 16, bold=True, gap=4)
    w.full_width(["Ada Lovelace and Alan Turing", "University of Nowhere"], 10, gap=14)
    w.full_width(["Abstract"], 10, bold=True, gap=2)
    w.full_width(ABSTRACT, 9, gap=16)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(INTRO)
    w.lines(INTRO_2)
    w.lines(["2 Method"], 11, bold=True, gap=3)
    w.lines(METHOD)
    w.lines(CAPTION, 8.5)
    w.footnote("1 Code and data are released with the paper.")
    w.next_column()
    w.lines(["3 Results"], 11, bold=True, gap=3)
    w.lines(RESULTS)
    w.lines(TABLE_CAPTION, 8.5)
    w.cells(TABLE)
    w.lines(["3.1 Ablation"], 10, bold=True, gap=3)
    w.lines(ABLATION)
    w.page()
    w.lines(["References"], 11, bold=True, gap=3)
    for entry in NUMBERED_REFERENCES:
        w.lines(entry, 8.5, gap=3)
    return w.bytes()


def author_year_paper() -> bytes:
    """One page with author-year citations and a hanging-indent reference list."""
    w = Writer()
    w.page(top=60)
    w.full_width(["Dense and Sparse Retrieval Revisited"], 16, bold=True, gap=4)
    w.full_width(["Grace Hopper", "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(AUTHOR_YEAR_INTRO)
    w.lines(["References"], 11, bold=True, gap=3)
    for entry in AUTHOR_YEAR_REFERENCES:
        w.lines(entry, 8.5, gap=3)
    return w.bytes()


def citing_paper(title: str, authors: str, body: list[str], references: list[list[str]]) -> bytes:
    """One page: a title, its authors, an introduction (``body``) and a reference list (entries of lines)."""
    w = Writer()
    w.page(top=60)
    w.full_width([title], 16, bold=True, gap=4)
    w.full_width([authors, "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(body)
    w.lines(["References"], 11, bold=True, gap=3)
    for entry in references:
        w.lines(entry, 8.5, gap=3)
    return w.bytes()


def short_paper(title: str, body: list[str]) -> bytes:
    """One page: a title, an author line, an introduction heading and ``body`` (a paper that others can cite)."""
    w = Writer()
    w.page(top=60)
    w.full_width([title], 16, bold=True, gap=4)
    w.full_width(["Vladimir Karpukhin", "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(body)
    return w.bytes()


def same_font_front_matter() -> bytes:
    """A paper whose title, author line and "Abstract" are set in one bold font, one line each (as troff's -ms
    macros set them), above a short abstract and a body."""
    w = Writer()
    w.page(top=60)
    w.full_width(["Tide Gauges and Storm Surges on the Fife Coast", "Helen Marsh, University of St Andrews",
                  "Abstract"], 13, bold=True, gap=6)
    w.full_width(["We study storm surges recorded by tide gauges at Anstruther and Crail."], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    body = ["Storm surges are a danger to harbours on the east coast", "of Scotland, and we measure them at two",
            "gauges that the harbour trusts installed long ago."] * 8
    w.lines(body)
    w.page()
    w.lines(["2 Method"], 11, bold=True, gap=3)
    w.lines(body)
    return w.bytes()


def plain_pages(pages: list[list[str]]) -> bytes:
    """One column of body text per page (no running header), for the bad-input and progress tests."""
    pdf = FPDF(unit="pt", format=(PAGE_W, PAGE_H))
    pdf.set_auto_page_break(False)
    pdf.add_font("serif", "", str(FONTS / "DejaVuSerif.ttf"))
    pdf.set_font("serif", "", 10)
    for lines in pages:
        pdf.add_page()
        for i, line in enumerate(lines):
            pdf.text(MARGIN, 200 + 13 * i, line)  # clear of the running-header band
    return bytes(pdf.output())


def image_only_page() -> bytes:
    """A 'scanned' page: an image and no text layer."""
    from PIL import Image

    pdf = FPDF(unit="pt", format=(PAGE_W, PAGE_H))
    pdf.add_page()
    pdf.image(Image.new("RGB", (200, 100), (230, 230, 230)), x=MARGIN, y=TOP, w=200)
    return bytes(pdf.output())


BOOK = [
    "Once upon a time there were four little Rabbits, and their names were Flopsy, Mopsy,",
    "Cotton-tail, and Peter. They lived with their Mother in a sand-bank, underneath the root",
    "of a very big fir-tree. Now my dears, said old Mrs. Rabbit one morning, you may go into",
    "the fields or down the lane, but do not go into Mr. McGregor's garden.",
]


def book() -> bytes:
    """A book as a PDF: a title page, then a chapter heading and prose on the next page (one column)."""
    w = Writer()
    w.page(top=200)
    w.full_width(["The Tale of Peter Rabbit"], 20, bold=True, gap=20)
    w.full_width(["By Beatrix Potter"], 12, gap=10)
    w.page()
    w.full_width(["CHAPTER I"], 12, bold=True, gap=8)
    w.full_width(BOOK, 10, gap=10)
    return w.bytes()


def pdf_with_text(lines: list[str]) -> bytes:
    """A minimal one-page PDF with a Helvetica text layer, offsets computed by hand."""
    content = "BT /F1 12 Tf 72 720 Td " + " ".join(f"({line}) Tj 0 -16 Td" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def interrupted_paper() -> bytes:
    """One page of prose cut where papers cut it: an author-year citation broken at the column's end with the
    authors' note ("†Equal contribution.", set in the body's size) before its continuation, and a quotation
    broken across a paragraph gap ("… y = (“pound”," then "“of”)). …")."""
    w = Writer()
    w.page(top=60)
    w.full_width(["Training Readers With Retrieval"], 16, bold=True, gap=4)
    w.full_width(["Grace Hopper", "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(["A masked example is a pair of a text and its gaps,",
             "for instance x = “The [MASK] is the currency [MASK]",
             "of the UK” with y = (“pound”,"], gap=18)
    w.lines(["“of”)). The reader fills every gap from the retrieved",
             "passages and the masked text together."], gap=18)
    w.lines(["We train the reader for ten epochs and use the",
             "Adam optimizer (Kingma & Ba,"], gap=18)
    w.lines(["†Equal contribution."], gap=18)
    w.next_column()
    w.lines(["2015) with a learning rate that decays linearly",
             "after a short warm-up of one thousand steps."])
    return w.bytes()


def repeated_line(line: str, pages: int = 3) -> bytes:
    """``pages`` pages that each hold only ``line``, near the top edge (where running headers live)."""
    pdf = FPDF(unit="pt", format=(PAGE_W, PAGE_H))
    pdf.set_auto_page_break(False)
    pdf.add_font("serif", "", str(FONTS / "DejaVuSerif.ttf"))
    pdf.set_font("serif", "", 10)
    for _ in range(pages):
        pdf.add_page()
        pdf.text(MARGIN, 50, line)
    return bytes(pdf.output())


def inflating_page(megabytes: int) -> bytes:
    """A one-page PDF whose content stream (a line of text, then spaces) inflates to ``megabytes`` MB from a few
    hundred kB: a compression bomb."""
    import io
    import zlib

    from pypdf import PdfWriter
    from pypdf.generic import EncodedStreamObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    stream = EncodedStreamObject()
    stream._data = zlib.compress(b"BT /F1 12 Tf 72 720 Td (A bomb.) Tj ET\n" + b" " * (megabytes << 20), 9)
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_pages(count: int) -> bytes:
    """A PDF of ``count`` empty pages (a page bomb: small on disk, minutes to read)."""
    import io

    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(count):
        writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def encrypted(data: bytes, user_password: str = "") -> bytes:
    """``data`` (a PDF) encrypted with ``user_password`` (empty: anyone may open it, as many publishers do)."""
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def no_pages() -> bytes:
    """A well-formed PDF whose page tree is empty."""
    import io

    from pypdf import PdfWriter

    out = io.BytesIO()
    PdfWriter().write(out)
    return out.getvalue()
