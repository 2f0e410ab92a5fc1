"""QA sets: a CSV of questions with one or two reference answers and optional evidence.

Columns (header names are case-insensitive, a UTF-8 byte-order mark is
fine): ``question``, ``answer1``, optional ``answer2``, optional
``evidence`` (a substring of the document that answers the question, used
for the evidence hit rate).  Every problem is an :class:`InputError` naming
the file and, for a bad row, its row and line number and the field.

>>> items = parse_qa("question,answer1,answer2,evidence\\nWho?,Peter,Peter Rabbit,Peter ran\\n")
>>> items[0].answers, items[0].evidence, items[0].row
(('Peter', 'Peter Rabbit'), 'Peter ran', 1)
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from kgcore.core.errors import InputError
from kgcore.index.load import decode_text
from kgcore.query.engine import validate_question

MAX_QA_BYTES = 20 * 2**20
REQUIRED_COLUMNS = ("question", "answer1")
OPTIONAL_COLUMNS = ("answer2", "evidence")


@dataclass(frozen=True)
class QAItem:
    """One question with its reference answers (one or two) and optional evidence substring."""

    question: str
    answers: tuple[str, ...]
    evidence: str = ""
    row: int = 0


def parse_qa(data: bytes | str, name: str = "QA file") -> list[QAItem]:
    """Validate and read a QA CSV given as bytes or text; ``name`` is used in error messages.

    >>> [i.answers for i in parse_qa(b"\\xef\\xbb\\xbfQuestion,Answer1,ANSWER2\\nWho?,Peter,\\n")]
    [('Peter',)]
    >>> parse_qa("question,answer1\\nWho?,Peter\\n ,Flopsy\\n", "qa.csv")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: qa.csv, row 2 (line 3): field 'question' is empty
    """
    text = _decode(data, name)
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InputError(name, f"is not a valid CSV file ({exc})") from None
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise InputError(name, "is empty")
    header = [c.strip().lower() for c in rows[0]]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(name, f"missing column {', '.join(map(repr, missing))} (found {', '.join(header) or 'none'}; "
                               "expected question,answer1[,answer2][,evidence])")
    col = {c: header.index(c) for c in REQUIRED_COLUMNS + OPTIONAL_COLUMNS if c in header}
    items = [_qa_row(row, col, len(header), name, n) for n, row in enumerate(rows[1:], start=1)]
    if not items:
        raise InputError(name, "has a header but no questions")
    return items


def _decode(data: bytes | str, name: str) -> str:
    if isinstance(data, str):
        return data.lstrip("\ufeff")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with a byte order mark (Excel's "Unicode text")
        return decode_text(data, name)
    if b"\x00" in data[:8192]:
        raise InputError(name, "is not a CSV file (it contains binary data)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(name, "is not UTF-8 text (save the CSV as UTF-8)") from None


def _qa_row(row: list[str], col: dict[str, int], width: int, name: str, number: int) -> QAItem:
    where = f"{name}, row {number} (line {number + 1})"
    if len(row) > width:
        raise InputError(where, f"has {len(row)} fields but the header has {width} (quote fields that contain commas)")
    value = lambda c: row[col[c]].strip() if c in col and col[c] < len(row) else ""  # noqa: E731
    for field_name in REQUIRED_COLUMNS:
        if not value(field_name):
            raise InputError(where, f"field {field_name!r} is empty")
    answers = tuple(a for a in (value("answer1"), value("answer2")) if a)
    try:
        question = validate_question(value("question"))
    except InputError as exc:
        raise InputError(where, f"question: {exc.reason}") from None
    return QAItem(question, answers, value("evidence"), number)


def load_qa(path: str | Path) -> list[QAItem]:
    """Read and validate the QA CSV at ``path`` (see :func:`parse_qa`)."""
    file = Path(path)
    if file.is_dir():
        raise InputError(str(path), "is a directory, not a file")
    if not file.is_file():
        raise InputError(str(path), "file not found")
    if file.stat().st_size > MAX_QA_BYTES:
        raise InputError(str(path), f"is larger than {MAX_QA_BYTES // 2**20} MB")
    return parse_qa(file.read_bytes(), str(path))
