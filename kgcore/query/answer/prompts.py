"""The paper's Appendix A prompts, with or without retrieved content.

>>> from kgcore.core.types import SelectedSentence
>>> ctx = [SelectedSentence("text_0-32", 32, "He lost one shoe among the cabbages.", "Peter lost one shoe.")]
>>> print(build_prompt("Where did Peter lose his shoes?", ctx))
Please answer the question based on the following content:
<BLANKLINE>
Content: [text_0-32] He lost one shoe among the cabbages.
<BLANKLINE>
Question: Where did Peter lose his shoes?
<BLANKLINE>
Answer:
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.core.types import SelectedSentence

WITH_CONTENT_PROMPT = (
    "Please answer the question based on the following content:\n\n"
    "Content: {content}\n\nQuestion: {question}\n\nAnswer:"
)
WITHOUT_CONTENT_PROMPT = (
    "Please answer the question based on your memory of the book {book_name}:\n\n"
    "Question: {question}\n\nAnswer:"
)


def format_content(context: Sequence[SelectedSentence], with_ids: bool = True) -> str:
    """The prompt's content: context sentences in document order.

    With ids each sentence is on its own line behind its id in brackets so
    that an LLM can cite it (and :func:`cite` can read the citation back);
    without ids the sentences are joined by spaces, as in the paper.

    >>> ctx = [SelectedSentence("text_0-5", 5, "B.", "B."), SelectedSentence("text_0-1", 1, "A.", "A.")]
    >>> format_content(ctx)
    '[text_0-1] A.\\n[text_0-5] B.'
    >>> format_content(ctx, with_ids=False)
    'A. B.'
    """
    ordered = sorted(context, key=lambda s: s.position)
    if with_ids:
        return "\n".join(f"[{s.id}] {s.text}" for s in ordered)
    return " ".join(s.text for s in ordered)


def build_prompt(question: str, context: Sequence[SelectedSentence], book_name: str = "", with_ids: bool = True) -> str:
    """The paper's Appendix A prompt, with content when ``context`` is non-empty.

    ``with_ids=False`` gives the paper-exact content (no sentence ids).

    >>> print(build_prompt("Who is Peter?", [], book_name="The Tale of Peter Rabbit"))
    Please answer the question based on your memory of the book The Tale of Peter Rabbit:
    <BLANKLINE>
    Question: Who is Peter?
    <BLANKLINE>
    Answer:
    """
    if not context:
        return WITHOUT_CONTENT_PROMPT.format(book_name=book_name, question=question)
    return WITH_CONTENT_PROMPT.format(content=format_content(context, with_ids), question=question)
