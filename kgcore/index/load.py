"""Loading documents: checks, decoding and the document id.

    file -> checks (extension, size, binary) -> decode (text or PDF text layer)
         -> :func:`kgcore.index.clean.clean_text` (text) or :func:`kgcore.index.pdf.read_pdf` (PDF)
         -> :class:`~kgcore.core.document.Document`

Every refusal is an :class:`~kgcore.core.errors.InputError` naming the file and
the reason, raised before any expensive work (the size check uses ``stat``).
Splitting into sentences is :mod:`kgcore.index.sentences`.

>>> doc = load_text("Peter ran\\nhome.\\n\\n[Illustration]\\n\\nHe slept.", "Peter.txt")
>>> doc.name, [p.text for p in doc.paragraphs]
('peter', ['Peter ran home.', 'He slept.'])
>>> doc_id_for("../../etc/Peter Rabbit.txt")
'peter-rabbit'
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import charset_normalizer
from anyascii import anyascii

from kgcore.core.document import Document, IngestReport, Paragraph, Reference
from kgcore.core.errors import InputError
from kgcore.core.limits import PROTECTS, limit_variable
from kgcore.core.settings import Settings
from kgcore.index.clean import clean_text
from kgcore.index.pdf import read_pdf
from kgcore.index.pdf.guard import PdfLimits, check_pages_readable

TEXT_EXTENSIONS = (".txt", ".md", ".markdown")
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS + (".pdf",)
MARKDOWN_EXTENSIONS = (".md", ".markdown")
MAX_DOC_ID_CHARS = 64
#: Raised whenever the sentences a file yields change (PDF layout, splitting rules): the same bytes indexed
#: by an older reading are read again instead of reused.  2: inline mathematics rejoined.  3: a table of
#: contents after a prose-like transcriber's note is front matter (The Phantom of the Opera).  4: a line in capitals
#: that opens with a quotation mark (a shout) or ends with a colon (a letter's salutation) is body, not a heading; a
#: "Chapter XVI ..." line of up to 24 words that ends without punctuation is a heading.  5: PDF word gaps and
#: ligatures from glyph positions, no sentence opening with a citation marker, reference styles, titles by height.
#: 6: a title-sized front block cut before an affiliation line or a lone "Abstract"; runs of more than 200
#: characters without a space dropped from texts.
READER_VERSION = 6
PARAGRAPH_SEPARATOR = "\n\n"
_BINARY_CONTROL_SHARE = 0.10
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def load_document(path: str | Path, settings: Settings | None = None, name: str | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Document:
    """Load a .txt/.md/.markdown/.pdf file as a cleaned :class:`Document`.

    Checks run cheapest first: extension, existence, size (``stat`` only),
    then content.  ``name`` overrides the document id source (default: the
    file name).

    >>> load_document("notes.exe")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: notes.exe: unsupported extension '.exe' (supported: .txt, .md, .markdown, .pdf)
    """
    path = Path(path)
    settings = settings or Settings.from_env()
    check_file(path, settings)
    document = load_bytes(path.read_bytes(), path.name, settings, name=name, progress=progress)
    return dataclasses.replace(document, source_path=str(path))


def load_bytes(data: bytes, filename: str, settings: Settings | None = None, name: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> Document:
    """Load the raw bytes of a file called ``filename`` (e.g. an upload); ``progress(pages done, pages)``
    while a PDF's pages are read.

    >>> load_bytes("Caf\\u00e9 \\u201cnoir\\u201d.".encode("cp1252"), "menu.txt").text
    'Café “noir”.'
    >>> load_bytes(b"", "empty.txt")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: empty.txt: empty file (0 bytes)
    """
    settings = settings or Settings.from_env()
    filename = Path(filename.replace("\\", "/")).name or filename
    extension = _check_extension(filename)
    _check_size(filename, len(data), settings.max_file_mb)
    if not data:
        raise InputError(filename, "empty file (0 bytes)")
    sha = hashlib.sha256(data).hexdigest()
    if extension == ".pdf":
        pdf = read_pdf(data, filename, progress, PdfLimits.of(settings))
        return assemble(doc_id_for(name or filename), pdf.paragraphs, sha, filename, pdf.references, pdf.report)
    text = decode_text(data, filename)
    settings.check_limit(filename, "max_text_chars", len(text))
    text, runs = drop_runs(text)
    paragraphs, dropped = clean_text(text, markdown=extension in MARKDOWN_EXTENSIONS)
    return assemble(doc_id_for(name or filename), paragraphs, sha, filename,
                    report=IngestReport(boilerplate_words=dropped, warnings=runs_warning(runs)))


def load_text(text: str, name: str) -> Document:
    """Build a :class:`Document` from in-memory text, cleaned like a file.

    ``name`` gives the document id; a ``.md``/``.markdown`` name strips
    markdown.  ``source_sha256`` hashes the UTF-8 encoded text.

    >>> doc = load_text("# Title\\n\\nSome *bold* [link](http://x.org).", "a.md")
    >>> [(p.text, p.kind, p.start) for p in doc.paragraphs]
    [('Title', 'heading', 0), ('Some bold link.', 'body', 7)]
    >>> load_text("   \\n\\t", "blank.txt")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: blank.txt: empty document: no text left after removing whitespace and boilerplate
    """
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    text, runs = drop_runs(text)
    paragraphs, dropped = clean_text(text, markdown=Path(name).suffix.lower() in MARKDOWN_EXTENSIONS)
    return assemble(doc_id_for(name), paragraphs, sha, name,
                    report=IngestReport(boilerplate_words=dropped, warnings=runs_warning(runs)))


#: A run of more characters than this without a space, all of them ASCII, is no word (encoded data: a base64
#: image, a hash, a long address, a minified line); it is dropped before cleaning, so that it never becomes a
#: sentence, a graph node or an answer.  Scripts written without spaces (Chinese, Japanese, Thai) are not ASCII.
MAX_RUN_CHARS = 200
_RUN = re.compile(rf"[!-~]{{{MAX_RUN_CHARS + 1},}}")


def drop_runs(text: str) -> tuple[str, list[int]]:
    """``text`` without its runs of more than :data:`MAX_RUN_CHARS` ASCII characters without a space, and their
    lengths.

    >>> drop_runs("A picture: " + "iVBORw0K" * 40 + " and a caption.")
    ('A picture:  and a caption.', [320])
    >>> drop_runs("从前有座山。" * 50)[1]  # prose written without spaces is kept
    []
    """
    runs = [len(m.group()) for m in _RUN.finditer(text)]
    return (_RUN.sub("", text), runs) if runs else (text, runs)


def runs_warning(runs: list[int]) -> tuple[str, ...]:
    """The ingestion report's warning for the runs :func:`drop_runs` took out (none when it took none)."""
    if not runs:
        return ()
    return (f"dropped {len(runs):,} run(s) of more than {MAX_RUN_CHARS} characters without a space "
            f"({sum(runs):,} characters: encoded data, not words)",)


