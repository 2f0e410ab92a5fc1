"""Respelling a question's misspelt names in the collection's spelling (kgcore.query.spelling), with Debian's WordNet
deciding which words are English: each rule that keeps a word as written has a case that it alone decides."""

from wordnetkit import requires_wordnet

from kgcore.query.spelling import Respelled, Vocabulary, asked, name_shaped, respell

# Each name is written at least twice where no sentence starts, except where a case needs otherwise.
BOOK = Vocabulary.of([
    "Then Mr. Elliot came.", "So Mr. Elliot left.", "Then Captain Harville smiled.", "So Harville sat.",
    "Then Mr. McGregor planted lettuces.", "So McGregor ran after Peter.", "Then Maëlys drove west.",
    "So Maëlys wrote.", "Then Émile Zola wrote novels.", "So Zola died.", "Then Mr Potter rang.", "So Potter slept.",
    "So Roberts typed.", "Then Roberts read.", "However, it rained.", "However, it snowed.", "However, it froze.",
    "Then Clifford sighed.", "So Clifford wept.", "Then Mr Brandon bowed.", "So Brandon rode away."])


@requires_wordnet
def test_a_misspelt_name_takes_the_collections_own_written_form():
    assert respell("What did Mr. McGreggor plant?", BOOK) == Respelled("What did Mr. McGregor plant?",
                                                                      (("McGreggor", "McGregor"),))
    assert respell("Where did Maelys drive?", BOOK).changes == (("Maelys", "Maëlys"),)  # an accent is one edit
    assert respell("Did Harvell meet Elliott?", BOOK).changes == (("Harvell", "Harville"), ("Elliott", "Elliot"))


@requires_wordnet
def test_a_possessive_keeps_its_ending_and_a_name_asked_twice_is_noted_once():
    out = respell("Was Elliott's house like Elliott’s ship?", BOOK)
    assert out.text == "Was Elliot's house like Elliot’s ship?" and out.changes == (("Elliott", "Elliot"),)


@requires_wordnet
def test_each_rule_that_keeps_a_word_as_written():
    cases = {
        "What did the Porter say?": "English (WordNet's porter), though one edit from the book's Potter",
        "Was it Elliott-Smith?": "part of a hyphenated word",
        "Where is Zolla?": "five letters: too short, though one edit from Zola",
        "Does it use RoBERTa?": "no name's shape, though one edit from Roberts",
        "Elliott left when?": "the first word (capitalised by position, as 'Descrbe' would be)",
        "Did it rain, Howevar?": "However is written only where sentences start: no name",
        "Why did Cliffords weep?": "BM25 stems it to the book's Clifford already",
        "Who is Brendun?": "two edits from Brandon, and neither has eight letters: one allowed",
        "Who is Potters?": "its stem is written",
        "Did Maelyss drive?": "Maëlys is two edits away and six letters long",
    }
    for question, why in cases.items():
        assert respell(question, BOOK).changes == (), why
    assert respell("Who is Harvelle?", BOOK).changes == (("Harvelle", "Harville"),)  # eight letters: two edits
    once = Vocabulary.of(["Then Mr Elliot came."])
    assert respell("Who is Elliott?", once).changes == ()  # written once: no evidence of the spelling
    assert asked("What did Mr. McGreggor plant?", None) == Respelled("What did Mr. McGreggor plant?")


def test_the_note_and_the_shape_of_a_name():
    assert Respelled("q").note() == ""
    assert Respelled("q", (("Elliott", "Elliot"), ("Harvell", "Harville"))).note() == (
        "Read with the spelling of the collection: Elliott as “Elliot”, Harvell as “Harville” (names it never writes).")
    assert [name_shaped(w) for w in ("Zoë", "MacDonald", "BERT", "x")] == [True, True, False, False]


def test_merged_counts_are_one_collections_and_ties_break_one_way():
    parts = [Vocabulary.of(["So McGregor ran."]), Vocabulary.of(["So Mcgregor ran."])]
    one = Vocabulary.of(["So Mcgregor ran.", "So McGregor ran."])
    merged = Vocabulary.merged(parts)
    assert merged == one and merged.forms == one.forms == Vocabulary.merged(parts[::-1]).forms
    assert merged.named == {"mcgregor": 2}
