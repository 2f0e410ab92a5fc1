"""Reference entries of every common style, titles without a title font, and the citation graph with its guard."""

from __future__ import annotations

import pytest
from type3_pdfs import type3_pdf

from kgcore.core.document import Reference
from kgcore.core.types import TITLE
from kgcore.index.pdf import read_pdf
from kgcore.index.pdf.extract import Block, Line
from kgcore.index.pdf.references import parse_entry, split_entries
from kgcore.index.sentences import merge_false_splits
from kgcore.index.views.cites import CitingDocument, citation_graph

GFS = "The Google file system"


@pytest.mark.parametrize(("entry", "first", "authors"), [
    # ACM, authors in capitals
    ("[17] GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T. The Google file system. In Proc. of the 19th ACM SOSP "
     "(Dec. 2003), pp. 29-43.", "Ghemawat", "GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T."),
    # initials first (ACM, USENIX)
    ("[3] S. Ghemawat, H. Gobioff, and S.-T. Leung. The Google file system. In Proceedings of SOSP, pages 29-43, "
     "2003.", "Ghemawat", "S. Ghemawat, H. Gobioff, and S.-T. Leung"),
    # full names (USENIX, NeurIPS)
    ("[8] Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung. The Google file system. In SOSP, 2003.", "Ghemawat",
     "Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung"),
    # Springer LNCS
    ("12. Ghemawat, S., Gobioff, H., Leung, S.T.: The Google file system. In: SOSP. pp. 29-43. ACM (2003)",
     "Ghemawat", "Ghemawat, S., Gobioff, H., Leung, S.T."),
    # author-year (APA, ACL)
    ("Ghemawat, S., Gobioff, H., & Leung, S.-T. (2003). The Google file system. ACM SIGOPS Review, 37(5).",
     "Ghemawat", "Ghemawat, S., Gobioff, H., & Leung, S.-T."),
    ("Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung. 2003. The Google file system. In SOSP.", "Ghemawat",
     "Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung"),
    # IEEE, quoted title
    ('[5] S. Ghemawat, H. Gobioff, and S.-T. Leung, "The Google file system," in Proc. SOSP, 2003, pp. 29-43.',
     "Ghemawat", "S. Ghemawat, H. Gobioff, and S.-T. Leung"),
    # Vancouver
    ("[2] Ghemawat S, Gobioff H, Leung ST. The Google file system. ACM SIGOPS 2003;37:29-43.", "Ghemawat",
     "Ghemawat S, Gobioff H, Leung ST"),
])
def test_every_common_style_gives_title_authors_and_year(entry, first, authors):
    ref = parse_entry(entry)
    assert (ref.title, ref.first_author, ref.year, ref.authors) == (GFS, first, "2003", authors)
    assert ref.venue and "Google" not in ref.venue


def test_an_organisation_as_author_and_an_alphabetic_label():
    ref = parse_entry("[NLA] NLANR. A distributed testbed for national information provisioning. http://x.org/.")
    assert (ref.label, ref.first_author, ref.title) == ("NLA", "NLANR",
                                                        "A distributed testbed for national information provisioning")


def _block(lines: list[str], y: float) -> Block:
    return Block.of(1, tuple(Line(text, (70, y + 12 * i, 300, y + 12 * i + 10), 9.0, False)
                             for i, text in enumerate(lines)))


def test_a_numbered_entry_broken_by_a_column_break_is_joined():
    blocks = [_block(["[3] G. Salton. Automatic text processing. Addison-Wesley, 1989.",
                      "[4] G. Erkan and D. R. Radev. LexRank: graph-based lexical",
                      "centrality in summarization."], 100),
              _block(["Journal of Artificial Intelligence Research, 22:457-479, 2004.",
                      "[5] S. Ghemawat, H. Gobioff, and S.-T. Leung. The Google file system.", "In SOSP, 2003."], 400)]
    entries = split_entries(blocks)
    assert len(entries) == 3 and entries[1].endswith("Research, 22:457-479, 2004.")
    assert parse_entry(entries[1]).year == "2004"


