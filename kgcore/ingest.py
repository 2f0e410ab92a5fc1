"""Loading documents and cutting them into the paper's numbered sentences.

    file -> checks -> decode -> strip Project Gutenberg boilerplate
         -> (strip markdown) -> reflow paragraphs -> chunks -> sentences

Every refusal is an :class:`~kgcore.errors.InputError` naming the file and
the reason, raised before any expensive work (the size check uses ``stat``).

>>> doc = load_text("Peter ran\\nhome.\\n\\n[Illustration]\\n\\nHe slept.", "Peter.txt")
>>> doc.name, doc.paragraphs
('peter', ('Peter ran home.', 'He slept.'))
>>> reflow("He went down\\nthe lane\\n\\n[Illustration]\\n\\nTo gather blackberries.")
['He went down the lane To gather blackberries.']
>>> doc_id_for("../../etc/Peter Rabbit.txt")
'peter-rabbit'
"""

from __future__ import annotations

import hashlib
import io
import re
import unicodedata
from pathlib import Path

from .errors import InputError
from .settings import Settings
from .types import Document, Sentence, sentence_id

TEXT_EXTENSIONS = (".txt", ".md", ".markdown")
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS + (".pdf",)
MARKDOWN_EXTENSIONS = (".md", ".markdown")
MAX_DOC_ID_CHARS = 64
# Components whose output sentence splitting never reads (same sentences without them, ~1/3 faster).
SPLIT_DISABLED_PIPES = ("ner", "lemmatizer", "attribute_ruler", "tagger")
# Titles after which spaCy may end a sentence although a name follows ("Mrs. McGregor").
TITLE_ABBREVIATIONS = frozenset(
    "mr mrs ms messrs mme mlle dr st mt prof rev capt col gen lt sgt hon".split()
)
_BINARY_CONTROL_SHARE = 0.10
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


# ---------------------------------------------------------------- loading


def load_document(path: str | Path, settings: Settings | None = None, name: str | None = None) -> Document:
    """Load a .txt/.md/.markdown/.pdf file as a cleaned :class:`Document`.

    Checks run cheapest first: extension, existence, size (``stat`` only),
    then content.  ``name`` overrides the document id source (default: the
    file name).

    >>> load_document("notes.exe")
    Traceback (most recent call last):
    ...
    kgcore.errors.InputError: notes.exe: unsupported extension '.exe' (supported: .txt, .md, .markdown, .pdf)
    """
    path = Path(path)
    settings = settings or Settings.from_env()
    _check_extension(path.name)
    if not path.exists():
        raise InputError(path.name, f"file not found: {path}")
    if not path.is_file():
        raise InputError(path.name, f"not a regular file: {path}")
    _check_size(path.name, path.stat().st_size, settings.max_file_mb)
    document = load_bytes(path.read_bytes(), path.name, settings, name=name)
    return Document(document.name, document.text, document.paragraphs, str(path), document.source_sha256)


def load_bytes(data: bytes, filename: str, settings: Settings | None = None, name: str | None = None) -> Document:
    """Load the raw bytes of a file called ``filename`` (e.g. an upload).

    >>> load_bytes("Caf\\u00e9 \\u201cnoir\\u201d.".encode("cp1252"), "menu.txt").text
    'Café “noir”.'
    >>> load_bytes(b"", "empty.txt")
    Traceback (most recent call last):
    ...
    kgcore.errors.InputError: empty.txt: empty file (0 bytes)
    """
    settings = settings or Settings.from_env()
    filename = Path(filename.replace("\\", "/")).name or filename
    extension = _check_extension(filename)
    _check_size(filename, len(data), settings.max_file_mb)
    if not data:
        raise InputError(filename, "empty file (0 bytes)")
    text = _pdf_text(data, filename) if extension == ".pdf" else decode_text(data, filename)
    paragraphs = _clean(text, markdown=extension in MARKDOWN_EXTENSIONS)
    if not paragraphs:
        raise InputError(filename, "empty document: no text left after removing whitespace and boilerplate")
    doc_id = doc_id_for(name or filename)
    return Document(doc_id, "\n\n".join(paragraphs), tuple(paragraphs), "", hashlib.sha256(data).hexdigest())


