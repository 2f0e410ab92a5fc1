"""Who wrote the document: a question about a paper's or a book's authors is answered by its author lines.

"Who wrote the paper?" shares no word with "Helen Marsh, University of St Andrews", and a ranking of body text never
reaches a title page, which retrieval leaves out (:data:`~kgcore.core.roles.OPT_IN`): the offline pick quoted "The
gauge at Anstruther was installed in 1988 by the Fife Harbour Trust" and called Anstruther a person.  A question
that asks only who wrote the document(s) (:func:`asks_authors`) gets the author lines of the documents asked
about added to its context (:func:`author_rows`: the lines a paper's layout reads as its authors, or a book's
"by ..." line), the extractive answer quotes them (:func:`author_answer`), and the verdict checks that what is
cited is such a line (:func:`authorship_check`).

>>> asks_authors("Who wrote the paper?"), asks_authors("Who are the authors?"), asks_authors("Who wrote to Anne?")
(True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgcore.core.roles import AUTHORS, FRONT_MATTER
from kgcore.core.types import Answer, Citation, SelectedSentence
from kgcore.core.verdicts import ClaimCheck, Verdict

_DOCUMENT = r"(?:the|this|that|these|its)\s+(?:paper|article|study|report|book|document|work|text|thesis|novel|story|" \
            r"papers|articles|books|documents)"
#: Questions that ask only who wrote the document(s) asked about -- not "who wrote to Anne?" nor "who wrote the
#: letter?": the object, when there is one, is the document itself.
AUTHORS_QUESTION = re.compile(
    rf"^\s*(?:who\s+(?:wrote|has\s+written|authored|(?:is|was)\s+the\s+author\s+of|(?:are|were)\s+the\s+authors\s+of)"
    rf"(?:\s+{_DOCUMENT})?|who\s+(?:is|are|was|were)\s+(?:the\s+|its\s+)?authors?(?:\s+of\s+{_DOCUMENT})?"
    rf"|(?:what\s+are\s+the\s+names\s+of|name|list)\s+the\s+authors(?:\s+of\s+{_DOCUMENT})?)\s*[.?]?\s*$",
    re.IGNORECASE)
#: A book's title-page line naming its author ("By Beatrix Potter", "Written by ...").
BYLINE = re.compile(r"^\s*(?:(?:written|illustrated)\s+)?by\s+[A-Z]", re.IGNORECASE)
#: Author lines added per document (a paper's author block is a few lines; a longer run is the layout's error).
MAX_LINES = 6
NOTE = "The question asks who wrote the document: its author lines are added to the context, title page or not."


def asks_authors(question: str) -> bool:
    """Whether ``question`` asks only who wrote the document(s) (:data:`AUTHORS_QUESTION`)."""
    return bool(AUTHORS_QUESTION.match(question or ""))


def is_author_line(role: str, text: str) -> bool:
    """Whether a sentence of ``role`` says who wrote its document: a paper's author line, a book's byline."""
    return role == AUTHORS or role == FRONT_MATTER and bool(BYLINE.match(text))


def author_rows(roles: Sequence[str], texts: Sequence[str], documents: Sequence[str], wanted: Sequence[str] = ()
                ) -> list[int]:
    """The rows of each document's author lines (the first :data:`MAX_LINES`), of the ``wanted`` documents (every
    one when empty), in order.

    >>> author_rows(["title", "authors", "body", "front_matter"], ["T", "Ann Lee, MIT", "Text.", "By Ann Lee"],
    ...             ["a", "a", "a", "b"])
    [1, 3]
    """
    kept: dict[str, int] = {}
    rows = []
    for row, (role, text, document) in enumerate(zip(roles, texts, documents)):
        if (not wanted or document in wanted) and is_author_line(role, text) and kept.get(document, 0) < MAX_LINES:
            kept[document] = kept.get(document, 0) + 1
            rows.append(row)
    return rows


def author_answer(question: str, context: Sequence[SelectedSentence], name: str, model: str) -> Answer | None:
    """The extractive answer to an authors question: the context's author lines quoted; None when the question is
    no such question or the context holds none (its verdict: :func:`authorship_check`)."""
    if not asks_authors(question):
        return None
    lines = [s for s in context if is_author_line(s.role, s.text)]
    if not lines:
        return None
    text = " ".join(s.text.strip() for s in lines)
    ids = [s.id for s in lines]
    return Answer(text, name, model, citations=[Citation(text, ids, [1.0] * len(ids))], notes=[
        "Extractive answer (no LLM used): the question asks who wrote the document, and these are its author "
        f"lines ({', '.join(ids)})."])


def authorship_check(question: str, answer: Answer, context: Sequence[SelectedSentence]) -> Verdict | None:
    """The verdict on an answer to an authors question: *supported* when every claim cites author lines (the
    document says who wrote it there), *not supported* when one cites none; None for any other question (the
    usual check applies)."""
    if not asks_authors(question):
        return None
    by_id = {s.id: s for s in context}
    checks = []
    for citation in answer.citations:
        lines = [by_id[i] for i in citation.sentence_ids if i in by_id and is_author_line(by_id[i].role,
                                                                                         by_id[i].text)]
        first = lines[0] if lines else None
        checks.append(ClaimCheck(citation.answer_sentence, first.id if first else None, first.text if first else "",
                                 expected="the document's authors", state="supported" if lines else "not supported"))
    if checks and all(c.state == "supported" for c in checks):
        cited = ", ".join(dict.fromkeys(c.sentence_id or "" for c in checks))
        return Verdict("supported", f"Supported: cited sentence {cited} is the document's author line (its title "
                                    "page), which says who wrote it.", checks, method="the document's author lines")
    return Verdict("not supported", "Not supported by the document: the question asks who wrote the document, and "
                                    "the answer cites none of its author lines.", checks,
                   method="the document's author lines")
