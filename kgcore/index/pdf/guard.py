"""What a PDF will cost, measured before its pages are read: page count and inflated page content, each bounded.

A PDF is small on disk and can be huge once read: a 650 kB file whose one
content stream inflates to 206 MB took PDFium 345 s and 2.7 GB to read one
sentence from; a 2.5 MB file of 20,002 empty pages ran for minutes.
:func:`check_pdf` refuses both in about a second, before PDFium reads a
page:

* the page count (``max_pdf_pages``) from the page tree;
* each page's content -- its content streams and the form XObjects it
  draws, the text PDFium must interpret -- inflated in chunks of
  :data:`CHUNK` bytes and counted, never kept, up to ``max_page_stream_mb``
  per page and ``max_pdf_stream_mb`` per file (zlib inflates at hundreds
  of MB a second, so a 300-page book costs a fraction of a second).

Images are not counted: PDFium's text layer never decodes them.  A file the
checker cannot parse is left to PDFium, whose reading is still bounded by
the document's wall time and text limits (:mod:`kgcore.core.limits`).

>>> bomb = zlib.compress(b" " * 50_000_000)         # 50 MB of spaces: 49 kB compressed
>>> inflated(bomb, ["/FlateDecode"], 100_000_000)
50000000
>>> inflated(bomb, ["/FlateDecode"], 2_000_000) > 2_000_000  # counting stops just past the budget
True
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.limits import limit_error, limit_variable, number

#: Bytes fed to (and taken from) the inflater at a time.
CHUNK = 1 << 20
MB = 1024 * 1024
_FLATE = ("/FlateDecode", "/Fl")
_OTHER_FILTERS = {"/LZWDecode": "LZWDecode", "/LZW": "LZWDecode", "/RunLengthDecode": "RunLengthDecode",
                  "/RL": "RunLengthDecode"}
_TEXT_FILTERS = {"/ASCIIHexDecode": "ASCIIHexDecode", "/AHx": "ASCIIHexDecode",
                 "/ASCII85Decode": "ASCII85Decode", "/A85": "ASCII85Decode"}


@dataclass(frozen=True)
class PdfLimits:
    """The bounds :func:`check_pdf` and the page reader apply (from :class:`~kgcore.core.settings.Settings`)."""

    #: Pages per PDF (``KGCORE_MAX_PDF_PAGES``).
    max_pages: int = 2000
    #: Inflated content bytes per page (``KGCORE_MAX_PAGE_STREAM_MB``).
    max_page_bytes: int = 32 * MB
    #: Inflated content bytes per file (``KGCORE_MAX_PDF_STREAM_MB``).
    max_bytes: int = 512 * MB
    #: Characters of text per document (``KGCORE_MAX_TEXT_CHARS``).
    max_chars: int = 20_000_000

    @classmethod
    def of(cls, settings: Any) -> PdfLimits:
        """The limits ``settings`` (a :class:`~kgcore.core.settings.Settings`) set."""
        return cls(settings.max_pdf_pages, settings.max_page_stream_mb * MB, settings.max_pdf_stream_mb * MB,
                   settings.max_text_chars)


#: The limits of :class:`~kgcore.core.settings.Settings`' defaults.
DEFAULT_LIMITS = PdfLimits()


def check_pages(count: int, filename: str, limits: PdfLimits) -> None:
    """Refuse more than ``limits.max_pages`` pages.

    >>> check_pages(20_002, "bomb.pdf", PdfLimits())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: bomb.pdf: 20,002 pages exceed the limit of 2,000 pages per PDF ...
    """
    if count > limits.max_pages:
        raise limit_error(filename, "max_pdf_pages", count, limits.max_pages)


def check_pdf(data: bytes, filename: str, limits: PdfLimits) -> None:
    """Refuse a PDF whose page content inflates past the limits (see the module docstring)."""
    reader = _reader(data)
    if reader is None:
        return
    total = 0
    for number_, page in enumerate(_pages(reader), start=1):
        left = min(limits.max_page_bytes, limits.max_bytes - total)
        size = page_content_bytes(page, left)
        if size > limits.max_page_bytes:
            raise _too_much(filename, f"page {number_}'s content", limits.max_page_bytes, "max_page_stream_mb")
        total += size
        if total > limits.max_bytes:
            raise _too_much(filename, f"the content of pages 1-{number_}", limits.max_bytes, "max_pdf_stream_mb")


def _too_much(filename: str, what: str, limit: int, name: str) -> InputError:
    return InputError(filename, f"{what} inflates to more than {number(limit // MB)} MB, the limit (a compression "
                                f"bomb; or raise it with the environment variable {limit_variable(name)})")


def _reader(data: bytes):
    """A pypdf reader of ``data`` (an empty password tried), or None when pypdf cannot parse it."""
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        return reader
    except Exception:  # noqa: BLE001 - pypdf raises many types on hostile input; PDFium judges the file next
        return None


def _pages(reader) -> Iterator[Any]:
    try:
        yield from reader.pages
    except Exception:  # noqa: BLE001 - a broken page tree: PDFium judges the rest
        return


def page_content_bytes(page, budget: int) -> int:
    """The inflated bytes of ``page``'s content streams and the forms it draws, counted up to ``budget`` + 1."""
    total = 0
    for stream in _content_streams(page):
        total += inflated(_raw(stream), _filters(stream), budget - total)
        if total > budget:
            break
    return total


