"""PDFs set like old TeX papers, written by hand for the glyph tests: a Type 3 font without a text mapping.

Each glyph is a filled box drawn by its own procedure, named ``/gN`` for
code N, and no ``ToUnicode`` map says what a code means; PDFium then gives
each glyph its code, so ASCII codes read as letters and code 0x0C (the
``fi`` ligature of TeX's OT1 encoding) comes out raw, as in "modi\\x0ced".
Words are placed one by one, with no space glyph between them: how wide the
gap after a word is decides whether PDFium inserts a space itself.  A word
written with a trailing ``~`` is followed by the narrow ``glue`` gap, any
other by the normal ``gap`` (both in font sizes).
"""

from __future__ import annotations

ADVANCE = 500  # glyph width in 1/1000 of the font size: every glyph is half an em wide


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def type3_pdf(pages: list[list[list[str]]], size: float = 10.0, gap: float = 0.4, glue: float = 0.1,
              top: float = 750.0, unit: bool = False) -> bytes:
    """A PDF of ``pages``, each a list of lines, each a list of words (see the module docstring); a line may be
    ``(size, words)`` to set it in its own size.  ``unit``: the font is set at size 1 and scaled by the text
    matrix, as TeX's Type 3 fonts are, so PDFium reports every text's size as 1."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    codes = range(1, 127)
    procs = {c: add(_stream(b"%d 0 0 0 %d 700 d1 30 0 %d 700 re f" % (ADVANCE, ADVANCE, ADVANCE - 60)))
             for c in codes}
    font = add(b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.001 0 0 0.001 0 0] "
               b"/CharProcs << " + b" ".join(b"/g%d %d 0 R" % (c, n) for c, n in procs.items()) + b" >> "
               b"/Encoding << /Type /Encoding /Differences [1 " + b" ".join(b"/g%d" % c for c in codes) + b"] >> "
               b"/FirstChar 1 /LastChar 126 /Widths [" + b" ".join(b"%d" % ADVANCE for _ in codes) + b"] "
               b"/Resources << >> >>")
    pages_id = font + 2 * len(pages) + 1
    kids = []
    for lines in pages:
        content = add(_stream(_content(lines, size, gap, glue, top, unit)))
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)))
    add(b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) + b"] /Count %d >>" % len(kids))
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o
                                                                                 for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    return bytes(out)


def _content(lines: list, size: float, gap: float, glue: float, top: float, unit: bool) -> bytes:
    ops = [b"BT"]
    y = top
    for line in lines:
        line_size, words = line if isinstance(line, tuple) else (size, line)
        ops.append(b"/F1 %.1f Tf" % (1.0 if unit else line_size))
        scale = line_size if unit else 1.0
        x = 72.0
        for word in words:
            glued = word.endswith("~")
            word = word.rstrip("~")
            text = word.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
            ops.append(b"%.2f 0 0 %.2f %.2f %.2f Tm (%s) Tj" % (scale, scale, x, y, text))
            x += len(word) * ADVANCE / 1000 * line_size + (glue if glued else gap) * line_size
        y -= line_size * 1.4
    ops.append(b"ET")
    return b"\n".join(ops)
