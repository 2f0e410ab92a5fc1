"""Respelling a question's words in the collection's spelling (kgcore.query.spelling), with Debian's WordNet
deciding which words are English."""

from wordnetkit import requires_wordnet

from kgcore.query.spelling import Respelled, Vocabulary, asked, respell

BOOK = Vocabulary.of(["Mr. McGregor planted lettuces.", "McGregor ran after Peter.", "Émile Zola wrote novels.",
                      "Zola died in Paris.", "Maëlys drove west.", "Maëlys wrote on a scroll.",
                      "Captain Harville smiled once.", "A self-possessed lady laughed.", "Laughter filled the hall."])


@requires_wordnet
def test_a_name_takes_the_collections_own_written_form():
    out = respell("What did Mr. McGreggor plant?", BOOK)
    assert out == Respelled("What did Mr. McGregor plant?", (("McGreggor", "McGregor"),))
    assert respell("Where did Maelys drive?", BOOK).changes == (("Maelys", "Maëlys"),)  # an accent is one edit
    assert respell("Where did MAELYS drive?", BOOK).text == "Where did Maëlys drive?"


@requires_wordnet
def test_what_stays_as_written():
    for question in ("Who smiled, Harvell?",          # the book writes Harville once: no evidence of its spelling
                     "What caused the slaughter?",    # English, though the book writes only "laughter"
                     "Was she self-posessed?",        # part of a hyphenated word
                     "Where is Zolly?",               # five letters, two edits from "Zola": too far
                     "Why did Beatrix cry?",          # nothing near enough
                     "Who is Mr. McGregor?"):         # written by the collection
        assert respell(question, BOOK).changes == (), question
    assert asked("What did Mr. McGreggor plant?", None) == Respelled("What did Mr. McGreggor plant?")


def test_the_note_names_every_change():
    assert Respelled("q").note() == ""
    assert Respelled("q", (("Elliott", "Elliot"), ("Harvell", "Harville"))).note() == (
        "Read with the spelling of the collection: Elliott as “Elliot”, Harvell as “Harville” (words it never writes).")


@requires_wordnet
def test_each_rule_that_left_a_word_alone_is_the_one_that_decides():
    assert respell("Where is Zolaa?", BOOK).changes == (("Zolaa", "Zola"),)  # six letters: two edits allowed
    twice = Vocabulary.merged([BOOK, Vocabulary.of(["Harville left."])])  # a second shard writes it too
    assert respell("Who smiled, Harvell?", twice).changes == (("Harvell", "Harville"),)
