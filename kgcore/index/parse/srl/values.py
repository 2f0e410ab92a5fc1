"""Values as entities: a number with its unit, a range, a percentage or a date keeps its full text.

An entity is named by its head word, so "each approximately 100-200 MB" became the node ``mb``, the same node as
"100 MB" and "741 MB", and "20%" lost its node altogether (the head "%" is no word).  A head that is a unit
(:data:`UNITS`) with a number before it is named by the number and the unit as written, without the hedge
("approximately", "about"): "100-200 MB", "20%", "10 to 20 seconds"; a month with its day or year by all of them
("March 2004", "5 March 2004").  Anything else gives "" and is named as before.  The parser runs spaCy without
its entity recogniser (it costs a third of the parse), so only the dependency parse decides.

>>> from kgcore.core.nlp import load_spacy
>>> doc = load_spacy()("Chunks are each approximately 100-200 MB in size, up from 741 MB in March 2004.",
...                    disable=["ner"])
>>> [value_label(t) for t in doc if t.text in ("MB", "March", "size", "Chunks")]
['', '100-200 MB', '', '741 MB', 'March 2004']
"""

from __future__ import annotations

#: Words that, after a number, make it a measured value.
UNITS = frozenset(
    "% percent percentage pp b kb mb gb tb pb kib mib gib tib byte bytes kilobyte kilobytes megabyte megabytes "
    "gigabyte gigabytes terabyte terabytes bit bits kbps mbps gbps ns us µs μs ms s sec secs second seconds min mins "
    "minute minutes h hr hrs hour hours day days week weeks month months year years x hz khz mhz ghz w kw mw kwh "
    "db usd dollar dollars eur euro euros $ € £ km m cm mm kg g mg".split())
#: Month names, which with a number make a date.
MONTHS = frozenset("january february march april may june july august september october november december jan feb "
                   "mar apr jun jul aug sep sept oct nov dec".split())


def value_label(token) -> str:
    """The full text of the value ``token`` heads ("100-200 MB"), or "" when it heads none."""
    date = token.lower_.rstrip(".") in MONTHS
    numbers = [c for c in token.children if c.dep_ == "nummod" and (date or c.i < token.i)]
    if not numbers or not (date or token.lower_ in UNITS):
        return ""
    members = {token.i}
    for number in numbers:
        hedges = {t.i for c in number.subtree if c.dep_ == "advmod" for t in c.subtree}
        members.update(t.i for t in number.subtree if t.i not in hedges)
    start = end = token.i
    while start - 1 in members:
        start -= 1
    while end + 1 in members:
        end += 1
    return token.doc[start : end + 1].text.strip()
