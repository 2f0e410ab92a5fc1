"""Names that say nothing about a topic: pronouns, numbers, section labels, placeholders and generic nouns.

On papers the entities most often linked to everything were "we", "2", "5.2", "example", "bug", "section number":
listed as an entity's neighbours or as a community's members they hide the ones that matter.  A name is junk when
it is a pronoun, has no letter beyond digits and signs ("5.2", "§ 3", "2020).4"), is a number with a letter
("4b", "a.1", "10k"), a lone letter or initial ("O", "k"), a section, figure or table label ("Appendix D",
"Figures 4a"), notation or code ("ℎ|", "dict{", "output yˆ.", "γk", an e-mail address), a lower-case
abbreviation ("w.r.t", "e.g."), a quantity (a number then a word or two: "100 GB", "150k instances", "five
days"), a date ("December 2016"), a word with a footnote mark ("6We", "proceedings.6"), or is in
:data:`GENERIC_NOUNS` or :data:`ADJECTIVES`.  An entity's neighbours also leave out common nouns found in
nearly every document (their inverse document frequency: :mod:`~kgcore.index.views.entities.neighbours`); a
community is listed only when its central members are mostly not junk (:mod:`~kgcore.index.views.communities.listed`).

>>> [is_junk_label(n) for n in ("we", "2", "5.2", "§ 3.1", "a.1", "O", "Appendix D", "section number", "foo")]
[True, True, True, True, True, True, True, True, True]
>>> [is_junk_label(n) for n in ("ℎ|", "dict{", "output yˆ.", "γk", "θ′", "jo@acm.org", "w.r.t", "e.g.")]
[True, True, True, True, True, True, True, True]
>>> [is_junk_label(n) for n in ("100 GB", "150k instances", "12.5 % gain", "five days", "6We", "able", "useful")]
[True, True, True, True, True, True, True]
>>> [is_junk_label(n) for n in ("December 2016", "proceedings.6", "Llama-2.7", "GPT-3.5", "v2.1")]
[True, True, False, False, True]
>>> [is_junk_label(n) for n in ("Paxos", "lock service", "T5", "GPT-4", "F1", "k-means", "Self-RAG")]
[False, False, False, False, False, False, False]
>>> [is_junk_label(n) for n in ("β-VAE", "C++", "R&D", "U.S. Navy", "α-helix", "2-hop reasoning", "3B")]
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
    "help, end, top, use, fact, addition, advantage, aspect, capability, comparison, instance, subset, stage, "
    "technique, account, field, pattern, setting, year, course, factor, principle, purpose, role, goal, type, form, "
    "level, amount, degree, variety, range, manner, well, lack, need, ability, possibility, observation, "
    "consideration, respect, regard, sort, practice").split(","))
#: Adjectives a parser leaves as a role's filler ("Dapper is able to ...", "... is useful"): never a topic.
ADJECTIVES = frozenset(n.strip() for n in (
    "able, unable, useful, sufficient, different, similar, large, small, high, low, good, better, best, new, same, "
    "possible, important, available, effective, necessary, relevant, various, several, many, much, more, most, such, "
    "certain, particular, specific, general, common, additional, previous, following, former, latter, due, non, "
    "factual, difficult, easy, hard, simple, significant, likely, true, false, whole, entire").split(","))
_NUMBER = r"(?:\d[\d.,]*(?:[-–]\d[\d.,]*)?(?:[kKmMbBx%]|st|nd|rd|th)?|one|two|three|four|five|six|seven|eight|" \
          r"nine|ten|twelve|twenty|fifty|hundred|hundreds|thousand|thousands|million|millions|billion|billions)"
#: A number then one or two words: a quantity ("100 GB", "150k instances", "12.5 % gain", "five days"); not
#: a name that starts with a number ("20 Newsgroups").
_QUANTITY = re.compile(rf"^(?i:{_NUMBER})(?:\s+(?i:{_NUMBER}|%))?(?:\s+(?![A-Z][a-z]{{2,}})[^\s\d]\S*){{1,2}}$")
#: A footnote or reference mark glued to the next word ("6We", "1The").
_MARKED = re.compile(r"^\d+([A-Za-z]+)$")
#: A footnote mark glued after a word ("proceedings.6", "embeddings.8").
_MARKED_AFTER = re.compile(r"^[A-Za-z][a-z-]+\.\d{1,2}$")
#: A date: a month and a year ("December 2016", "Oct. 2023").
_DATE = re.compile(r"^(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
                   r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{4}$")
_NO_WORD = re.compile(r"^[\W\d_§]*$")
#: A number with a letter before or after it: "4b", "a.1", "c.3", "10k", "2020).4" (not "T5": a capital).
_NUMBERED = re.compile(r"^(?:[a-z][.)]?)?\d[\d.,:/)(\-]*[a-z]?$")
#: A lone letter or initial ("O", "k", "J.").
_LETTER = re.compile(r"^\w\.?$")
#: A section, figure, table or equation label ("Appendix D", "Figures 4a", "Sec. 3.2", "Table 2").
_LABEL_ID = r"(?:\d[\w.]{0,5}|[A-Z][.\d]{0,4}[a-z]?|[IVXivx]{1,4})"  # "3.2", "4a", "D", "B.1", "iv": never a word
#: Notation, markup or code: braces, brackets, pipes, comparison signs, carets and modifier letters, backslashes,
#: mathematical letters ("ℎ", "𝑥"), an e-mail address.
_NOTATION = re.compile(r"[{}\[\]|<>=^\\\u02b0-\u02ff\u210e\u2113\u2115\u211d\u2124\U0001d400-\U0001d7ff]"
                       r"|[\w.+-]@[\w-]+\.[A-Za-z]{2,}")  # an address, not "Recall@10"
#: A Greek letter with at most a short index or prime ("γ", "γk", "θ′"): a symbol, not a name.
_SYMBOL = re.compile(r"^[\u0370-\u03ff][\w′'*]{0,2}$")
#: A lower-case abbreviation of two or three letters with dots ("w.r.t", "e.g.", "i.e.").
_ABBREVIATION = re.compile(r"^(?:[a-z]\.){1,3}[a-z]?\.?$")
_LABEL = re.compile(r"^(?i:section|sec|subsection|appendix|chapter|figure|fig|table|tab|eq|equation|algorithm|"
                    rf"line|page|step)s?\.?\s+{_LABEL_ID}(?:(?:\s*,\s*|\s+(?:and|&)\s+){_LABEL_ID})*$")


def is_junk_label(name: str) -> bool:
    """Whether ``name`` says nothing about a topic (see the module docstring)."""
    text = " ".join(name.split())
    lower = text.lower()
    if not text or is_pronoun_label(text) or _NO_WORD.match(text) or lower in GENERIC_NOUNS or lower in ADJECTIVES:
        return True
    marked = _MARKED.match(text)
    if marked and (is_pronoun_label(marked.group(1)) or marked.group(1).lower() in {"the", "a", "an", "this"}):
        return True
    if _QUANTITY.match(text) or _MARKED_AFTER.match(text) or _DATE.match(text):
        return True
    return bool(_NUMBERED.match(text) or _LETTER.match(text) or _LABEL.match(text) or _NOTATION.search(text)
                or _SYMBOL.match(text) or _ABBREVIATION.match(text))
