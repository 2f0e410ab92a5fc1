"""Pleonastic *it*, which refers to nothing: weather ("it was raining"), raising verbs ("it seems"), "it is ADJ
to/that", times ("it was night") and clefts ("it was the jacket that Peter lost").  The ``heuristic`` coreference
backend leaves such an *it* as written (:func:`kgcore.index.coref.pronouns.pronoun_of`).
"""

from __future__ import annotations

from kgcore.index.coref.lexicon import COPULAS, RAISING, SUBJ_DEPS, TIME_NOUNS, WEATHER, WEATHER_ADJ


def is_pleonastic(tok) -> bool:
    """Expletive *it*: weather, raising verbs, "it is ADJ to/that", time, clefts."""
    head = tok.head
    if head.dep_ in ("aux", "auxpass"):  # the small parser sometimes hangs "it" on "was" of "was raining"
        head = head.head
    if tok.dep_ == "expl" or head.lemma_ in WEATHER:
        return True
    if tok.dep_ in SUBJ_DEPS and head.lemma_ in RAISING:
        return True
    if extraposed(tok):
        return True
    if tok.dep_ not in SUBJ_DEPS or head.lemma_ not in COPULAS:
        return False
    for child in head.children:  # "it was dark", "it grew late", "it was night", "it began to rain"
        if child.dep_ in ("acomp", "attr", "advmod", "xcomp") and (
            child.lower_ in WEATHER_ADJ or child.lemma_ in TIME_NOUNS or child.lemma_ in WEATHER
            or child.ent_type_ in ("DATE", "TIME")
        ):
            return True
    return head.lemma_ == "be" and cleft(tok, head)


def cleft(tok, be) -> bool:
    """ "It was on the 15th of July that I began", "it was the jacket that Peter lost": a
    ``that``/``who`` after the copula with no verb in between."""
    focus = False
    for word in tok.doc[be.i + 1:]:
        if word.lower_ in ("that", "who") and focus:
            return True
        if word.pos_ in ("VERB", "AUX") or word.dep_ == "acomp" or word.is_sent_end:
            return False  # "it was so heavy that ..." is a degree clause, not a cleft
        focus = focus or word.pos_ in ("NOUN", "PROPN", "PRON", "NUM")
    return False


def extraposed(tok) -> bool:
    """Surface pattern ``it (is|seems|...)? (very)? ADJ (for NP)? to|that``, e.g. "thought it best to go"."""
    doc, j = tok.doc, tok.i + 1
    while j < len(doc) and (doc[j].pos_ in ("AUX", "PART") or doc[j].lemma_ in ("seem", "become")
                            or doc[j].tag_ == "RB"):
        if doc[j].lower_ in ("so", "too"):
            return False  # "it was so heavy that I could not lift it": a degree clause, "it" refers
        j += 1
    if j >= len(doc) or doc[j].tag_ not in ("JJ", "JJR", "JJS", "RBR", "RBS"):
        return False
    for k in range(j + 1, min(j + 6, len(doc))):
        if doc[k].lower_ in ("to", "that", "whether", "how", "what", "why"):
            return True
        if doc[k].lower_ != "for" and doc[k].pos_ not in ("NOUN", "PROPN", "PRON", "DET", "ADJ"):
            return False
    return False
