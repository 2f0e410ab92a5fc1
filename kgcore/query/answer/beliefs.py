"""Whether a clause states something or says what someone believes: "McGregor was sure *that Peter was in the
shed*" tells what McGregor believed, not where Peter was, so a span inside such a clause answers nothing
(:func:`kgcore.query.answer.spans.answer_spans` drops it unless the question asks for the belief).  "They made
sure that the copies were kept on three racks" is a guarantee, not a belief.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Verbs and adjectives of belief or guess: the clause they take ("McGregor was sure *that Peter was in the
#: shed*", "they think *that it rained*") says what someone believes, not what is so.
BELIEF_WORDS = frozenset(
    """think believe suppose guess suspect imagine fancy wonder doubt hope fear presume dream pretend sure
    convinced afraid""".split())


def _made_sure(word) -> bool:
    """Whether ``word`` is the "sure" of "make sure (that) ...": a guarantee, not a belief."""
    return word.lemma_.lower() == "sure" and word.head.lemma_.lower() in ("make", "ensure")


def believed(span: Sequence) -> bool:
    """Whether the span lies in a clause that says what someone believes or guesses ("McGregor was sure *that
    Peter was in the shed*"): the complement of a :data:`BELIEF_WORDS` verb or adjective is no fact of the text."""
    if not span:
        return False
    token = min(span, key=lambda t: _depth(t))
    while token.head.i != token.i:
        if token.dep_ == "ccomp" and token.head.lemma_.lower() in BELIEF_WORDS and not _made_sure(token.head):
            return True
        token = token.head
    return False


def _depth(token) -> int:
    depth = 0
    while token.head.i != token.i:
        token, depth = token.head, depth + 1
    return depth
