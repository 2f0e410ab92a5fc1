"""The words the answer spans are found by (:mod:`~kgcore.query.answer.spans`): which prepositions make a place,
which words mark a time, a reason or a means, which nouns name people, which adjectives describe rather than
name, and the compound prepositions that say no place ("with regard to", "in spite of").

>>> "front" in COMPOUND_PREPOSITION_NOUNS, "regard" in COMPOUND_PREPOSITION_NOUNS
(False, True)
"""

from __future__ import annotations

LOCATIVE_PREPS = frozenset(
    """in on under underneath among amongst into onto at near beside behind inside outside over through across
    beneath above below between by to toward towards from within upon around round along against""".split()
)
#: Kinds of place whose answer is a name ("what university": "Princeton"); a room, house or building is often
#: answered by a common noun ("in the attic").
NAMED_PLACES = frozenset(
    "city cities town towns country countries village state county island university college continent region".split())
#: Words that with the preposition after them make a compound preposition saying no place: "according to", "due
#: to", "owing to", "thanks to", "prior to", "as to", "because of", "instead of", "regardless of".
COMPOUND_PREPOSITIONS = frozenset("according due owing thanks prior as because instead regardless irrespective".split())
#: Nouns between two prepositions that make a compound one saying no place, standing bare: "with *regard* to", "in
#: *spite* of", "in *addition* to", "in *terms* of", "by *means* of", "on *behalf* of" (never "in *front* of"; "in
#: view of the sea" may be one).
COMPOUND_PREPOSITION_NOUNS = frozenset(
    """regard respect reference relation addition spite terms case lieu favour favor behalf means response
    accordance comparison contrast consequence virtue charge account place""".split())
#: Verbs whose infinitive complement says what for: "stopped to rest", "went out to buy" (with a direct object any
#: verb's does: "used a knife to cut the rope").
PURPOSE_VERBS = frozenset(
    "go come return run hurry rush stop pause wait stay turn climb walk ride sail travel arrive send hasten".split())
PLACE_WORDS = frozenset("home abroad upstairs downstairs indoors outdoors".split())
TIME_WORDS = frozenset(
    """morning evening night day week fortnight month year yesterday today tomorrow afternoon noon midnight hour
    minute moment presently soon later afterwards then when while after before until since once time spring summer
    autumn winter christmas dawn dusk sunset sunrise age""".split()
)
#: Verbs of an "as" clause that says how, not when: "as he was told", "as she had hoped", "as you please".
MANNER_AS_VERBS = frozenset(
    """say tell expect promise wish please like hope suppose intend agree order ask teach want instruct require
    demand know do direct show note observe mention report describe explain suggest state remark""".split())
TEMPORAL_MARKS = frozenset("when while after before until since once as".split())
REASON_WORDS = frozenset("because since therefore thus so as why".split())
MEANS_WORDS = frozenset("by using via through with exploiting leveraging".split())
#: Verbs of motion: "through" a place or a crowd after one says the way taken, not a means ("pushed through the
#: throng"; :func:`kgcore.query.answer.adverbials._a_path`).
MOTION_VERBS = frozenset("""push walk run go come pass move wander ride drive fly pour slip squeeze break force stroll
    hurry rush march travel sail climb crawl creep step stride wade swim roam flow stream wind thread""".split())
#: "define / compute X as Y": Y says how X is measured ("how do they measure how dynamic a community is?").
DEFINING_VERBS = frozenset("define compute calculate measure quantify formulate estimate operationalize".split())
TIME_ENTITIES = frozenset(("DATE", "TIME"))
PLACE_ENTITIES = frozenset(("GPE", "LOC", "FAC"))
NUMBER_ENTITIES = frozenset(("CARDINAL", "QUANTITY", "MONEY", "PERCENT"))
#: Entity types a run of proper nouns answering "who" cannot have.
NOT_PEOPLE = PLACE_ENTITIES | TIME_ENTITIES | NUMBER_ENTITIES
NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion
    trillion dozen half quarter twice thrice double triple""".split())
#: Tokens that join the parts of a quantity: "100-200 MB", "2.2-3.3×", "between 5 and 10", "15 %".
QUANTITY_JOINERS = frozenset("- – — to and x × % percent per . , / ~ ±".split())
PERSON_NOUNS = frozenset(
    """mother father sister brother wife husband son daughter uncle aunt cousin grandmother grandfather niece
    nephew friend neighbor neighbour teacher student pupil mentor priest rector doctor servant maid master mistress
    lady lord king queen captain admiral colonel judge family children child baby boy girl man woman gentleman heir
    widow lover fiance fiancee author annotator annotators user users people person""".split())
#: Words for how one person stands to another: kin, partners, ties of trust, care or service.
RELATION_NOUNS = frozenset(
    """mother father parent sister brother sibling twin wife husband spouse son daughter child uncle aunt cousin
    grandmother grandfather grandson granddaughter grandchild niece nephew stepmother stepfather stepson
    stepdaughter godmother godfather godson goddaughter fiance fiancee fiancé fiancée bride bridegroom widow widower
    heir heiress ward guardian friend mentor tutor pupil student protege protégé master servant lover suitor
    sweetheart neighbor neighbour employer employee landlord tenant rival companion colleague boss relative
    kinsman kinswoman ancestor descendant""".split())
#: The words that answer "what colour": "painted blue", "a scarlet coat".
COLOURS = frozenset(
    """red blue green yellow white black grey gray brown pink purple orange scarlet crimson violet golden gold
    silver azure cream ivory amber tawny auburn""".split())
INTRODUCERS = frozenset(("called", "named", "termed", "dubbed", "as", "namely"))
#: Adjectives that describe rather than name ("a great puzzle" is no term).
GENERIC_ADJECTIVES = frozenset(
    """great good bad small large big little new old first last other same different many few several certain
    particular important main major high low long short whole real true full simple single various such""".split())
#: Adjectives that describe a thing rather than say which kind it is: "systematic patterns" names no pattern,
#: "recurrent neural networks" names a kind of network.
DESCRIBING_ADJECTIVES = GENERIC_ADJECTIVES | frozenset(
    "separate systematic specific possible similar typical overall such own existing previous varied diverse".split())
#: Prepositions whose object is a place whenever it is a place's name ("lands in Waldo County"); after "to",
#: "from" or "by" a name the small tagger calls a place is as often a person ("written by Phoebe").
PLACE_ONLY_PREPS = frozenset("in at into inside within near across throughout outside around along".split())
#: Verbs whose object is told or let to do what their infinitive says: "asked her to leave" gives no purpose.
OBJECT_CONTROL_VERBS = frozenset(
    """ask tell persuade order urge beg advise force invite allow encourage warn remind require want expect cause
    get help teach compel permit enable lead command instruct oblige""".split())
#: Where a term the text introduces stands: as a subject, an object or a complement.
TERM_ROLES = frozenset(("nsubj", "nsubjpass", "dobj", "attr", "appos", "oprd"))
#: "refer to X as Y", "known as Y": the verbs whose "as" introduces a name.
NAMING_VERBS = frozenset("refer know call term denote dub name describe define".split())
ORDINALS = frozenset(
    """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth twentieth hundredth last
    firstly secondly thirdly""".split())
#: Words that label a part of a paper rather than name a thing ("Figure 3", "Table 2", "§ 4").
PAPER_LABELS = frozenset("figure fig table tab section sec eq equation appendix algorithm listing".split())
