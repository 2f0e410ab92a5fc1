"""The word and role tables of the AMR-to-graph conversion (:mod:`kgcore.index.parse.amr.graph`).

>>> ROLE_TABLE[":location"], "and" in CONNECTIVES
('ARGM-LOC', True)
"""

#: AMR role -> edge role, for roles that have a PropBank modifier counterpart.
ROLE_TABLE = {
    ":time": "ARGM-TMP",
    ":duration": "ARGM-TMP",
    ":frequency": "ARGM-TMP",
    ":location": "ARGM-LOC",
    ":manner": "ARGM-MNR",
    ":purpose": "ARGM-PRP",
    ":cause": "ARGM-CAU",
    ":beneficiary": "ARG2",
    ":direction": "ARGM-DIR",
    ":path": "ARGM-DIR",
    ":source": "ARGM-DIR",
    ":destination": "ARGM-GOL",
    ":extent": "ARGM-EXT",
    ":accompanier": "ARGM-COM",
    ":condition": "ARGM-ADV",
    ":concession": "ARGM-ADV",
}

CONNECTIVES = frozenset({"and", "or", "either", "neither", "slash", "multi-sentence", "contrast-01"})
ROLE_FRAMES = frozenset({"have-rel-role-91", "have-org-role-91"})
PREPOSITIONS = frozenset(
    "after before behind beyond under underneath below above over outside inside near between "
    "among around across along against beside next-to toward towards through within past "
    "until prior-to".split()
)
PARTICLES = frozenset("up down out off away back over along around in on together through".split())
ADVERBS = frozenset("then now ever again also too just still yet already soon presently once later".split())
GENERIC = frozenset(
    "person thing something someone somebody anything one entity i you he she it we they this that".split()
)
DATE_ROLES = frozenset(
    ":year :month :day :weekday :dayperiod :season :century :decade :era :quarter :time :timezone".split()
)
#: Roles whose target only describes its source (folded into texts, never an edge by themselves).
FOLD_ROLES = frozenset({":mod", ":quant", ":degree", ":unit", ":ord", ":value", ":polarity", ":mode", ":wiki", ":li"})
