"""Blocking: the candidate pairs resolution looks at, from shared keys (never all pairs).

Keys of a name: its normalised form, its singular, the name without titles, its acronym key (an acronym's
letters, a long form's initials and every long form the text defines for it), its head word (small blocks
only) and, for fuzzy matching, its rare character trigrams.

>>> names = ["RAG", "Retrieval-Augmented Generation", "retrieval augmented generation", "Peter", "Peter Rabbit",
...          "LLMs", "LLM", "fir tree"]
>>> sorted(candidate_pairs(names, {"rag": {"retrieval augmented generation"}}))
[(0, 1), (0, 2), (1, 2), (3, 4), (5, 6)]
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from kgcore.index.views.entities.names import (
    acronym_key,
    head,
    initials,
    ngrams,
    normalise,
    singular,
    strip_honorific,
)
from kgcore.index.views.entities.rules import GENERIC_HEADS

#: A head-word block larger than this ("model" in papers) is too common to compare all its members.
MAX_HEAD_BLOCK = 30
#: A trigram in more names than this says nothing about which two names are alike.
MAX_TRIGRAM_NAMES = 150
#: Least share of the shorter name's trigrams two names must share to be compared for fuzzy matching.
MIN_TRIGRAM_SHARE = 0.5
#: How many of a node's written spans add blocking keys.
MAX_TEXTS = 5
#: Any key block larger than this is skipped (a key shared by hundreds of names is no evidence).
MAX_BLOCK = 200


def keys_of(name: str, defined: Mapping[str, set[str]]) -> set[str]:
    """The exact-match blocking keys of a name (each prefixed by its kind).

    >>> sorted(keys_of("Large Language Models", {}))  # doctest: +NORMALIZE_WHITESPACE
    ['abbr:large language m', 'acr:llm', 'head:model', 'norm:large language models', 'part:large', 'part:models',
     'sing:large language', 'sing:large language model']
    """
    norm = normalise(name)
    if not norm:
        return set()
    keys = {f"norm:{norm}", f"sing:{singular(name)}", f"head:{head(name)}"}
    stripped = strip_honorific(name)[1]
    if stripped != norm:
        keys.add(f"bare:{stripped}")
    words = stripped.split()
    if len(words) > 1:
        keys |= {f"part:{words[0]}", f"part:{words[-1]}"}
    elif words:
        keys.add(f"part:{words[0]}")
    if len(words) > 1:
        keys.add(f"abbr:{' '.join(words[:-1])} {words[-1][0]}")
        if words[-1] in GENERIC_HEADS:
            keys.add(f"sing:{singular(' '.join(words[:-1]))}")
    key = acronym_key(name)
    if key:
        keys.add(f"acr:{key.replace(' ', '')}")
        keys |= {f"sing:{long}" for long in defined.get(key, ())}
    elif len(norm.split()) > 1:
        keys.add(f"acr:{initials(name)}")
    return keys


def candidate_pairs(names: Sequence[str], defined: Mapping[str, set[str]],
                    texts: Sequence[Sequence[str]] = ()) -> set[tuple[int, int]]:
    """Pairs (i < j) of names sharing a blocking key or enough rare trigrams; ``texts`` (per name, the spans it
    was written as: "Large language models" for the node "language model") add their singular and initials keys.

    >>> sorted(candidate_pairs(["LLMs", "language model"], {"llm": {"large language model"}},
    ...                        [["LLMs"], ["Large language models"]]))
    [(0, 1)]
    """
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        keys = keys_of(name, defined)
        for text in (texts[i] if i < len(texts) else ())[:MAX_TEXTS]:
            keys |= {k for k in keys_of(text, defined) if k.startswith(("sing:", "acr:"))}
        for key in keys:
            blocks[key].append(i)
    pairs: set[tuple[int, int]] = set()
    for key, members in blocks.items():
        limit = MAX_HEAD_BLOCK if key.startswith(("head:", "part:")) else MAX_BLOCK
        if 1 < len(members) <= limit:
            pairs |= {(a, b) for x, a in enumerate(members) for b in members[x + 1:]}
    return pairs | trigram_pairs(names)


def trigram_pairs(names: Sequence[str]) -> set[tuple[int, int]]:
    """Pairs of names of 5+ characters sharing at least :data:`MIN_TRIGRAM_SHARE` of the shorter one's rare trigrams.

    >>> sorted(trigram_pairs(["Contriever", "Contriver", "Natural Questions", "BM25"]))
    [(0, 1)]
    """
    grams = [ngrams(n) if len(normalise(n)) >= 5 else set() for n in names]
    index: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(grams):
        for gram in g:
            index[gram].append(i)
    pairs = set()
    for i, g in enumerate(grams):
        shared: Counter[int] = Counter()
        for gram in g:
            posting = index[gram]
            if len(posting) <= MAX_TRIGRAM_NAMES:
                shared.update(j for j in posting if j > i)
        for j, count in shared.items():
            if count >= MIN_TRIGRAM_SHARE * min(len(g), len(grams[j])):
                pairs.add((i, j))
    return pairs