def load_text(text: str, name: str) -> Document:
    """Build a :class:`Document` from in-memory text, cleaned like a file.

    ``name`` gives the document id; a ``.md``/``.markdown`` name strips
    markdown.  ``source_sha256`` hashes the UTF-8 encoded text.

    >>> load_text("# Title\\n\\nSome *bold* [link](http://x.org).", "a.md").paragraphs
    ('Title', 'Some bold link.')
    >>> load_text("   \\n\\t", "blank.txt")
    Traceback (most recent call last):
    ...
    kgcore.errors.InputError: blank.txt: empty document: no text left after removing whitespace and boilerplate
    """
    doc_id = doc_id_for(name)
    paragraphs = _clean(text, markdown=Path(name).suffix.lower() in MARKDOWN_EXTENSIONS)
    if not paragraphs:
        raise InputError(name, "empty document: no text left after removing whitespace and boilerplate")
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return Document(doc_id, "\n\n".join(paragraphs), tuple(paragraphs), "", sha)


def decode_text(data: bytes, filename: str) -> str:
    """Decode text bytes: refuse binary, then try UTF-8 (BOM or not), cp1252, latin-1.

    >>> decode_text("\\ufeffna\\u00efve".encode("utf-8"), "a.txt")
    'naïve'
    >>> decode_text(b"\\x93quoted\\x94 \\x80 5", "a.txt")
    '“quoted” € 5'
    >>> decode_text(b"ab\\x00cd", "a.txt")
    Traceback (most recent call last):
    ...
    kgcore.errors.InputError: a.txt: binary file (contains NUL bytes), not text
    """
    if data.startswith(_UTF16_BOMS):  # Notepad's "Unicode" text has NULs but is text
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(filename, "starts with a UTF-16 byte order mark but is not valid UTF-16") from None
    _check_not_binary(data, filename)
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")  # never fails: every byte is a latin-1 character


def _check_extension(filename: str) -> str:
    extension = Path(filename).suffix.lower()
    if extension not in SUPPORTED_EXTENSIONS:
        shown = repr(extension) if extension else "(none)"
        raise InputError(filename, f"unsupported extension {shown} (supported: {', '.join(SUPPORTED_EXTENSIONS)})")
    return extension


def _check_size(filename: str, size: int, max_mb: float) -> None:
    if size > max_mb * 1024 * 1024:
        raise InputError(
            filename,
            f"file too large: {size / (1024 * 1024):.1f} MB exceeds the limit of {max_mb:g} MB "
            "(raise it with the environment variable KGCORE_MAX_FILE_MB)",
        )


def _check_not_binary(data: bytes, filename: str) -> None:
    if b"\x00" in data:
        raise InputError(filename, "binary file (contains NUL bytes), not text")
    sample = data[:65536]
    controls = sum(1 for byte in sample if byte < 32 and byte not in b"\t\n\r\f\v\x1a" or byte == 127)
    if controls > _BINARY_CONTROL_SHARE * len(sample):
        raise InputError(filename, f"binary file ({controls} control bytes in the first {len(sample)}), not text")


def _pdf_text(data: bytes, filename: str) -> str:
    """The text layer of a PDF, pages separated by blank lines."""
    from pypdf import PdfReader  # only PDFs pay for the import

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError(filename, "encrypted PDF (password protected); remove the password first")
        pages = [page.extract_text() or "" for page in reader.pages]
    except InputError:
        raise
    except Exception as exc:  # pypdf raises many types on hostile input; all mean "unreadable"
        raise InputError(filename, f"malformed or unreadable PDF ({type(exc).__name__}: {exc})") from None
    text = "\n\n".join(pages)
    if not text.strip():
        raise InputError(filename, f"PDF has no text layer ({len(pages)} pages, no extractable text); it needs OCR first")
    return text


# ---------------------------------------------------------------- cleaning


def _clean(text: str, markdown: bool = False) -> list[str]:
    return reflow(strip_gutenberg(text), markdown=markdown)


_START_RE = re.compile(r"^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK", re.IGNORECASE)
_END_RE = re.compile(
    r"^\s*(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG|End of (?:the )?Project Gutenberg)", re.IGNORECASE
)
_CREDIT_RE = re.compile(r"^\s*(?:Produced by|Transcribed from|E-?text prepared by|This e-?text was)", re.IGNORECASE)


