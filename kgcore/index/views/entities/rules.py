"""Resolution rules: each a pure function of two names (and what the text defined), giving a score or None.

Strong rules merge on their own (:data:`STRONG`); weak rules need the embedding rule too (the cosine of the
two entities' name + grounded context above a threshold measured on the labelled set's dev half).

>>> exact("Retrieval-Augmented Generation", "retrieval augmented generation"), plural_case("LLMs", "LLM")
(1.0, 1.0)
>>> acronym("RAG", "retrieval-augmented generation", {"rag": {"retrieval augmented generation"}})
1.0
>>> fuzzy("Contriever", "Contriver"), fuzzy("GPT-3", "GPT-4"), fuzzy("Mr. McGregor", "Mrs. McGregor")
(0.9, None, None)
"""

from __future__ import annotations

from collections.abc import Mapping

from rapidfuzz.distance import Levenshtein

from kgcore.index.views.entities.names import (
    acronym_key,
    digits,
    fragment,
    normalise,
    singular,
    strip_honorific,
)
from kgcore.index.views.entities.names import initials as initial_letters

EXACT, PLURAL, ACRONYM, HONORIFIC = "exact-name", "plural-case", "acronym", "honorific"
FUZZY, INITIALS, NAME_PART, EMBEDDING = "fuzzy-name", "acronym-initials", "name-part", "embedding"
ABBREVIATION, GENERIC_HEAD = "abbreviation", "generic-head"
#: Rules that merge on their own (guards still apply).
STRONG = (EXACT, PLURAL, ACRONYM, HONORIFIC)
#: Rules that merge only with the embedding rule.
WEAK = (FUZZY, INITIALS, NAME_PART, ABBREVIATION, GENERIC_HEAD)
#: Fuzzy matching never applies to names shorter than this (the QA-pair graph method fuzzily matches longer strings
#: only).
FUZZY_MIN_CHARS = 5


def exact(a: str, b: str) -> float | None:
    """1.0 when the normalised names are equal (case, hyphens, punctuation and a leading article ignored).

    >>> exact("BERT", "bert"), exact("BERT", "BERT-base"), exact("wheel-barrow", "wheelbarrow"), exact("-luck", "luck")
    (1.0, None, 1.0, None)
    """
    na, nb = unrepeated(normalise(a)), unrepeated(normalise(b))
    if fragment(a) != fragment(b):
        return None
    return 1.0 if na and (na == nb or na.replace(" ", "") == nb.replace(" ", "")) else None


def unrepeated(norm: str) -> str:
    """A normalised name said twice by a parse ("robinson crusoe robinson crusoe") said once.

    >>> unrepeated("robinson crusoe robinson crusoe"), unrepeated("new new york")
    ('robinson crusoe', 'new new york')
    """
    words = norm.split()
    half = len(words) // 2
    return " ".join(words[:half]) if half and len(words) % 2 == 0 and words[:half] == words[half:] else norm


def plural_case(a: str, b: str) -> float | None:
    """1.0 when the names differ only in case and the number of their last word.

    >>> plural_case("RAG systems", "RAG system"), plural_case("Transformers", "transformer"), plural_case("a", "as")
    (1.0, 1.0, None)
    """
    sa = singular(a)
    same = len(sa) > 1 and sa == singular(b) and normalise(a) != normalise(b) and fragment(a) == fragment(b)
    return 1.0 if same else None


def acronym(short: str, long: str, defined: Mapping[str, set[str]]) -> float | None:
    """1.0 when the text defines ``short`` as ``long`` ("Retrieval-Augmented Generation (RAG)"), in either order.

    >>> acronym("LLMs", "large language models", {"llm": {"large language model"}})
    1.0
    >>> acronym("RAG", "reading group", {"rag": {"retrieval augmented generation"}}) is None
    True
    """
    for s, lf in ((short, long), (long, short)):
        key = acronym_key(s)
        if key and singular(lf) in defined.get(key, ()):
            return 1.0
    return None


def initials(short: str, long: str) -> float | None:
    """0.6 when one name spells the other's initials but no sentence defines it (weak: needs the embedding rule).

    >>> initials("DPR", "dense passage retrieval"), initials("DPR", "data processing"), initials("IR", "IR research")
    (0.6, None, None)
    """
    for s, lf in ((short, long), (long, short)):
        key = acronym_key(s).replace(" ", "")
        if key and " " in normalise(lf) and initial_letters(lf) == key and key not in normalise(lf).split():
            return 0.6
    return None


