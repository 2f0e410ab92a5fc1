"""Where a reference entry's author list ends, read with a small grammar of names, for every common style.

A name is written initials first ("S.-T. Leung", "J. K. Smith"), surname
first ("Leung, S.-T.", "LEUNG, S.-T." in ACM's capitals, "Leung S-T" in
Vancouver style) or in full ("Shun-Tak Leung", "Benjamin H. Sigelman");
names are joined by commas, "and", "AND" or "&", and a list may end in
"et al.".  :func:`author_list` matches the longest such list at the start
of an entry and says where it ends; what follows is the year (author-year
styles), a colon (Springer LNCS) or the title.  A title never continues an
author list, because names are joined by a separator and a title follows a
full stop.

>>> entry = "GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T. The Google file system. In Proc. of the 19th ACM SOSP."
>>> entry[:author_list(entry)]
'GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T.'
>>> entry = "Ghemawat, S., Gobioff, H., Leung, S.T.: The Google file system. In: SOSP. pp. 29-43 (2003)"
>>> entry[:author_list(entry)]
'Ghemawat, S., Gobioff, H., Leung, S.T.'
>>> entry = "Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung. The Google file system. In SOSP, 2003."
>>> entry[:author_list(entry)]
'Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung'
>>> author_list("Protocol buffers. http://code.google.com/p/protobuf/")
0
"""

from __future__ import annotations

import re

_UP = "A-ZÀ-ÖØ-Þ"
_LOW = "a-zß-öø-ÿ"
#: Initials: "S.", "S.-T.", "J. K.", "Ch.", "S.T." (and "S-T" without stops in Vancouver style).
_INITIALS = rf"[{_UP}][{_LOW}]?\.(?:\s?-?[{_UP}][{_LOW}]?\.)*"
_PARTICLE = r"(?:(?:van|von|de|der|den|del|della|di|da|du|la|le|dos|ten|ter)\s+)"
#: A surname: capitalised or in capitals, hyphenated or with an apostrophe; particles before it.
_SURNAME = rf"{_PARTICLE}*(?:[{_UP}][{_LOW}]*['’]?)?[{_UP}][{_UP}{_LOW}'’`-]+"
_GIVEN = rf"[{_UP}][{_LOW}]+(?:-[{_UP}]?[{_LOW}]+)?"
_NAME = (rf"(?:{_INITIALS}\s?{_SURNAME}"                      # S.-T. Leung
         rf"|{_SURNAME},\s?{_INITIALS}(?:\s?,?\s?(?:Jr|Sr)\.)?"  # Leung, S.-T.
         rf"|(?:{_GIVEN}\s+){{1,2}}(?:{_INITIALS}\s?)?{_SURNAME}"  # Shun-Tak Leung, Benjamin H. Sigelman
         rf"|{_SURNAME}\s[{_UP}](?:\s?[{_UP}]){{0,2}}(?![{_LOW}\.]))")  # Leung ST, Robertson S E
_SEP = r"(?:\s*,\s*(?:and\s+|AND\s+|&\s*)?|\s+(?:and|AND|&)\s+)"
_ETAL = r"(?:,?\s+(?:et\s+al\.?|and\s+others|AND\s+OTHERS))"
_LIST = re.compile(rf"{_NAME}(?:{_SEP}{_NAME})*{_ETAL}?")
#: What may follow an author list: a stop, a colon, a comma, a year, an opening bracket.
_AFTER = re.compile(r"\s*(?:[.:,;]|\(|\s(?:19|20)\d{2}\b|$)")
#: Entries are read up to this many characters (a bound on the grammar's work).
MAX_ENTRY = 1000


#: Accents a text layer set apart from their letters ("Douwe ¨ Kiela", "Tim Rocktaschel" with a lone "¨").
_LONE_ACCENTS = str.maketrans(dict.fromkeys("¨´˜ˆ˚¸`", " "))


def author_list(entry: str) -> int:
    """Where the author list at the start of ``entry`` ends (0: no list of names there); accents set apart from
    their letters read as spaces.

    >>> entry = "Heinrich Kuttler, Wen-tau Yih, ¨ Tim Rocktaschel, and Douwe ¨ Kiela. 2020b. Retrieval-augmented"
    >>> entry[:author_list(entry)]
    'Heinrich Kuttler, Wen-tau Yih, ¨ Tim Rocktaschel, and Douwe ¨ Kiela'
    """
    entry = entry.translate(_LONE_ACCENTS)
    found = _LIST.match(entry[:MAX_ENTRY])
    if not found or not (entry[found.end() - 1] == "." or _AFTER.match(entry, found.end())):
        return 0  # a list ends at a stop (its own, after an initial), a colon, a comma, a year or a bracket
    return found.end()


def surnames(authors: str) -> list[str]:
    """The surnames of an author list, in order, capitals as written ("GHEMAWAT" stays).

    >>> surnames("GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T.")
    ['GHEMAWAT', 'GOBIOFF', 'LEUNG']
    >>> surnames("Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung")
    ['Ghemawat', 'Gobioff', 'Leung']
    >>> surnames("S. Ghemawat and H. Gobioff")
    ['Ghemawat', 'Gobioff']
    >>> surnames("Robertson S E, Walker S and Hancock-Beaulieu, M.")
    ['Robertson', 'Walker', 'Hancock-Beaulieu']
    """
    out = []
    for name in re.split(rf"{_SEP}(?={_NAME})", authors):
        name = re.sub(_ETAL + "$", "", name).strip(" ,.")
        if "," in name:  # surname first
            out.append(name.split(",")[0].strip())
            continue
        words = [w for w in name.split() if not re.fullmatch(_INITIALS + r"|[A-Z]{1,3}", w)]
        if words:
            out.append(words[-1] if not re.fullmatch(rf"{_SURNAME}(?:\s[{_UP}]{{1,3}})+", name) else words[0])
    return [s for s in out if s]
