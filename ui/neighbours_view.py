"""Which entities are worth listing as an entity's neighbours: none that says nothing about it.

A neighbour shares actions with the entity; on papers the most frequent ones were "we", "2", "5.2", "example",
"bug": pronouns, numbers, section numbers and nouns so general that they neighbour everything.  A name is left out
when it says nothing about any topic (:func:`kgcore.api.is_junk_label`: pronouns, numbers, section labels,
generic nouns), or is a common noun (lower-case) found in nearly every document of a collection of four or
more: its inverse document frequency ``log(N / df)`` is below :data:`MIN_IDF` (``df / N`` above three quarters).

>>> [is_junk_neighbour(n, 1, 6) for n in ("we", "2", "5.2", "§ 3.1", "example", "Paxos", "lock service")]
[True, True, True, True, True, False, False]
>>> is_junk_neighbour("cluster", 6, 6), is_junk_neighbour("cluster", 2, 6), is_junk_neighbour("Chubby", 6, 6)
(True, False, False)
>>> is_junk_neighbour("cluster", 3, 3)   # too few documents to tell
False
"""

from __future__ import annotations

import math

from kgcore.api import is_junk_label

#: Below this inverse document frequency a common noun is in nearly every document (df / N above 3/4).
MIN_IDF = math.log(4 / 3)
#: Collections with fewer documents than this say nothing about a noun's specificity.
MIN_DOCUMENTS = 4


def is_junk_neighbour(name: str, documents: int, total_documents: int) -> bool:
    """``name`` (found in ``documents`` of the collection's ``total_documents``) says nothing as a neighbour."""
    text = name.strip()
    if is_junk_label(text):
        return True
    if total_documents < MIN_DOCUMENTS or not text[0].islower() or documents <= 0:
        return False
    return math.log(total_documents / documents) < MIN_IDF
