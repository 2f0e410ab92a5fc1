"""In-text citation markers resolved to reference entries: "[12]", "[3, 7–9]", "(Lewis et al., 2020)",
"Lewis et al. (2020)", "Lewis et al. [3]", "(Karpukhin et al., 2020; Guu et al., 2020a)".

>>> from kgcore.index.pdf.references import parse_entries
>>> refs = parse_entries(["[3] Patrick Lewis and Ethan Perez. RAG. In NeurIPS, 2020.",
...                       "[7] Kelvin Guu, Kenton Lee. REALM. In ICML, 2020.",
...                       "[8] Vladimir Karpukhin and Barlas Oguz. DPR. In EMNLP, 2020."])
>>> resolve("Retrievers [3, 7-8] help.", refs)
('ref-3', 'ref-7', 'ref-8')
>>> resolve("As shown by Lewis et al. (2020) and (Guu et al., 2020).", refs)
('ref-3', 'ref-7')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgcore.core.document import Reference

_NUMERIC = re.compile(r"\[(\s*\d{1,4}(?:\s*[,;–—-]\s*\d{1,4})*\s*)\]")
_AUTHOR_YEAR = re.compile(
    r"([A-Z][A-Za-zÀ-ÿ'’-]+)(?:\s+(?:et al\.?|and|&)(?:\s+[A-Z][A-Za-zÀ-ÿ'’-]+)?)?,?\s*\(?((?:19|20)\d{2})([a-z]?)\)?")
_PARENS = re.compile(r"\(([^()]*?(?:19|20)\d{2}[a-z]?[^()]*)\)")


def markers(text: str) -> list[str]:
    """The citation markers written in ``text``, in order.

    >>> markers("BM25 [12] and DPR (Karpukhin et al., 2020) but not (2020) alone.")
    ['[12]', '(Karpukhin et al., 2020)']
    """
    found = [m.group() for m in _NUMERIC.finditer(text)]
    found += [m.group() for m in _PARENS.finditer(text) if re.search(r"[A-Z][a-z]", m.group(1))]
    found += [m.group() for m in re.finditer(r"[A-Z][A-Za-z'’-]+ et al\.\s*\((?:19|20)\d{2}[a-z]?\)", text)]
    return sorted(dict.fromkeys(found), key=text.find)


def resolve(text: str, references: Sequence[Reference]) -> tuple[str, ...]:
    """Keys of the entries the markers in ``text`` cite (numbers by label, author-year by surname and year)."""
    by_label = {r.label: r.key for r in references if r.label}
    by_author: dict[tuple[str, str], str] = {}
    for r in references:
        by_author.setdefault((r.first_author.lower(), r.year), r.key)
    keys: list[str] = []
    for m in _NUMERIC.finditer(text):
        keys += [by_label[n] for n in _numbers(m.group(1)) if n in by_label]
    for found in _AUTHOR_YEAR.finditer(text):
        key = by_author.get((found.group(1).lower(), found.group(2)))
        if key:
            keys.append(key)
    return tuple(dict.fromkeys(keys))


def _numbers(spec: str) -> list[str]:
    """ "3, 7-9" -> 3, 7, 8, 9 (a range of at most 50)."""
    out: list[str] = []
    for piece in re.split(r"[,;]", spec):
        ends = [p.strip() for p in re.split(r"[–—-]", piece) if p.strip().isdigit()]
        if len(ends) == 2 and 0 <= int(ends[1]) - int(ends[0]) <= 50:
            out += [str(n) for n in range(int(ends[0]), int(ends[1]) + 1)]
        else:
            out += ends
    return out
