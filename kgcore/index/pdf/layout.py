"""Reading order and running headers: the blocks of a page in the order a reader follows them.

Columns are found from the blocks' horizontal positions: a block left of
the page's middle is in the left column, right of it in the right column,
and a block across the middle (a title, a full-width figure or table)
interrupts both columns.  Between two such full-width blocks the left
column is read top to bottom, then the right one, so a heading in the
middle of a column and a figure between paragraphs land where a reader
meets them.  Running headers, footers and page numbers are the lines that
repeat near the top or bottom edge of many pages (digits ignored), plus
bare page numbers and text printed sideways in the margin.

>>> from kgcore.index.pdf.extract import Block, Line
>>> def block(text, x0, y0, x1):
...     return Block(1, (Line(text, (x0, y0, x1, y0 + 10), 10.0, False),), (x0, y0, x1, y0 + 10))
>>> page = [block("right top", 310, 100, 520), block("left bottom", 70, 400, 290), block("title", 100, 50, 500),
...         block("left top", 70, 100, 290)]
>>> [b.lines[0].text for b in reading_order(page, 600)]
['title', 'left top', 'left bottom', 'right top']
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from kgcore.index.pdf.extract import Block, Line, Page

#: Share of the page height at the top and at the bottom where running headers and footers live.
EDGE_SHARE = 0.11
#: A line repeating at an edge on at least this share of the pages (and on two) is a header or footer.
REPEAT_SHARE = 0.3
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE)


def reading_order(blocks: Sequence[Block], width: float) -> list[Block]:
    """``blocks`` of one page in reading order (see the module docstring)."""
    middle = width / 2
    ordered: list[Block] = []
    left: list[Block] = []
    right: list[Block] = []

    def flush() -> None:
        ordered.extend(sorted(left, key=lambda b: b.box[1]))
        ordered.extend(sorted(right, key=lambda b: b.box[1]))
        left.clear()
        right.clear()

    for block in sorted(blocks, key=lambda b: (b.box[1], b.box[0])):
        x0, _, x1, _ = block.box
        if x0 < middle - 0.05 * width and x1 > middle + 0.05 * width:
            flush()
            ordered.append(block)
        elif (x0 + x1) / 2 < middle:
            left.append(block)
        else:
            right.append(block)
    flush()
    return ordered


def _key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def running_lines(pages: Sequence[Page]) -> set[tuple[int, str]]:
    """(page, text) of every running header, footer and page number, and of sideways margin text."""
    seen: dict[str, set[int]] = defaultdict(set)
    at_edge: list[tuple[int, Line]] = []
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                if _at_edge(line, page.height):
                    seen[_key(line.text)].add(page.number)
                    at_edge.append((page.number, line))
    needed = max(2, int(REPEAT_SHARE * len(pages)))
    found = set()
    for number, line in at_edge:
        if len(seen[_key(line.text)]) >= needed or _PAGE_NUMBER.match(line.text.strip()):
            found.add((number, line.text))
    for page in pages:
        found.update((page.number, line.text) for block in page.blocks for line in block.lines if _sideways(line))
    return found


def _at_edge(line: Line, height: float) -> bool:
    return height > 0 and (line.box[3] < EDGE_SHARE * height or line.box[1] > (1 - EDGE_SHARE) * height)


def _sideways(line: Line) -> bool:
    """Text printed up the margin (an arXiv stamp): a tall, narrow box."""
    x0, y0, x1, y1 = line.box
    return (y1 - y0) > 4 * max(x1 - x0, 1) and (y1 - y0) > 60
