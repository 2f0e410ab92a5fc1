"""Word gaps read from glyph positions and ligatures without a text mapping, on PDFs set like old TeX papers."""

from __future__ import annotations

from type3_pdfs import type3_pdf

from kgcore.index.pdf import read_pdf
from kgcore.index.pdf.extract import read_pages

FI = chr(0x0C)  # TeX OT1's "fi" ligature, left raw by a font without a text mapping
FF = chr(0x0B)
#: "~" after a word: the next word follows at a narrow gap, with no space glyph (PDFium glues the two).
GLUED = [
    ["the", "chunk~", "replicas", "are~", f"modi{FI}ed", "on", "each", "chunk~", "server."],
    ["every", "chunk~", "is", "stored", "as", "replicas", "and", "the", "master", "keeps", "each", "version."],
    ["a", "chunk", "server", "is", "a", "machine", "whose", "disks", "are", f"modi{FI}ed", "over", "there."],
]


def _lines(data: bytes) -> list[str]:
    return [line.text for page in read_pages(data, "t.pdf") for block in page.blocks for line in block.lines]


def test_words_set_without_space_glyphs_get_their_spaces_back():
    lines = _lines(type3_pdf([GLUED]))
    assert lines[0] == "the chunk replicas are modified on each chunk server."
    assert lines[1].startswith("every chunk is stored as replicas")


def test_no_space_is_put_into_a_word_the_document_prints_whole():
    # "something" is printed whole elsewhere: a wide kern inside it is no word gap, though "some" and "thing"
    # are words of the document too
    pages = [GLUED + [["some", "thing", "is", "something", "else", "and~", "over~", "there", "is", "some~", "thing."]]]
    assert _lines(type3_pdf(pages))[-1] == "some thing is something else and over there is something."


def test_a_gap_too_narrow_for_a_word_gap_stays_glued():
    lines = _lines(type3_pdf([GLUED], glue=0.03))
    assert lines[0].startswith("the chunkreplicas")


def test_unmapped_ligature_codes_come_back_as_letters():
    pages = [[["we", f"modi{FI}ed", "the", f"e{FF}ect", "of", f"{FI}le", "sizes."],
              ["the", f"di{FF}erence", "is", "small", "and", "the", "effect", "is", "clear."]]]
    assert _lines(type3_pdf(pages)) == ["we modified the effect of file sizes.",
                                        "the difference is small and the effect is clear."]


def test_the_ingestion_report_counts_restored_gaps_and_ligatures():
    body = [["This", "paper", "is", "about", "the", "chunk~", "replicas", "we", f"modi{FI}ed", "and", "the", "chunk",
             "servers."]] + GLUED * 3
    report = read_pdf(type3_pdf([body]), "old.pdf").report
    restored = [w for w in report.warnings if "word gaps" in w]
    assert restored and "ligatures" in restored[0]
    assert report.gaps_restored >= 4 and report.ligatures_restored >= 4


def _chars(*pieces: tuple[str, float]) -> list[dict]:
    """Glyph dicts as pdftext gives them: each piece's letters 5 pt wide from its x; " " a zero-width space."""
    out = []
    for text, x in pieces:
        for i, ch in enumerate(text):
            right = x + 5 * i if ch == " " else x + 5 * i + 5
            out.append({"char": ch, "bbox": [x + 5 * i, 100, right, 110], "font": {"size": 10.0, "name": "T"}})
    return out


def test_a_space_pdfium_put_between_touching_letters_goes_unless_both_halves_are_words():
    from kgcore.index.pdf.glyphs import line_text, restore_text

    # "ob jectively": the kerned j made PDFium write a space where the letters touch
    kerned = line_text([{"chars": _chars(("ob", 0), (" ", 10), ("jectively", 10.2), (" ", 55.2), ("rated", 57))}])
    words = {"rated", "of", "the"}
    assert restore_text([kerned], words.__contains__) == ["objectively rated"]
    both = line_text([{"chars": _chars(("of", 0), (" ", 10), ("the", 10.2))}])
    assert restore_text([both], words.__contains__) == ["of the"]


def test_a_capital_after_a_small_letter_at_a_wide_gap_opens_a_word():
    from kgcore.index.pdf.glyphs import line_text, restore_text

    line = line_text([{"chars": _chars(("Top", 0), (" ", 15), ("K", 18), ("Retrieved", 24), ("Docs", 70.5))}])
    assert restore_text([line], {"top"}.__contains__) == ["Top K Retrieved Docs"]
