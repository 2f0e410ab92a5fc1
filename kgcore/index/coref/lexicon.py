"""The word lists of the ``heuristic`` coreference backend: pronoun classes, gendered and animate nouns, titles and
names, and the nouns and tokens that are never a referent.  They decide gender and animacy without a model.
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# pronoun -> (referent class, grammatical form); "her" is split by tag later.
PRONOUNS = {
    "he": ("he", "subj"), "him": ("he", "obj"), "his": ("he", "poss"), "himself": ("he", "refl"),
    "she": ("she", "subj"), "her": ("she", "obj"), "hers": ("she", "poss"), "herself": ("she", "refl"),
    "it": ("it", "subj"), "its": ("it", "poss"), "itself": ("it", "refl"),
    "they": ("they", "subj"), "them": ("they", "obj"), "their": ("they", "poss"),
    "theirs": ("they", "poss"), "themselves": ("they", "refl"),
}
FEMALE_NOUNS = _words(
    "mother mum mom mamma mama mummy woman girl lady sister daughter wife queen princess duchess countess "
    "empress aunt niece grandmother granny grandma widow maid maiden mistress madam nun bride actress "
    "heroine goddess hostess landlady lass hen mare cow ewe doe sow vixen"
)
MALE_NOUNS = _words(
    "father dad daddy papa man boy brother son husband king prince duke emperor uncle nephew "
    "grandfather grandpa gentleman lord sir monk priest bishop friar lad fellow master mister "
    "bachelor widower groom bridegroom hero god landlord bull stallion cock rooster ram boar stag"
)
HUMAN_NOUNS = _words(
    "person child baby friend servant slave captain sailor seaman savage stranger neighbour neighbor "
    "cousin parent doctor merchant farmer gardener baker cook soldier officer pilot mate companion "
    "partner guest owner traveller traveler passenger prisoner enemy native cannibal guide teacher "
    "student pupil shepherd hunter fisherman nurse thief robber governor planter spaniard "
    "englishman portuguese clerk surgeon boatswain gunner carpenter devil angel saint ghost giant dwarf "
    "people folk twin peasant villager workman citizen resident author researcher engineer urchin"
)
ANIMAL_NOUNS = _words(
    "rabbit bunny mouse cat kitten dog puppy bird sparrow robin blackbird owl squirrel fox wolf bear "
    "horse pony donkey goat kid sheep lamb pig parrot creature animal beast frog toad duck goose hare "
    "deer lion tiger leopard monkey seal turtle tortoise"
)
#: Nouns of kinship and company that only people (or animals) have: "their neighbor", "their mother" are a household's
#: or a couple's, never "the fences'".  "their" of one needs an antecedent that is no thing; when the most salient
#: agreeing one is a thing ("the nodes aggregate features from their neighbors") the pronoun is left as written.
#: Data-structure relations ("their children", "its parent") are not listed.
RELATION_NOUNS = _words(
    "mother father sister brother son daughter husband wife aunt uncle cousin nephew niece grandmother "
    "grandfather grandchild granddaughter grandson friend neighbour neighbor sweetheart lover servant maid"
)
#: Family words a household uses as a name ("Mother says we'll never succeed"): a person of the word's gender.
FAMILY_NAMES = _words("mother mum mom mamma mama mummy granny grandma grandmother father dad daddy papa "
                      "grandfather grandpa")
FEMALE_TITLES = _words("mrs mrs. miss ms ms. lady madam madame queen princess dame aunt mme mme. mlle mlle. "
                       "mademoiselle countess")
MALE_TITLES = _words("mr mr. sir lord king prince duke uncle master m. monsieur count comte viscount vicomte")
TITLES = FEMALE_TITLES | MALE_TITLES
FEMALE_NAMES = _words(
    "mary anne ann jane elizabeth emma alice sarah susan margaret catherine kate lucy charlotte emily "
    "helen harriet martha ruth grace rose clara julia flopsy mopsy"
)
MALE_NAMES = _words(
    "peter john james william george thomas charles henry robert richard edward benjamin tom "
    "jack robinson crusoe xury david michael joseph samuel paul"
)
TIME_NOUNS = _words(
    "time day morning evening night afternoon noon midnight moment minute hour week month year while "
    "fortnight today tomorrow yesterday once meantime meanwhile"
)
# Bare objects of light verbs ("take notice", "took care") refer to nothing.
LIGHT_NOUNS = _words("notice care sight use advantage account attention heed leave hold part place pains")
# Nor do the bare nouns of fixed prepositional phrases ("in accordance with", "in relation to", "on behalf of"): in
# ObliQA "it" and "its" were resolved to "accordance" and "relation" 42 times.
PHRASE_NOUNS = _words("accordance relation respect connection addition regard lieu behalf virtue order")
#: Both: bare (without a determiner or possessor), never a referent.
BARE_NON_REFERENTS = LIGHT_NOUNS | PHRASE_NOUNS
#: Words that open speech and refer to nobody, which the small tagger may call a name ("Nay, then, I must ...").
INTERJECTIONS = _words("nay yea yes no oh ah aha alas hush pshaw hurrah ay aye hullo hello hallo lo")
#: A list item's marker ("(i)", "(c)", "iv)"): a letter or a roman numeral (to 39) beside a parenthesis.
LIST_MARKER = re.compile(r"[a-z]|(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})", re.IGNORECASE)
WEATHER = _words("rain snow hail thunder drizzle lighten pour freeze sleet")
WEATHER_ADJ = _words("dark light late early windy rainy sunny cloudy foggy stormy calm cold hot warm")
COPULAS = _words("be grow get become turn seem look")
RAISING = _words("seem appear happen chance matter occur")
SKIP_ENTS = _words("DATE TIME CARDINAL ORDINAL QUANTITY PERCENT MONEY")
PLACE_ENTS = _words("GPE LOC FAC ORG NORP PRODUCT EVENT WORK_OF_ART LAW LANGUAGE")
SUBJ_DEPS = _words("nsubj nsubjpass csubj")
OBJ_DEPS = _words("dobj dative iobj obj attr oprd")
#: Dependencies of a noun's clause modifiers: a pronoun inside one may refer to the noun ("Anne, who had risen to
#: her feet"), unlike one inside its own phrase ("her feet" is not "her").
CLAUSE_DEPS = _words("relcl acl")
#: Parts of names that are shared by men and women ("de" in "Raoul de Chagny"), and that are no describing word
#: when lower-case ("van Gogh").
NAME_PARTICLES = frozenset("de du la le von van der den di da del della st st.".split())
#: Words after "her" that make it a possessive even with no noun: "of her own", "with her utmost".
OWNED_WORDS = _words("own utmost")
LEFT_DEPS = _words("det poss amod compound nummod nmod predet quantmod")
# A pronoun object of these prepositions cannot be the verb's own subject ("ran after him");
# locative ones ("looked behind him") can, so they are not listed.
ARG_PREPS = _words("to at after about of from for against towards toward by")
MAX_MENTION_TOKENS = 8