def assemble(doc_id: str, paragraphs: list[Paragraph], sha256: str, source_name: str,
             references: Sequence[Reference] = (), report: IngestReport | None = None) -> Document:
    """The document whose text is the paragraphs joined by blank lines, each paragraph knowing its offset.

    ``report`` (what reading a PDF found) is completed with the words and paragraphs per role; sources
    without one get a report of their own.

    >>> doc = assemble("d", [Paragraph("A b."), Paragraph("C d.")], "", "d.txt")
    >>> doc.text, [p.start for p in doc.paragraphs]
    ('A b.\\n\\nC d.', [0, 6])
    """
    if not paragraphs:
        raise InputError(source_name, "empty document: no text left after removing whitespace and boilerplate")
    placed, offset = [], 0
    for paragraph in paragraphs:
        placed.append(dataclasses.replace(paragraph, start=offset))
        offset += len(paragraph.text) + len(PARAGRAPH_SEPARATOR)
    text = PARAGRAPH_SEPARATOR.join(p.text for p in paragraphs)
    report = dataclasses.replace(report or IngestReport(), words=len(text.split()),
                                 roles=dict(Counter(p.kind for p in paragraphs)))
    return Document(doc_id, text, tuple(placed), "", sha256, Path(source_name.replace("\\", "/")).name,
                    tuple(references), report)