def test_author_year_entries_are_not_cut_at_a_year_opening_a_line():
    blocks = [_block(["Mikel Artetxe, Sebastian Ruder, and Dani Yogatama.", "2020. On the cross-lingual "
                      "transferability of representations. In ACL."], 100),
              _block(["Kenton Lee, Ming-Wei Chang, and Kristina Toutanova.", "2019. Latent retrieval. In ACL."], 200)]
    assert [parse_entry(e).title for e in split_entries(blocks)] == [
        "On the cross-lingual transferability of representations", "Latent retrieval"]


def test_a_sentence_never_starts_with_a_citation_marker():
    pieces = ["Bigtable uses GFS", "(Ghemawat et al., 2003) to store logs.", "Chubby uses Paxos",
              "[9, 23] to agree.", "[Lam78] too."]
    text = " ".join(pieces)
    cuts = [(text.index(p), text.index(p) + len(p)) for p in pieces]
    assert [text[a:b] for a, b in merge_false_splits(cuts, text)] == [
        "Bigtable uses GFS (Ghemawat et al., 2003) to store logs.", "Chubby uses Paxos [9, 23] to agree. [Lam78] too."]


def test_a_lower_case_continuation_after_an_ellipsis_or_a_list_number_joins():
    pieces = ["We need a method. . .", "conventional languages confuse us.", "Storage 4.", "a base set of types."]
    text = " ".join(pieces)
    cuts = [(text.index(p), text.index(p) + len(p)) for p in pieces]
    assert [text[a:b] for a, b in merge_false_splits(cuts, text)] == [
        "We need a method. . . conventional languages confuse us.", "Storage 4. a base set of types."]


def test_the_title_is_found_by_glyph_height_when_every_font_reports_one_size():
    body = [["We", "study", "how", "old", "papers", "are", "read", "by", "machines", "and", "what", "is", "lost."]] * 6
    pages = [[(16.0, ["Reading", "Old", "Papers"]), (16.0, ["by", "Machine"]), ["Ann", "Lee", "and", "Bo", "Chen"],
              ["1", "Introduction"]] + body]
    paragraphs = read_pdf(type3_pdf(pages, unit=True), "old.pdf").paragraphs
    assert [p.text for p in paragraphs if p.kind == TITLE] == ["Reading Old Papers by Machine"]


def test_the_title_is_never_a_journal_masthead():
    from tests.pdfs import Writer

    w = Writer()
    w.page(top=60)
    w.full_width(["JSS Journal of Statistical Software"], 24, gap=4)
    w.full_width(["Tidy Data"], 16, bold=True, gap=4)
    w.full_width(["Hadley Wickham"], 11, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(["It is often said that most of data analysis is spent cleaning data, and on little else."] * 5)
    paragraphs = read_pdf(w.bytes(), "tidy.pdf").paragraphs
    assert [p.text for p in paragraphs if p.kind == TITLE] == ["Tidy Data"]


def test_the_citation_graph_links_papers_and_refuses_a_near_miss_title():
    gfs = CitingDocument("gfs", "The Google File System", front="Sanjay Ghemawat Howard Gobioff Shun-Tak Leung")
    entries = (parse_entry("[17] GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T. The Google file system. In SOSP (2003)."),
               parse_entry("[18] SOLTIS, S., RUWART, T., AND O'KEEFE, M. The Gobal File System. In NASA MSS (1996)."))
    bigtable = CitingDocument("bigtable", "Bigtable: A Distributed Storage System for Structured Data",
                              references=entries, cited_by={"ref-17": ("bigtable/text_0-4",),
                                                            "ref-18": ("bigtable/text_0-9",)})
    edges = citation_graph([gfs, bigtable])
    assert [e.to_dict() for e in edges] == [{"citing": "bigtable", "cited": "gfs", "references": ["ref-17"],
                                             "sentences": ["bigtable/text_0-4"]}]
    # a near-miss title links only with an author or the year to vouch for it
    same_year = CitingDocument("gfs", "The Google File System", front="SOSP 2003, Bolton Landing")
    near, far = (Reference("r", "1", "", authors="Other, A.", first_author="Other", year=year,
                           title="The Gobal File System") for year in ("2003", "1996"))
    citing = [CitingDocument("x", "Something else entirely, a long title", references=(ref,)) for ref in (near, far)]
    assert [e.cited for e in citation_graph([same_year, citing[0]])] == ["gfs"]
    assert citation_graph([same_year, citing[1]]) == []
