"""The Status page's builders: the health checks of ``python -m kgcore doctor`` as a table and a summary line.

Pure (no streamlit); every text is escaped, since details quote paths, URLs and server replies.

>>> from kgcore.api.health import Check
>>> checks = [Check("store", True, "data: 1 collections"), Check("chroma", False, "<b>down</b>", "start it")]
>>> summary(checks)
'1 of 2 checks failed: chroma'
>>> html = status_html(checks)
>>> "&lt;b&gt;down&lt;/b&gt;" in html and "<b>down</b>" not in html, html.count("<tr")
(True, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.api.health import Check

from .markup_html import esc

_OK = '<span style="background:#e3f9e5;color:#0e5814;border-radius:8px;padding:0 8px">ok</span>'
_FAIL = '<span style="background:#ffe3e3;color:#8a041a;border-radius:8px;padding:0 8px;font-weight:700">problem</span>'
_CELL = 'style="padding:4px 10px;vertical-align:top;border-bottom:1px solid #e4e7eb"'


def summary(checks: Sequence[Check]) -> str:
    """One line: all ok, or how many failed and which.

    >>> summary([Check("a", True, "")])
    'All 1 checks ok'
    """
    failed = [c.name for c in checks if not c.ok]
    if not failed:
        return f"All {len(checks)} checks ok"
    return f"{len(failed)} of {len(checks)} checks failed: {', '.join(failed)}"


def status_html(checks: Sequence[Check]) -> str:
    """A table: status, check, what was found, how to fix it (escaped)."""
    head = "".join(f"<th {_CELL}>{h}</th>" for h in ("status", "check", "found", "how to fix"))
    rows = [f"<tr>{head}</tr>"]
    for c in checks:
        fix = f"<code>{esc(c.fix)}</code>" if c.fix and not c.ok else ""
        cells = (_OK if c.ok else _FAIL, f"<b>{esc(c.name)}</b>", esc(c.detail), fix)
        rows.append('<tr class="kg-check">' + "".join(f"<td {_CELL}>{cell}</td>" for cell in cells) + "</tr>")
    return f'<table class="kg-status" style="border-collapse:collapse;width:100%">{"".join(rows)}</table>'