def honorific(a: str, b: str) -> float | None:
    """1.0 when the names are equal once titles are dropped and the titles do not disagree on sex.

    >>> honorific("Mr. McGregor", "McGregor"), honorific("Mr. McGregor", "Mrs. McGregor")
    (1.0, None)
    """
    (sa, na), (sb, nb) = strip_honorific(a), strip_honorific(b)
    if not na or na != nb or normalise(a) == normalise(b) or (sa and sb and sa != sb):
        return None
    return 1.0


def titles_disagree(a: str, b: str) -> bool:
    """Whether both names carry titles of a different sex ("Mr. X" and "Mrs. X" are two people).

    >>> titles_disagree("Mr. McGregor", "Mrs. McGregor"), titles_disagree("Mr. McGregor", "McGregor")
    (True, False)
    """
    (sa, _), (sb, _) = strip_honorific(a), strip_honorific(b)
    return bool(sa and sb and sa != sb)


def max_edits(length: int) -> int:
    """The edit distance fuzzy matching allows for a name of ``length`` characters: the QA-pair graph method's 3, scaled
    down.

    >>> [max_edits(n) for n in (4, 5, 8, 12, 30)]
    [0, 1, 2, 3, 3]
    """
    if length < FUZZY_MIN_CHARS:
        return 0
    return 1 if length < 8 else 2 if length < 12 else 3


def fuzzy(a: str, b: str) -> float | None:
    """1 - distance/length when the Levenshtein distance of the normalised names is within :func:`max_edits`
    of the shorter one, the numbers in them agree and the titles do not disagree.

    >>> fuzzy("Natural Questions", "Natural Question"), fuzzy("ROUGE-L", "ROUGE-1"), fuzzy("Peter", "Petra")
    (0.94, None, None)
    """
    na, nb = normalise(a), normalise(b)
    if not na or na == nb or digits(a) != digits(b) or titles_disagree(a, b):
        return None
    shorter = min(len(na), len(nb))
    distance = Levenshtein.distance(na, nb, score_cutoff=max_edits(shorter))
    if distance > max_edits(shorter) or (shorter < 8 and na[0] != nb[0]) or _one_letter_swap(na, nb, shorter):
        return None
    if _other_word(na, nb) or _negated(na, nb):
        return None
    return round(1 - distance / max(len(na), len(nb)), 2)


_SUFFIXES = ("ing", "ion", "ation", "ment", "ity")


def _other_word(na: str, nb: str) -> bool:
    """The names differ in a word that is short (an id: "Appendix B"/"Appendix E", "Li"/"Lin") or only by a
    derivational suffix ("model"/"modeling"): different things, not spelling variants.

    >>> _other_word("appendix b", "appendix e"), _other_word("language model", "language modeling")
    (True, True)
    >>> _other_word("retrieval augmented generation", "retrieval augment generation")
    False
    """
    wa, wb = na.split(), nb.split()
    only_a, only_b = [w for w in wa if w not in wb], [w for w in wb if w not in wa]
    if any(len(w) <= 3 for w in only_a + only_b) and len(wa) > 1 and len(wb) > 1:
        return True
    for x, y in zip(only_a, only_b):
        short, long = sorted((x, y), key=len)
        if long.startswith(short) and long[len(short):] in _SUFFIXES and not short.endswith("e"):
            return True
    return False


def _negated(na: str, nb: str) -> bool:
    """One name is the other with a negating prefix ("possible"/"impossible").

    >>> _negated("possible", "impossible"), _negated("contriever", "contriver")
    (True, False)
    """
    short, long = sorted((na, nb), key=len)
    return long.endswith(short) and long[:-len(short)] in ("in", "im", "un", "non", "non ", "dis", "ir", "il")


def _one_letter_swap(na: str, nb: str, shorter: int) -> bool:
    """A short single word that changed a letter inside (Peter/Petra, Gemma/Gemini): different names."""
    return shorter < 8 and " " not in na and " " not in nb and len(na) == len(nb) and na[:-1] != nb[:-1]