def _content_streams(page) -> Iterator[Any]:
    """The page's content streams, then every form XObject reachable from its resources (each once)."""
    seen: set[int] = set()
    contents = _resolve(page.get("/Contents"))
    for item in contents if isinstance(contents, list) else [contents]:
        stream = _resolve(item)
        if stream is not None and hasattr(stream, "get_data"):
            yield stream
    todo = [_resolve(page.get("/Resources"))]
    while todo:
        resources = todo.pop()
        xobjects: Any = _resolve(resources.get("/XObject")) if hasattr(resources, "get") else None
        for value in (xobjects.values() if hasattr(xobjects, "values") else ()):
            form = _resolve(value)
            if form is None or id(form) in seen or not hasattr(form, "get") or form.get("/Subtype") != "/Form":
                continue
            seen.add(id(form))
            yield form
            todo.append(_resolve(form.get("/Resources")))


def _resolve(value):
    try:
        return value.get_object() if hasattr(value, "get_object") else value
    except Exception:  # noqa: BLE001 - a dangling reference draws nothing
        return None


def _raw(stream) -> bytes:
    return getattr(stream, "_data", b"") or b""


def _filters(stream) -> list[str]:
    value = _resolve(stream.get("/Filter"))
    if value is None:
        return []
    return [str(_resolve(v)) for v in value] if isinstance(value, list) else [str(value)]


def inflated(raw: bytes, filters: list[str], budget: int) -> int:
    """How many bytes ``raw`` decodes to through its first filters (ASCII encodings, then deflate, LZW or run
    length); deflate output is counted a chunk at a time, never kept, and counting stops once past ``budget``."""
    from pypdf import filters as pdf_filters

    while filters and filters[0] in _TEXT_FILTERS:  # ASCII encodings shrink: decoded in memory
        raw = getattr(pdf_filters, _TEXT_FILTERS[filters[0]]).decode(raw)
        filters = filters[1:]
    if not filters:
        return len(raw)
    if filters[0] in _FLATE:
        return _inflate_count(raw, budget)
    decoder = _OTHER_FILTERS.get(filters[0])
    if decoder is None:
        return len(raw)  # an image filter: PDFium's text layer never decodes it
    try:
        return len(getattr(pdf_filters, decoder).decode(raw))
    except Exception:  # noqa: BLE001 - undecodable: PDFium reads nothing from it either
        return len(raw)


def _inflate_count(raw: bytes, budget: int) -> int:
    inflater = zlib.decompressobj()
    total = 0
    for start in range(0, len(raw), CHUNK):
        pending = raw[start:start + CHUNK]
        while pending:
            try:
                out = inflater.decompress(pending, CHUNK)
            except zlib.error:
                return total  # a damaged stream ends here, as PDFium reads it
            total += len(out)
            if total > budget:
                return total
            pending = inflater.unconsumed_tail
        if inflater.eof:
            break
    while not inflater.eof and total <= budget:  # output still held back after the last input
        try:
            out = inflater.decompress(b"", CHUNK)
        except zlib.error:
            break
        if not out:
            break
        total += len(out)
    return total


def pdfium_module():
    """pypdfium2, once pdftext (which reads pages with it) is known to be installed."""
    try:
        import pdftext.extraction  # noqa: F401 - PDF ingestion needs both
        import pypdfium2 as pdfium
    except ImportError as exc:
        raise ModelUnavailableError("PDF ingestion needs pdftext: pip install 'pdftext>=0.6'") from exc
    return pdfium


def check_pages_readable(data: bytes, filename: str, limits: PdfLimits = DEFAULT_LIMITS) -> int:
    """The number of pages of the PDF in ``data``, after refusing one PDFium cannot open (malformed, encrypted,
    no pages) or one over the page limit; no page is read, so a batch checks every PDF before parsing any."""
    total = page_count(pdfium_module(), data, filename)
    check_pages(total, filename, limits)
    return total


def page_count(pdfium, data: bytes, filename: str) -> int:
    """The number of pages; an encrypted, malformed or empty PDF is an :class:`InputError` naming ``filename``."""
    try:
        document = pdfium.PdfDocument(data)
    except Exception as exc:  # noqa: BLE001 - PdfiumError and friends on hostile input
        if _no_pages(data):  # PDFium refuses an empty page tree, with whatever error its last call left
            raise InputError(filename, "PDF has no pages") from None
        if "password" in str(exc).lower() or "encrypt" in str(exc).lower():
            raise InputError(filename, "encrypted PDF (password protected); remove the password first") from None
        reason = str(exc).replace(" (PDFium: Success)", "").rstrip(".")
        raise InputError(filename, f"malformed or unreadable PDF ({reason})") from None
    try:
        count = len(document)
    finally:
        document.close()
    if not count:
        raise InputError(filename, "PDF has no pages")
    return count


def _no_pages(data: bytes) -> bool:
    """Whether pypdf reads ``data`` as a PDF with an empty page tree."""
    try:
        from pypdf import PdfReader

        return len(PdfReader(io.BytesIO(data), strict=False).pages) == 0
    except Exception:  # noqa: BLE001 - not even pypdf reads it: malformed
        return False