def decode_text(data: bytes, filename: str) -> str:
    """Decode text bytes: refuse binary, then try UTF-8 (BOM or not), cp1252, latin-1.

    >>> decode_text("\\ufeffna\\u00efve".encode("utf-8"), "a.txt")
    'naïve'
    >>> decode_text(b"\\x93quoted\\x94 \\x80 5", "a.txt")
    '“quoted” € 5'
    >>> decode_text(b"ab\\x00cd", "a.txt")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: a.txt: binary file (contains NUL bytes), not text
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


def check_file(path: Path, settings: Settings) -> None:
    """Refuse a path that is no file to index, before reading it: a symbolic link (its target may be anything
    on the machine, copied into a shared store), a directory, an unsupported extension, missing, not a regular
    file, or over the size limit (``stat`` only).

    >>> check_file(Path("/tmp"), Settings())
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: tmp: is a directory, not a file: /tmp
    """
    name = path.name or str(path)
    if path.is_symlink():
        raise InputError(name, f"is a symbolic link (to {os.readlink(path)}), not a file; index the file it "
                               "points to by its own path")
    if path.is_dir():
        raise InputError(name, f"is a directory, not a file: {path}")
    _check_extension(name)
    if not path.exists():
        raise InputError(name, f"file not found: {path}")
    if not path.is_file():
        raise InputError(name, f"not a regular file: {path}")
    _check_size(name, path.stat().st_size, settings.max_file_mb)


def check_readable(data: bytes, filename: str, settings: Settings) -> None:
    """Refuse bytes that cannot become a document, with the checks that need no parsing: the extension, empty,
    the size, text that is binary or over the character limit, a PDF that PDFium cannot open or that has too many
    pages.  A batch runs it on every file before the first is parsed, so a bad file is refused in its first
    second, not after the others' work.

    >>> check_readable(b"Peter ran home.", "peter.txt", Settings())
    >>> check_readable(b"\\x89PNG\\x00\\x00", "picture.txt", Settings())
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: picture.txt: binary file (contains NUL bytes), not text
    >>> check_readable(b"%PDF-1.7 cut", "paper.pdf", Settings())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: paper.pdf: malformed or unreadable PDF ...
    """
    check_name(filename, len(data), settings)
    if Path(filename).suffix.lower() == ".pdf":
        check_pages_readable(data, filename, PdfLimits.of(settings))
    else:
        text = decode_text(data, filename)
        settings.check_limit(filename, "max_text_chars", len(text))
        if not any(ch.isalnum() for ch in drop_runs(text)[0]):
            raise InputError(filename, f"no words: all its text is in runs of more than {MAX_RUN_CHARS} ASCII "
                                       "characters without a space (encoded data?)")
        if (stops := len(_SENTENCE_STOP.findall(text))) > SURE_SENTENCES * settings.max_sentences:
            settings.check_limit(filename, "max_sentences", stops)  # surely over: say so now, not after splitting


#: A text whose sentence stops outnumber the sentence limit by this factor is over it whatever the splitter makes
#: of abbreviations ("Mr." and "e.g." are stops too): refused while planning, before the minutes of splitting.
SURE_SENTENCES = 2
_SENTENCE_STOP = re.compile(r"[.!?](?=\s)")


def check_name(filename: str, size: int, settings: Settings) -> None:
    """Refuse an upload by its name and size alone: an unsupported extension, empty, or over the size limit.

    >>> check_name("notes.exe", 10, Settings())
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: notes.exe: unsupported extension '.exe' (supported: .txt, .md, .markdown, .pdf)
    """
    _check_extension(filename)
    if size == 0:
        raise InputError(filename, "empty file (0 bytes)")
    _check_size(filename, size, settings.max_file_mb)


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
            f"file too large: {size / (1024 * 1024):.1f} MB exceeds the limit of {max_mb:g} MB per file "
            f"(raise it with the environment variable {limit_variable('max_file_mb')}); "
            f"it protects {PROTECTS['max_file_mb']}",
        )


def _check_not_binary(data: bytes, filename: str) -> None:
    """Refuse bytes that are no text: NUL bytes, many control bytes, or neither UTF-8 nor anything a text
    encoding detector (charset-normalizer) reads as language.

    >>> import random
    >>> rng = random.Random(1)
    >>> noise = bytes(rng.randrange(0x20, 0x100) for _ in range(20_000))  # printable bytes, no NUL
    >>> _check_not_binary(noise, "noise.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: noise.txt: binary file (not UTF-8, and no text encoding reads it as text...
    >>> _check_not_binary("Café “noir”, très bien.".encode("cp1252") * 40, "menu.txt")
    """
    if b"\x00" in data:
        raise InputError(filename, "binary file (contains NUL bytes), not text")
    sample = data[:65536]
    controls = sum(1 for byte in sample if byte < 32 and byte not in b"\t\n\r\f\v\x1a" or byte == 127)
    if controls > _BINARY_CONTROL_SHARE * len(sample):
        raise InputError(filename, f"binary file ({controls} control bytes in the first {len(sample)}), not text")
    if not _utf8(sample) and not _reads_as_text(sample):
        raise InputError(filename, f"binary file (not UTF-8, and no text encoding reads it as text: "
                                   f"{sum(b >= 0x80 for b in sample) / len(sample):.0%} of its first "
                                   f"{len(sample):,} bytes are outside ASCII), not text")


def _utf8(sample: bytes) -> bool:
    """Whether ``sample`` (the start of a file, perhaps cut inside a character) is UTF-8."""
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data"
    return True


def _reads_as_text(sample: bytes) -> bool:
    """Whether charset-normalizer finds an encoding that reads ``sample`` as text (it finds none in noise)."""
    return charset_normalizer.from_bytes(sample).best() is not None


def legacy_doc_id(name: str) -> str:
    """The id kgcore gave a file name before ids were transliterated (what NFKD leaves in ASCII: "Straße" was
    "strae", "Łódź" "odz"), "" when it gave none: a collection indexed then keeps its documents under these.

    >>> legacy_doc_id("Straße.txt"), legacy_doc_id("書.txt"), legacy_doc_id("plain.txt")
    ('strae', '', 'plain')
    """
    base = _base_name(name)
    return _slug(unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii").lower())


def _base_name(name: str) -> str:
    """A file name's base without its folders, leading dots and extension."""
    return re.sub(r"\.[A-Za-z0-9]{1,8}$", "", re.split(r"[/\\]", str(name))[-1].strip().lstrip("."))


def _slug(ascii_base: str) -> str:
    """``ascii_base`` (lower case) with everything outside ``[a-z0-9_-]`` one ``-``, repeats collapsed, cut to
    :data:`MAX_DOC_ID_CHARS` ("" when nothing is left)."""
    slug = re.sub(r"[-_]{2,}", lambda m: "_" if set(m.group()) == {"_"} else "-",
                  re.sub(r"[^a-z0-9_-]+", "-", ascii_base)).strip("-_")
    return slug[:MAX_DOC_ID_CHARS].rstrip("-_")


def doc_id_for(name: str) -> str:
    """A safe document id (usable as a folder name) from a file name.

    Keeps the base name only, drops the extension, writes its letters and digits in ASCII (anyascii's
    transliteration: a name in any script keeps a readable id), lowercases, maps everything outside
    ``[a-z0-9_-]`` to ``-`` and collapses repeats.

    >>> doc_id_for("C:\\\\books\\\\Robinson_Crusoe (1919).TXT")
    'robinson_crusoe-1919'
    >>> doc_id_for("Ørsted & Müller.pdf"), doc_id_for("書.txt"), doc_id_for("Достоевский.txt")
    ('orsted-muller', 'shu', 'dostoevskiy')
    >>> doc_id_for("हिन्दी.txt")
    'hindi'
    >>> doc_id_for("../..")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: name: '../..' has no letters or digits usable as a document id
    """
    letters = "".join(c if c.isalnum() or c in "_-" or unicodedata.category(c).startswith("M") else " "
                      for c in unicodedata.normalize("NFC", _base_name(name)))  # a vowel sign is part of its word
    slug = _slug(anyascii(letters).lower())  # letters and digits only: a symbol is no name ("☃" is not "snowman")
    if not slug:
        raise InputError("name", f"{name!r} has no letters or digits usable as a document id")
    return slug