def name_part(a: str, b: str) -> float | None:
    """0.5 when one name is a single word that is the first or last word of the other, longer name
    ("Peter" and "Peter Rabbit"): often the same entity, but weak.

    >>> name_part("Peter", "Peter Rabbit"), name_part("McGregor", "Mr. McGregor"), name_part("RAG", "RAG model")
    (0.5, None, None)
    >>> name_part("Raoul", "Raoul staggering"), name_part("fusion", "Reciprocal Rank Fusion")
    (None, None)
    """
    (_, na), (_, nb) = strip_honorific(a), strip_honorific(b)
    (short, short_written), (long, long_written) = sorted(((na, a), (nb, b)), key=lambda x: len(x[0]))
    words = long.split()
    if " " in short or len(words) < 2 or len(short) < 3 or short not in (words[0], words[-1]):
        return None
    capitalised = all(w[:1].isupper() for w in long_written.split() if w[:1].isalpha())
    return 0.5 if capitalised and short_written[:1].isupper() else None


def abbreviation(a: str, b: str) -> float | None:
    """0.6 when the names agree word for word except one word that the other name shortens to a prefix
    ("RAG-Tok." / "RAG-Token", "RAG-S" / "RAG-Sequence"); weak: "RAG-S" could shorten other words too.

    >>> abbreviation("RAG-Tok", "RAG-Token"), abbreviation("RAG-T", "RAG-Token"), abbreviation("GPT-3", "GPT-35")
    (0.6, 0.6, None)
    """
    wa, wb = normalise(a).split(), normalise(b).split()
    if len(wa) != len(wb) or len(wa) < 2 or digits(a) != digits(b):
        return None
    differ = [(x, y) for x, y in zip(wa, wb) if x != y]
    if len(differ) != 1:
        return None
    short, long = sorted(differ[0], key=len)
    return 0.6 if len(long) >= 4 and long.startswith(short) and len(short) < len(long) - 1 else None


#: Head nouns that name what kind of thing a name is: "HotpotQA dataset" is HotpotQA, "the DPR model" is DPR.
GENERIC_HEADS = frozenset({"model", "models", "dataset", "datasets", "benchmark", "corpus", "framework", "system",
                           "method", "approach", "algorithm", "library", "toolkit", "paper", "architecture"})


def generic_head(a: str, b: str) -> float | None:
    """0.5 when one name is the other followed by a generic head noun ("HotpotQA dataset", "DPR model"); weak.

    >>> generic_head("HotpotQA", "HotpotQA dataset"), generic_head("RAG", "RAG models"), generic_head("RAG", "RAG cost")
    (0.5, 0.5, None)
    """
    (short, written), (long, _) = sorted(((normalise(a), a), (normalise(b), b)), key=lambda x: len(x[0]))
    words = long.split()
    if not short or len(words) != len(short.split()) + 1 or not long.startswith(short + " "):
        return None
    return 0.5 if words[-1] in GENERIC_HEADS and not written[:1].islower() else None


#: Type pairs that may merge although they differ (a model is often called a method, a concept a topic).
COMPATIBLE = frozenset({frozenset(p) for p in (("model", "method"), ("concept", "topic"), ("concept", "method"),
                                               ("place", "organisation"), ("organisation", "legal entity"),
                                               ("regulation", "rule"), ("object", "concept"))})


def type_compatible(a: str, b: str) -> bool:
    """Whether entities of types ``a`` and ``b`` may merge: equal, unknown, or a pair in :data:`COMPATIBLE`.

    >>> type_compatible("person", "dataset"), type_compatible("model", "method"), type_compatible("unknown", "x")
    (False, True, True)
    """
    return a == b or "unknown" in (a, b) or frozenset((a, b)) in COMPATIBLE


def name_rules(a: str, b: str, defined: Mapping[str, set[str]], names: bool = True) -> list[tuple[str, float]]:
    """Every name rule that holds for the pair, strongest first; ``names``: both are names (the rules about
    titles and parts of names apply to names only, "rabbit" is not "Mrs. Rabbit").

    >>> name_rules("RAG", "Retrieval-Augmented Generation", {"rag": {"retrieval augmented generation"}})
    [('acronym', 1.0), ('acronym-initials', 0.6)]
    >>> name_rules("rabbit", "Mrs. Rabbit", {}, names=False)
    []
    """
    found = [(EXACT, exact(a, b)), (PLURAL, plural_case(a, b)), (ACRONYM, acronym(a, b, defined)),
             (HONORIFIC, honorific(a, b) if names else None), (FUZZY, fuzzy(a, b) if names else None),
             (INITIALS, initials(a, b)), (ABBREVIATION, abbreviation(a, b) if names else None),
             (GENERIC_HEAD, generic_head(a, b) if names else None),
             (NAME_PART, name_part(a, b) if names else None)]
    return [(rule, score) for rule, score in found if score is not None]
