"""Loading documents without models: refusing bad files, cleaning, chunking, sentence post-fixes, ids.

:mod:`kgcore.index.load`, :mod:`kgcore.index.clean` and the pure parts of :mod:`kgcore.index.sentences`;
splitting real text with spaCy is in tests/models/test_ingest_models.py."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from pdfs import pdf_with_text

from kgcore.core.errors import InputError
from kgcore.core.settings import Settings
from kgcore.index.clean import reflow, strip_gutenberg
from kgcore.index.load import doc_id_for, load_bytes, load_document, load_text
from kgcore.index.sentences import chunk_paragraphs, merge_false_splits, normalize_sentence, whole_tokens
from paths import PETER

SETTINGS = Settings()  # defaults, independent of the caller's KGCORE_* environment


@pytest.fixture(scope="module")
def peter_doc():
    return load_document(PETER, SETTINGS)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _refusal(path: Path, settings: Settings = SETTINGS) -> str:
    with pytest.raises(InputError) as caught:
        load_document(path, settings)
    assert caught.value.where == path.name
    return str(caught.value)


# ---------------------------------------------------------------- Peter Rabbit, loaded


def test_peter_document_identity(peter_doc):
    assert peter_doc.name == "peter_rabbit"
    assert peter_doc.source_sha256 == hashlib.sha256(PETER.read_bytes()).hexdigest()
    assert peter_doc.text == "\n\n".join(p.text for p in peter_doc.paragraphs)
    assert all(peter_doc.text[p.start:p.start + len(p.text)] == p.text for p in peter_doc.paragraphs)
    assert peter_doc.source_path == str(PETER)


# ---------------------------------------------------------------- sentence post-fixes (pure logic)


def test_merge_false_splits_rules():
    text = "We met Dr. Watson there. He said no. why not. It ended\""
    cut = [(0, 10), (11, 24), (25, 36), (37, 45), (46, 54), (54, 55)]
    pieces = [text[a:b] for a, b in merge_false_splits(cut, text)]
    # title + capital merges, lower-case after a full stop stays split, a lone quote joins its sentence
    assert pieces == ["We met Dr. Watson there.", "He said no.", "why not.", 'It ended"']
    text = "He walked to the gate but she could not answer."
    assert merge_false_splits([(0, 21), (22, 47)], text) == [(0, 47)]
    # a dialogue tag cut off its speech joins it; a closed quotation followed by a lower-case sentence does not
    text = '"Well, who could have thought it?" moaned Richard. "Yes." why not. "No!" cried Meg.'
    cut = [(0, 33), (33, 50), (51, 57), (57, 66), (67, 73), (74, 84)]
    assert [text[a:b].strip() for a, b in merge_false_splits(cut, text)] == [
        '"Well, who could have thought it?" moaned Richard.', '"Yes."', "why not.", '"No!" cried Meg.']
    # a lower-case word after "!" or "?" goes on the sentence (Robinson Crusoe's 'But alas!' + 'a few days ...'),
    # as after a single-quoted exclamation; nothing starts with ";"
    text = "But alas! a few days wore it off. 'Oh, forgive me!' he moaned. It read \"Go.\"; and so on."
    cut = [(0, 9), (10, 33), (34, 51), (52, 62), (63, 77), (77, 89)]
    assert [text[a:b] for a, b in merge_false_splits(cut, text)] == [
        "But alas! a few days wore it off.", "'Oh, forgive me!' he moaned.", 'It read "Go."; and so on.']


def test_sentence_cuts_inside_a_word_move_to_its_marks():
    """A cut between a stop and the quotation marks glued to it (no space between) moves: closing marks go back to
    their sentence, an opening mark on to its own, and a dash and word left alone join the rest of their sentence.
    The Phantom of the Opera had 6 such cuts, Robinson Crusoe 2; each sentence held a word its paragraph did not."""
    text = ('"We shall find them when we leave."[5] He crawled on. I cried. \'Erik,\' I said. '
            '"Him."--The man, by the way.')
    cut = [(0, 34), (34, 38), (39, 53), (54, 64), (64, 78), (79, 84), (84, 90), (91, 107)]
    pieces = [text[a:b].strip() for a, b in merge_false_splits(whole_tokens(cut, text), text)]
    assert pieces == ['"We shall find them when we leave."[5]', "He crawled on.", "I cried.", "'Erik,' I said.",
                      '"Him."', "--The man, by the way."]
    assert "".join("".join(pieces).split()) == "".join(text.split())  # no character lost or repeated
    assert sum(len(p.split()) for p in pieces[:-2]) == len(text[:text.index('"Him')].split())  # no word cut
    spaced = "One. Two."  # spans that meet at a space are left alone
    assert whole_tokens([(0, 4), (5, 9)], spaced) == [(0, 4), (5, 9)]


def test_normalize_sentence():
    assert normalize_sentence("\u201cHe\u2019s  here,\u201d\n she said\t") == "\"He's here,\" she said"
    assert normalize_sentence("   ") == ""


# ---------------------------------------------------------------- Gutenberg boilerplate


SYNTHETIC_BOOK = (
    "The Project Gutenberg EBook of Tiny, by Nobody\n\nYou may copy it.\n\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK TINY ***\n\n\n"
    "Produced by Some Volunteers and the Online\nDistributed Proofreading Team\n\n"
    "Chapter one.\nIt begins here.\n\nIt ends here.\n\n"
    "End of the Project Gutenberg EBook of Tiny, by Nobody\n\n"
    "*** END OF THIS PROJECT GUTENBERG EBOOK TINY ***\n\nSection 1. General Terms of Use\n"
)


def test_strip_gutenberg_header_footer_and_credits():
    body = strip_gutenberg(SYNTHETIC_BOOK)
    assert body.strip() == "Chapter one.\nIt begins here.\n\nIt ends here."


def test_the_report_counts_the_boilerplate_words_taken_out():
    """The ingestion report says how many words went with the header and licence, so that "964 words" of a
    4,000-word file is explained."""
    report = load_bytes(SYNTHETIC_BOOK.encode("utf-8"), "tiny.txt").report
    assert report.words == 8 and report.boilerplate_words == len(SYNTHETIC_BOOK.split()) - 8 > 30
    assert load_text(SYNTHETIC_BOOK, "tiny.txt").report.boilerplate_words == report.boilerplate_words
    assert load_bytes(b"Just a story.", "plain.txt").report.boilerplate_words == 0


def test_strip_gutenberg_two_line_start_marker_and_crlf():
    raw = (
        "Header licence\r\n\r\n***START OF THE PROJECT GUTENBERG EBOOK THE LIFE AND ADVENTURES OF\r\n"
        "ROBINSON CRUSOE***\r\n\r\n\r\nTranscribed from the 1919 edition by David Price,\r\nemail x@y.org\r\n\r\n"
        "I was born in the year 1632.\r\n\r\n***END OF THE PROJECT GUTENBERG EBOOK THE LIFE AND ADVENTURES OF\r\n"
        "ROBINSON CRUSOE***\r\nlicence\r\n"
    )
    body = strip_gutenberg(raw)
    assert body.strip() == "I was born in the year 1632."
    assert reflow(raw) != reflow(body)  # the markers really were there
    assert reflow(body) == ["I was born in the year 1632."]


def test_strip_gutenberg_end_of_projects_variant_and_no_markers():
    raw = "*** START OF THE PROJECT GUTENBERG EBOOK X ***\nStory.\nEnd of Project Gutenberg's X, by Y\nlicence"
    assert strip_gutenberg(raw).strip() == "Story."
    plain = "Just a story.\n\nWith *** stars *** and no markers.\n"
    assert strip_gutenberg(plain) == plain


# ---------------------------------------------------------------- reflow and markdown


def test_reflow_joins_sentences_split_by_illustrations():
    raw = (
        "Flopsy, Mopsy and Cotton-tail who were good little bunnies went down\nthe lane together\n\n"
        "[Illustration]\n\nTo gather blackberries.\n\n[Illustration: Peter in the\ngarden, eating]\n\n"
        "He\nAte\nSome\nRadishes\n\n[Illustration]\n\nAnd then, feeling sick, he went home."
    )
    assert reflow(raw) == [
        "Flopsy, Mopsy and Cotton-tail who were good little bunnies went down the lane together "
        "To gather blackberries.",
        "He Ate Some Radishes And then, feeling sick, he went home.",
    ]


def test_reflow_headings_stand_alone_and_quotes_stay_whole():
    raw = (
        "THE TALE\n\nOF\n\nCHAPTER I--START IN LIFE\n\nI was born\n\nin York.\n\n"
        '"Now, my dears," said old Mrs. Rabbit, "don\'t go.\n\n[Illustration]\n\n'
        'Your father was put in a pie by Mrs.\n\n[Illustration]\n\nMcGregor."\n\nThe end.'
    )
    assert reflow(raw) == [
        "THE TALE",
        "OF",
        "CHAPTER I--START IN LIFE",
        "I was born in York.",
        '"Now, my dears," said old Mrs. Rabbit, "don\'t go.',
        'Your father was put in a pie by Mrs. McGregor."',
        "The end.",
    ]


def test_a_contents_list_after_a_transcribers_note_is_front_matter():
    """Shaped like The Phantom of the Opera's Gutenberg file (CRLF): a prose-like transcriber's note, the title
    page and a contents list in capitals came out as one body paragraph, so chapter titles became retrievable
    sentences and entities ("SAFETY-PIN XV CHRISTINE")."""
    raw = ("The footnotes have been incrementally numbered in [ ] marks, and placed\r\nafter the paragraph in which "
           "they appear\r\n\r\n\r\nThe Ghost of the Opera\r\n\r\nby\r\n\r\nG. Writer\r\n\r\nContents\r\n\r\n"
           "        PROLOGUE\r\n     I  IS IT A GHOST?\r\n    II  THE NEW MARGARITA\r\n   III  THE MYSTERIOUS "
           "REASON\r\n\r\nPrologue\r\n\r\nThe Opera ghost really existed.  He was not, as was long\r\nbelieved, "
           "a creature of the imagination.\r\n\r\nChristine sang.")
    document = load_text(raw, "ghost.txt")
    assert [p.kind for p in document.paragraphs] == ["front_matter"] * 6 + ["body", "body"]
    assert document.paragraphs[6].text.startswith("The Opera ghost really existed.")
    # a document whose text runs on before its contents list keeps that text in the body
    essay = "\n\n".join(["This report was written by the committee over a long and difficult year of work."] * 3
                         + ["Contents", "1 Scope", "The scope of the rules is set out below in full."])
    assert [p.kind for p in load_text(essay, "essay.txt").paragraphs][0] == "body"


def test_a_shout_or_a_letters_salutation_in_capitals_is_no_heading():
    """Shaped like The Phantom of the Opera: a line of dialogue shouted in capitals and a letter's salutation were
    headings, so out of retrieval by default and the section of the paragraphs after them ("GENTLEMEN:")."""
    raw = ("Chapter IV Box Five\n\nThe managers read the letter aloud.\n\nGENTLEMEN:\n\nI must have my box.\n\n"
           "Then the old woman cried:\n\n\"ERIK'S SECRETS CONCERN NO ONE BUT HIMSELF!\"\n\nThey were silent.")
    paragraphs = load_text(raw, "box.txt").paragraphs
    assert [p.kind for p in paragraphs] == ["heading"] + ["body"] * 6
    assert paragraphs[2].text == "GENTLEMEN:" and paragraphs[5].text.startswith('"ERIK\'S SECRETS')
    assert {p.section for p in paragraphs[1:]} == {"Chapter IV Box Five"}


def test_a_long_chapter_title_is_a_heading_not_the_start_of_its_first_paragraph():
    raw = ("Chapter XVI Mme. Giry's Astounding Revelations as to Her\nPersonal Relations with the Opera Ghost\n\n"
           "Before following the commissary into the manager's office I must\ndescribe certain occurrences.")
    heading, body = load_text(raw, "ghost.txt").paragraphs
    assert heading.kind == "heading" and heading.text.endswith("with the Opera Ghost")
    assert body.kind == "body" and body.text.startswith("Before following") and body.section == heading.text


def test_reflow_normalises_whitespace_and_drops_separators():
    raw = "\ufeff  Tabs\there\u00a0and   spaces.\r\n\r\n   * * * * *\r\n\r\nNext _italic_ line.\rSame paragraph."
    assert reflow(raw) == ["Tabs here and spaces.", "Next italic line. Same paragraph."]
    assert reflow("") == [] and reflow(" \n\n\t\n") == []


def test_markdown_markup_is_stripped(tmp_path):
    markdown = (
        "# The Tale of Peter\n\nPeter was **very** *naughty* and `quick`.\n"
        "See [the book](https://example.org/peter) ![cover](cover.png) <b>now</b>.\n\n"
        "## Garden\n\n- He ate _lettuces_.\n- He ate radishes.\n\n<!-- a hidden comment -->\n\n"
        "Setext Title\n============\n\n> Quoted ~~old~~ line.\n"
    )
    doc = load_document(_write(tmp_path, "Peter Notes.md", markdown.encode()), SETTINGS)
    assert doc.name == "peter-notes"
    assert [(p.text, p.kind, p.section) for p in doc.paragraphs] == [
        ("The Tale of Peter", "heading", "The Tale of Peter"),
        ("Peter was very naughty and quick. See the book now.", "body", "The Tale of Peter"),
        ("Garden", "heading", "Garden"),
        ("He ate lettuces. He ate radishes.", "body", "Garden"),
        ("Setext Title", "heading", "Setext Title"),
        ("Quoted old line.", "body", "Setext Title"),
    ]
    for markup in ("#", "*", "`", "](", "![", "<", ">", "~~", "_"):
        assert markup not in doc.text
    plain = load_document(_write(tmp_path, "same.txt", markdown.encode()), SETTINGS)
    assert "**very**" in plain.text  # markdown is only stripped for .md/.markdown


# ---------------------------------------------------------------- chunking


def test_chunking_keeps_paragraphs_whole_and_in_order():
    paragraphs = [" ".join(f"w{i}_{j}" for j in range(n)) for i, n in enumerate([3, 7, 2, 9, 1, 4, 10, 5, 5])]
    chunks = chunk_paragraphs(paragraphs, max_tokens=10)
    assert [p for chunk in chunks for p in chunk] == paragraphs
    assert all(sum(len(p.split()) for p in chunk) <= 10 for chunk in chunks)
    # greedy packing: each chunk could not have taken the next chunk's first paragraph
    for chunk, following in zip(chunks, chunks[1:]):
        assert sum(len(p.split()) for p in chunk) + len(following[0].split()) > 10
    assert chunk_paragraphs([], 10) == []


def test_chunking_splits_an_oversize_paragraph_at_sentence_ends():
    sentences = [f"Sentence {i} has exactly six words." for i in range(10)]  # 6 tokens each
    huge = " ".join(sentences)
    chunks = chunk_paragraphs(["Short intro here.", huge, "Tail."], max_tokens=20)
    pieces = [p for chunk in chunks for p in chunk]
    assert " ".join(pieces) == " ".join(["Short intro here.", huge, "Tail."])  # nothing dropped or reordered
    assert all(sum(len(p.split()) for p in chunk) <= 20 for chunk in chunks)
    huge_pieces = pieces[1:-1]
    assert len(huge_pieces) == 4 and all(p.endswith("words.") for p in huge_pieces)
    one_long_sentence = " ".join(["word"] * 25)
    assert [len(c[0].split()) for c in chunk_paragraphs([one_long_sentence], 10)] == [10, 10, 5]
    with pytest.raises(InputError, match="max_tokens"):
        chunk_paragraphs(["a"], 0)


# ---------------------------------------------------------------- bad inputs


def test_empty_and_whitespace_only_files(tmp_path):
    message = _refusal(_write(tmp_path, "empty.txt", b""))
    assert "empty.txt" in message and "empty" in message.split(":", 1)[1]
    message = _refusal(_write(tmp_path, "blank.md", b" \n\t\r\n  \n"))
    assert "blank.md" in message and "empty" in message.split(":", 1)[1]
    message = _refusal(_write(tmp_path, "only_pictures.txt", b"[Illustration]\n\n[Illustration: x]\n"))
    assert "only_pictures.txt" in message and "empty" in message


def test_binary_files_are_refused(tmp_path):
    message = _refusal(_write(tmp_path, "photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20))
    assert "photo.txt" in message and "binary" in message
    controls = bytes(range(1, 9)) * 200 + b"some words"
    message = _refusal(_write(tmp_path, "controls.txt", controls))
    assert "controls.txt" in message and "binary" in message


@pytest.mark.parametrize("name", ["setup.exe", "report.docx", "README", "archive.txt.zip"])
def test_unsupported_extensions(tmp_path, name):
    message = _refusal(_write(tmp_path, name, b"plain words."))
    assert name in message and "unsupported extension" in message


def test_missing_file_and_directory(tmp_path):
    message = _refusal(tmp_path / "nowhere.txt")
    assert "nowhere.txt" in message and "not found" in message
    (tmp_path / "folder.txt").mkdir()
    assert "is a directory" in _refusal(tmp_path / "folder.txt")


def test_huge_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: costs no disk and no time

    def no_reading(self):
        raise AssertionError(f"{self} was read although stat shows it is too large")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    message = _refusal(path)
    assert "huge.txt" in message and "200.0 MB" in message and "50 MB" in message
    assert "KGCORE_MAX_FILE_MB" in message
    monkeypatch.undo()
    small_limit = Settings(max_file_mb=0.001)
    message = _refusal(_write(tmp_path, "two_kb.txt", b"word. " * 400), small_limit)
    assert "two_kb.txt" in message and "0.001 MB" in message


def test_non_utf8_text_is_decoded(tmp_path):
    cp1252 = "\u201cIt costs 5 \u20ac,\u201d said Ren\u00e9e \u2014 na\u00efvely.".encode("cp1252")
    doc = load_document(_write(tmp_path, "windows.txt", cp1252), SETTINGS)
    assert doc.text == "\u201cIt costs 5 \u20ac,\u201d said Ren\u00e9e \u2014 na\u00efvely."
    # 0x81 is undefined in cp1252, so only the latin-1 fallback can decode this
    latin1 = "Fran\u00e7ois paid 5 \u00a3 in S\u00e3o Paulo.".encode("latin-1") + b"\x81"
    doc = load_document(_write(tmp_path, "latin.txt", latin1), SETTINGS)
    assert doc.text == "Fran\u00e7ois paid 5 \u00a3 in S\u00e3o Paulo."
    bom = "\ufeffNa\u00efve caf\u00e9.".encode("utf-8")
    assert load_document(_write(tmp_path, "bom.txt", bom), SETTINGS).text == "Na\u00efve caf\u00e9."
    utf16 = "Wide \u00e9 text.".encode("utf-16")
    assert load_document(_write(tmp_path, "notepad.txt", utf16), SETTINGS).text == "Wide \u00e9 text."


def test_pdf_with_text_layer_is_loaded(tmp_path):
    pdf = pdf_with_text(["Peter Rabbit ate some radishes.", "Then he ran home."])
    doc = load_document(_write(tmp_path, "story.pdf", pdf), SETTINGS)
    assert doc.name == "story"
    assert [(p.text, p.page) for p in doc.paragraphs] == [("Peter Rabbit ate some radishes. Then he ran home.", 1)]
    assert doc.source_sha256 == hashlib.sha256(pdf).hexdigest()


def test_pdf_without_text_layer_needs_ocr(tmp_path):
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.add_blank_page(width=612, height=792)
    path = tmp_path / "scan.pdf"
    with open(path, "wb") as handle:
        writer.write(handle)
    message = _refusal(path)
    assert "scan.pdf" in message and "no text layer" in message and "OCR" in message


def test_malformed_and_encrypted_pdfs(tmp_path):
    noise = bytes((i * 7919 + 13) % 256 for i in range(4096))
    message = _refusal(_write(tmp_path, "noise.pdf", noise))
    assert "noise.pdf" in message and "malformed" in message
    truncated = pdf_with_text(["Hello there."])[:60]
    assert "malformed" in _refusal(_write(tmp_path, "cut.pdf", truncated))

    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with open(path, "wb") as handle:
        writer.write(handle)
    message = _refusal(path)
    assert "locked.pdf" in message and "encrypted" in message


# ---------------------------------------------------------------- document ids


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../../etc/Peter Rabbit.txt", "peter-rabbit"),
        ("..\\..\\Windows\\Robinson  Crusoe!!.TXT", "robinson-crusoe"),
        ("...hidden..name...md", "hidden-name"),
        ("Caf\u00e9 Stories.pdf", "cafe-stories"),
        ("a__b--c_-d.txt", "a_b-c-d"),
        ("x" * 100 + ".txt", "x" * 64),
    ],
)
def test_doc_id_for_sanitises(name, expected):
    doc_id = doc_id_for(name)
    assert doc_id == expected
    assert re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", doc_id) and ".." not in doc_id


@pytest.mark.parametrize("name", ["", "../..", "///", "\u2603\u2603.txt", "../.. /--.txt"])
def test_doc_id_for_refuses_names_without_usable_characters(name):
    with pytest.raises(InputError) as caught:
        doc_id_for(name)
    assert caught.value.where == "name" and "document id" in str(caught.value)


def test_loading_with_a_hostile_name(tmp_path):
    path = _write(tmp_path, "book.txt", b"A short story.")
    doc = load_document(path, SETTINGS, name="../../evil/My Book..txt")
    assert doc.name == "my-book"
    with pytest.raises(InputError) as caught:
        load_document(path, SETTINGS, name="../..")
    assert caught.value.where == "name"
    uploaded = load_bytes(b"Uploaded words.", "C:\\Users\\me\\Up Load.txt", SETTINGS)
    assert uploaded.name == "up-load"
    assert load_text("Some text.", "dir/../Memo.md").name == "memo"