def strip_gutenberg(text: str) -> str:
    """Remove the Project Gutenberg header, licence footer and production credits.

    The START marker may wrap over two lines; text without markers is
    returned unchanged.

    >>> raw = "Licence blah\\n***START OF THE PROJECT GUTENBERG EBOOK A\\nLONG TITLE***\\n\\n"
    >>> raw += "Produced by Someone.\\n\\nStory.\\n\\n*** END OF THIS PROJECT GUTENBERG EBOOK A ***\\nMore licence."
    >>> strip_gutenberg(raw).strip()
    'Story.'
    >>> strip_gutenberg("No markers here.")
    'No markers here.'
    """
    lines = text.splitlines(keepends=True)
    start = _body_start(lines)
    end = next((i for i in range(start, len(lines)) if _END_RE.match(lines[i])), len(lines))
    if start == 0 and end == len(lines):
        return text
    return "".join(lines[start:end])


def _body_start(lines: list[str]) -> int:
    """Index of the first line after the START marker and any credit paragraphs (0 if no marker)."""
    marker = next((i for i, line in enumerate(lines) if _START_RE.match(line)), None)
    if marker is None:
        return 0
    start = marker + 1
    closed = lines[marker].rstrip().endswith("***") and lines[marker].count("*") >= 6
    if not closed and start < len(lines) and lines[start].rstrip().endswith("***"):
        start += 1  # the title wrapped onto a second line ending in ***
    while True:
        while start < len(lines) and not lines[start].strip():
            start += 1
        if start >= len(lines) or not _CREDIT_RE.match(lines[start]):
            return start
        while start < len(lines) and lines[start].strip():
            start += 1


_ILLUSTRATION_RE = re.compile(r"\[Illustration[^\]]*\]", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?;:][\"'\u201d\u2019)\]]*$")
_ABBREVIATION_END_RE = re.compile(r"\b(\w+)\.$")
_NON_FINAL_ABBREVIATION_RE = re.compile(r"\b(?:viz|i\.e|e\.g|cf|vs)\.$", re.IGNORECASE)
_HEADING_RE = re.compile(r"^(?:chapter|book|part|volume|section)\s+[\divxlc]+\b", re.IGNORECASE)
# _italic_ may wrap over lines but never over a blank line (paragraph break)
_UNDERSCORE_EMPHASIS_RE = re.compile(r"(?<!\w)_(?=\S)((?:[^_\n]|\n(?![ \t]*\n))+?)(?<=\S)_(?!\w)")
_MD_HEADING = "\x00h "  # marks markdown headings between markup stripping and merging


def reflow(text: str, markdown: bool = False) -> list[str]:
    """Paragraphs of hard-wrapped text, with illustration captions removed.

    Single newlines join with spaces; a paragraph without sentence-final
    punctuation continues into the next one (Gutenberg picture books cut
    sentences around ``[Illustration]``), except short all-caps headings,
    which stand alone.  ``markdown=True`` strips markup first.

    >>> reflow("He\\nAte\\nSome\\nRadishes\\n\\n[Illustration: a\\nrabbit]\\n\\nTHE END\\n\\nFin.")
    ['He Ate Some Radishes', 'THE END', 'Fin.']
    >>> reflow("by Mrs.\\n\\nMcGregor.  Then   more.")
    ['by Mrs. McGregor. Then more.']
    """
    text = _normalize_characters(text)
    text = _ILLUSTRATION_RE.sub("", text)
    # Gutenberg marks italics as _word_ in plain text too
    text = strip_markdown(text) if markdown else _UNDERSCORE_EMPHASIS_RE.sub(r"\1", text)
    blocks = [_join_lines(block) for block in re.split(r"\n[ \t]*\n", text)]
    return _merge_continuations([b for b in blocks if any(ch.isalnum() for ch in b)])


