"""Cataphora: a possessive in a fronted adjunct refers to the subject of the main clause that follows it.

"In assessing its contingent Exposure to a Counterparty, the Authorised Person should identify ...",
"With his face in a mask ..., the viscount thought himself very ridiculous", "Turning to his audience,
M. Mifroid delivered a little lecture": the possessive comes before its referent, so a search of what precedes
it cannot find it (it found the previous sentence's "risk assessment" and "the Angel of Music").  Only
possessives: a fronted "it" or "he" ("Once it has been granted, a RCH must ...") usually continues the previous
sentence; and only adjuncts without a subject of their own (a phrase, a participle: "When assessing its
systems ...", "Thinking that his brother ..."), since a clause with one ("Where a Captive Insurer includes in
its return ...", "although its delay is lower than CacheBlend, the quality drops") leaves the pronoun free.
The resolver takes the subject only when it agrees, and for "his", "her" and "their" only when it is animate
(:meth:`kgcore.index.coref.heuristic._Resolution._search`); tested on real parses in
``tests/models/test_coref_models.py``.
"""

from __future__ import annotations

from kgcore.index.coref.lexicon import SUBJ_DEPS

#: Dependents of the main verb that can be fronted before its subject.
ADJUNCTS = frozenset({"advcl", "prep", "npadvmod"})


def cataphor(tok) -> int:
    """Token index of the main clause's subject that the possessive ``tok`` refers to ahead, or -1."""
    if tok.tag_ != "PRP$":
        return -1
    adjunct = tok
    while adjunct.head is not adjunct and adjunct.head.dep_ != "ROOT":
        adjunct = adjunct.head
    verb = adjunct.head
    if adjunct is tok or adjunct.dep_ not in ADJUNCTS or verb is adjunct:
        return -1
    subject = next((c for c in verb.children if c.dep_ in SUBJ_DEPS), None)
    if subject is None or subject.pos_ not in ("NOUN", "PROPN") or adjunct.right_edge.i >= subject.left_edge.i:
        return -1
    if any(c.dep_ in SUBJ_DEPS for c in adjunct.children) or any(
            t.dep_ in SUBJ_DEPS and t.i < tok.i for t in adjunct.subtree):
        return -1  # a clause of its own subject: "Where a Captive Insurer includes in its return", "although its
    return subject.i  # delay is lower than CacheBlend, the quality drops" (but "Thinking that his brother ...")
