"""Names that say nothing about a topic: pronouns, numbers, section labels, placeholders and generic nouns.

On papers the entities most often linked to everything were "we", "2", "5.2", "example", "bug", "section number":
listed as an entity's neighbours or as a community's members they hide the ones that matter.  A name is junk when
it is a pronoun, has no letter beyond digits and signs ("5.2", "§ 3", "2020).4"), is a number with a letter
("4b", "a.1", "10k"), a lone letter or initial ("O", "k"), a section, figure or table label ("Appendix D",
"Figures 4a"), or is in :data:`GENERIC_NOUNS`.  The Entity page also leaves out common nouns found in nearly every
document (their inverse document frequency); a community is listed only when its central members are mostly not
junk (:mod:`~kgcore.index.views.communities.listed`).

>>> [is_junk_label(n) for n in ("we", "2", "5.2", "§ 3.1", "a.1", "O", "Appendix D", "section number", "foo")]
[True, True, True, True, True, True, True, True, True]
>>> [is_junk_label(n) for n in ("Paxos", "lock service", "T5", "GPT-4", "F1", "k-means", "Self-RAG")]
[False, False, False, False, False, False, False]
"""

from __future__ import annotations

import re

from kgcore.core.graph import is_pronoun_label

#: Nouns too general to say anything about a topic (a stop list; the Entity page's inverse document frequency
#: catches the rest), and placeholders.
GENERIC_NOUNS = frozenset(n.strip() for n in (
    "example, examples, bug, bugs, attempt, attempts, way, ways, thing, things, part, parts, case, cases, number, "
    "numbers, result, results, work, paper, papers, section, sections, table, tables, figure, figures, time, times, "
    "kind, kinds, lot, set, sets, system builder, system builders, approach, approaches, method, methods, problem, "
    "problems, issue, issues, step, steps, other, others, one, ones, section number, subsection, appendix, "
    "mechanism, mechanisms, et al, al, inter alia, foo, bar, baz, contribution, contributions, detail, details, "
    "help, end, top, use, fact").split(","))
_NO_WORD = re.compile(r"^[\W\d_§]*$")
#: A number with a letter before or after it: "4b", "a.1", "c.3", "10k", "2020).4" (not "T5": a capital).
_NUMBERED = re.compile(r"^(?:[a-z][.)]?)?\d[\d.,:/)(\-]*[a-z]?$")
#: A lone letter or initial ("O", "k", "J.").
_LETTER = re.compile(r"^\w\.?$")
#: A section, figure, table or equation label ("Appendix D", "Figures 4a", "Sec. 3.2", "Table 2").
_LABEL_ID = r"(?:\d[\w.]{0,5}|[A-Z][.\d]{0,4}[a-z]?|[IVXivx]{1,4})"  # "3.2", "4a", "D", "B.1", "iv": never a word
_LABEL = re.compile(r"^(?i:section|sec|subsection|appendix|chapter|figure|fig|table|tab|eq|equation|algorithm|"
                    rf"line|page|step)s?\.?\s+{_LABEL_ID}(?:(?:\s*,\s*|\s+(?:and|&)\s+){_LABEL_ID})*$")


def is_junk_label(name: str) -> bool:
    """Whether ``name`` says nothing about a topic (see the module docstring)."""
    text = " ".join(name.split())
    if not text or is_pronoun_label(text) or _NO_WORD.match(text) or text.lower() in GENERIC_NOUNS:
        return True
    return bool(_NUMBERED.match(text) or _LETTER.match(text) or _LABEL.match(text))