def _normalize_characters(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    text = text.replace("\u00a0", " ").replace("\t", " ").replace("\u00ad", "")
    # C0/C1 control characters are invisible junk (e.g. a stray 0x81 decoded as latin-1)
    return "".join(ch for ch in text if ch == "\n" or not (ch < " " or "\x7f" <= ch <= "\x9f"))


def _join_lines(block: str) -> str:
    joined = ""
    for line in (line.strip() for line in block.split("\n")):
        if not line:
            continue
        # "gold-\nfish" was one word wrapped at its hyphen; "lippity--\nlippity" keeps its space
        glue = "" if re.search(r"[^\W\d_]-$", joined) and line[:1].islower() else " "
        joined = f"{joined}{glue}{line}" if joined else line
    return re.sub(r" {2,}", " ", joined)


def _merge_continuations(blocks: list[str]) -> list[str]:
    paragraphs: list[str] = []
    open_paragraph = False
    for block in blocks:
        heading = block.startswith(_MD_HEADING) or _is_heading(block)
        block = block.removeprefix(_MD_HEADING).strip()
        if open_paragraph and not heading:
            paragraphs[-1] = f"{paragraphs[-1]} {block}"
        elif block:
            paragraphs.append(block)
        open_paragraph = not heading and not _ends_sentence(paragraphs[-1]) if paragraphs else False
    return paragraphs


def _is_heading(block: str) -> bool:
    """Short all-caps lines ("THE TALE", "CHAPTER I--START IN LIFE") or "Chapter 3"."""
    if len(block.split()) > 12:
        return False
    letters = [ch for ch in block if ch.isalpha()]
    return (bool(letters) and all(ch.isupper() for ch in letters)) or bool(_HEADING_RE.match(block))


def _ends_sentence(paragraph: str) -> bool:
    if _ends_with_title(paragraph):
        return False  # "... by Mrs." continues with the name
    return bool(_SENTENCE_END_RE.search(paragraph))


def _ends_with_title(text: str) -> bool:
    found = _ABBREVIATION_END_RE.search(text.rstrip())
    return bool(found) and found.group(1).lower() in TITLE_ABBREVIATIONS


_MD_SUBSTITUTIONS = [
    (re.compile(r"<!--.*?-->", re.DOTALL), ""),
    (re.compile(r"^(\S.*)\n[ \t]*(=+|-{2,})[ \t]*$", re.MULTILINE), r"# \1"),  # setext heading
    (re.compile(r"^[ \t]*(```|~~~).*$", re.MULTILINE), ""),
    (re.compile(r"^[ \t]{0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE), ""),  # link reference definition
    (re.compile(r"^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE), ""),  # horizontal rule
    (re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE), "\n\n" + _MD_HEADING + r"\1" + "\n\n"),
    (re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]"), ""),  # images
    (re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]"), r"\1\2"),  # links
    (re.compile(r"<[^>\n]+>"), ""),  # html tags and autolinks
    (re.compile(r"`+([^`]*)`+"), r"\1"),
    (re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (_UNDERSCORE_EMPHASIS_RE, r"\1"),
    (re.compile(r"^[ \t]*>[ \t>]*", re.MULTILINE), ""),  # blockquote markers
    (re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+", re.MULTILINE), ""),  # list markers
]


def strip_markdown(text: str) -> str:
    """Remove markdown markup, keeping the words (headings stay separate blocks).

    >>> strip_markdown("Read **this** and `code`, see [docs](http://d.org) ![img](a.png)<br>.")
    'Read this and code, see docs .'
    """
    for pattern, replacement in _MD_SUBSTITUTIONS:
        text = pattern.sub(replacement, text)
    return text


# ---------------------------------------------------------------- sentences


def chunk_paragraphs(paragraphs, max_tokens: int = 5000) -> list[list[str]]:
    """Group paragraphs into chunks of at most ``max_tokens`` whitespace tokens.

    This approximates the paper's LangChain recursive splitter (~5000
    tokens, paragraph boundaries first, no overlap).  A paragraph longer
    than ``max_tokens`` is split after sentence ends (". ") instead of
    being dropped.

    >>> chunk_paragraphs(["a b", "c d", "e"], max_tokens=4)
    [['a b', 'c d'], ['e']]
    >>> chunk_paragraphs(["One two. Three four. Five."], max_tokens=3)
    [['One two.'], ['Three four. Five.']]
    """
    if max_tokens < 1:
        raise InputError("max_tokens", f"must be at least 1, got {max_tokens}")
    chunks: list[list[str]] = []
    size = 0
    for piece in (p for paragraph in paragraphs for p in _split_oversize(paragraph, max_tokens)):
        tokens = len(piece.split())
        if not chunks or size + tokens > max_tokens:
            chunks.append([])
            size = 0
        chunks[-1].append(piece)
        size += tokens
    return chunks


def _split_oversize(paragraph: str, max_tokens: int) -> list[str]:
    if len(paragraph.split()) <= max_tokens:
        return [paragraph]
    pieces: list[list[str]] = [[]]
    for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
        words = sentence.split()
        for start in range(0, len(words), max_tokens):  # a sentence longer than a chunk is cut by words
            window = words[start : start + max_tokens]
            if len(pieces[-1]) + len(window) > max_tokens:
                pieces.append([])
            pieces[-1].extend(window)
    return [" ".join(words) for words in pieces if words]


_DASHES = re.compile(r"\s*(?:--+|\u2014)\s*")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'})


def normalize_sentence(text: str) -> str:
    """Collapse whitespace, straighten curly quotes and detach dashes.

    Gutenberg writes dashes as ``--`` glued to words ("and--Jumped"), which
    spaCy reads as one odd token and then misparses the whole clause.

    >>> normalize_sentence("  \\u201cDon\\u2019t,\\u201d  she\\n said. ")
    '"Don\\'t," she said.'
    >>> normalize_sentence("the tool-shed and--Jumped")
    'the tool-shed and -- Jumped'
    """
    return " ".join(_DASHES.sub(" -- ", text.translate(_QUOTES)).split())


def split_sentences(doc: Document, nlp=None, chunk_tokens: int = 5000) -> list[Sentence]:
    """The document's sentences with the paper's ids ``text_{chunk}-{index}``.

    Paragraphs are chunked (:func:`chunk_paragraphs`), then split by spaCy
    (parser-based boundaries; ``ner``/``lemmatizer``/tagging are skipped).
    ``index`` restarts in every chunk, ``position`` counts over the whole
    document.  ``resolved`` starts equal to ``normalized``; coreference
    fills it later.
    """
    if nlp is None:
        from .nlp import load_spacy

        nlp = load_spacy()
    chunked = [(c, p) for c, chunk in enumerate(chunk_paragraphs(doc.paragraphs, chunk_tokens)) for p in chunk]
    disabled = [name for name in SPLIT_DISABLED_PIPES if name in nlp.pipe_names]
    parsed = nlp.pipe((paragraph for _, paragraph in chunked), batch_size=64, disable=disabled)
    sentences: list[Sentence] = []
    per_chunk: dict[int, int] = {}
    for (chunk, paragraph), spacy_doc in zip(chunked, parsed):
        spans = merge_false_splits([(s.start_char, s.end_char) for s in spacy_doc.sents], paragraph)
        for start, end in spans:
            original = paragraph[start:end].strip()
            if not any(ch.isalnum() for ch in original):
                continue
            index = per_chunk.get(chunk, 0)
            per_chunk[chunk] = index + 1
            normalized = normalize_sentence(original)
            sentences.append(
                Sentence(sentence_id(chunk, index), chunk, index, len(sentences), original, normalized, normalized)
            )
    return sentences


def merge_false_splits(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Join sentence spans that a statistical splitter cut in the wrong place.

    A span is glued to the previous one when the previous ends with a title
    ("Mrs.") and this one starts upper-case, when the previous has no
    sentence-final punctuation and this one starts lower-case, or when this
    one is only punctuation (a stray closing quote).

    >>> text = "It was Mrs. McGregor. She asked the way but he ran."
    >>> spans = [(0, 11), (12, 21), (22, 39), (40, 51)]
    >>> [text[a:b] for a, b in merge_false_splits(spans, text)]
    ['It was Mrs. McGregor.', 'She asked the way but he ran.']
    """
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and _continues(text[merged[-1][0] : merged[-1][1]].rstrip(), text[start:end].strip()):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _continues(previous: str, current: str) -> bool:
    if not any(ch.isalnum() for ch in current):
        return True
    if _ends_with_title(previous):
        return current[:1].isupper()
    if _NON_FINAL_ABBREVIATION_RE.search(previous):
        return True  # "by this one thing--viz. that ..."
    return current[:1].islower() and not re.search(r"[.!?][\"'\u201d\u2019)\]]*$", previous)


# ---------------------------------------------------------------- ids


def doc_id_for(name: str) -> str:
    """A safe document id (usable as a folder name) from a file name.

    Keeps the base name only, drops the extension, lowercases, maps
    everything outside ``[a-z0-9_-]`` to ``-`` and collapses repeats.

    >>> doc_id_for("C:\\\\books\\\\Robinson_Crusoe (1919).TXT")
    'robinson_crusoe-1919'
    >>> doc_id_for("../..")
    Traceback (most recent call last):
    ...
    kgcore.errors.InputError: name: '../..' has no letters or digits usable as a document id
    """
    base = re.split(r"[/\\]", str(name))[-1].strip().lstrip(".")
    base = re.sub(r"\.[A-Za-z0-9]{1,8}$", "", base)
    ascii_base = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9_-]+", "-", ascii_base)
    slug = re.sub(r"[-_]{2,}", lambda m: "_" if set(m.group()) == {"_"} else "-", slug).strip("-_")
    slug = slug[:MAX_DOC_ID_CHARS].rstrip("-_")
    if not slug:
        raise InputError("name", f"{name!r} has no letters or digits usable as a document id")
    return slug
