"""The narrator of first-person books, pure rules: quotes, first-person share, self-naming, resolution, options."""

from __future__ import annotations

import pytest

from kgcore.core.errors import InputError
from kgcore.core.settings import IndexOptions, check_narrator_option
from kgcore.core.types import Sentence
from kgcore.index.narrator import (
    find_narrator_name,
    first_person_share,
    narrator_for,
    outside_quotes,
    resolve_first_person,
    resolve_narrator,
)


def sentences(*texts: str, chunk: int = 0) -> list[Sentence]:
    return [Sentence(f"text_{chunk}-{i}", chunk, i, i, t, t, t) for i, t in enumerate(texts)]


# -- pure rules --------------------------------------------------------------------------------


def test_quotes_are_tracked_across_sentences_and_reopened_paragraphs():
    ranges, inside = outside_quotes('"I came here long ago.')
    assert ranges == [] and inside
    ranges, inside = outside_quotes('"And I stayed," he said.', inside=True)  # a continued quote re-opened
    assert inside is False and 'he said.' in "".join('"And I stayed," he said.'[a:b] for a, b in ranges)
    assert outside_quotes("No quotes at all.") == ([(0, 17)], False)


def test_first_person_share_ignores_dialogue():
    assert first_person_share(['"I am here," said Peter.', '"I know," said his mother.', "Peter ran."]) == 0
    assert first_person_share(["I ran.", "My father stayed.", "The sea rose.", "It rained."]) == 0.5


@pytest.mark.parametrize("text, name", [
    ("Call me Ishmael.", "Ishmael"),
    ("My name is Tom Harlow, and I was born by the sea.", "Tom Harlow"),
    ("September 30, 1659.--I, poor miserable Robinson Crusoe, being shipwrecked", "Robinson Crusoe"),
    ("I, Sir, will not go.", ""),
    ("They called me a fool.", ""),
])
def test_self_naming_patterns(text, name):
    assert find_narrator_name([text])[0] == name


def test_resolution_rewrites_narration_only():
    text, count = resolve_first_person('My father said, "I will go," and I stayed with mine.', "Tom")
    assert text == "Tom's father said, \"I will go,\" and Tom stayed with Tom's." and count == 3
    assert resolve_first_person("CHAPTER I", "Tom") == ("CHAPTER I", 0)
    assert resolve_first_person("I.", "Tom") == ("I.", 0) and resolve_first_person("I ran.", "Tom") == ("Tom ran.", 1)
    assert resolve_first_person("He was as tired as I.", "Tom") == ("He was as tired as Tom.", 1)
    assert resolve_first_person("I'm sure of it.", "Tom") == ("I'm sure of it.", 0)


def test_the_narrations_we_is_the_narrator_and_companions():
    """A first-person narrator's "we" includes the narrator: plural, so the verb still agrees; speech keeps its own
    "we", and "we'll"/"US" are left alone as "I'm" is."""
    text, count = resolve_first_person('We stayed twenty days, and the snow kept us; "we will go," said he.', "Tom")
    assert text == 'Tom and companions stayed twenty days, and the snow kept Tom and companions; "we will go," said he.'
    assert count == 2
    assert resolve_first_person("Our boat held ours, and we rowed ourselves.", "Tom") == (
        "Tom's boat held Tom's, and Tom and companions rowed themselves.", 4)
    assert resolve_first_person("We'll go to the US.", "Tom") == ("We'll go to the US.", 0)
    assert first_person_share(["We ran.", "We swam."]) == 0  # only "I" makes a book first-person


def test_quote_state_resets_at_chunk_boundaries():
    first = sentences('"I shall speak long.')
    second = sentences("I went home.", chunk=1)
    out, narrator = resolve_narrator(first + second, narrator_for(first + second, "Tom"))
    assert out[0].resolved == '"I shall speak long.' and out[1].resolved == "Tom went home." and narrator.resolved == 1


def test_a_quote_mark_that_ends_a_cut_speech_closes_it():
    """Defoe: '"So you kill them?" says I; "why, you have no guns.' / '" -- "No," says he, ...': the sentence
    splitter cut after "guns."; the next sentence's opening quote mark closes that speech, it does not re-open
    it (which hid the narrator for the rest of the chapter)."""
    texts = ['"So you kill them?" says I; "why, you have no guns.', '" -- "No," says he, "no gun."',
             "Then I went on."]
    out, narrator = resolve_narrator(sentences(*texts), narrator_for(sentences(*texts), "Tom"))
    assert [s.resolved for s in out] == ['"So you kill them?" says Tom; "why, you have no guns.',
                                         '" -- "No," says he, "no gun."', "Then Tom went on."]
    assert narrator.resolved == 2


def test_quote_state_resets_at_a_paragraph_not_opening_with_a_quote_mark():
    """A stray quote mark leaves at most its paragraph inside a quotation; a speech running over paragraphs
    re-opens each with a quote mark and stays a speech."""
    def paragraphs(*texts):
        return [Sentence(f"text_0-{i}", 0, i, i, t, t, t, paragraph=i) for i, t in enumerate(texts)]

    texts = ['He shouted "Stop and left.', "I followed him.", '"I speak on,', '"and I end here," I said.']
    out, _ = resolve_narrator(paragraphs(*texts), narrator_for(paragraphs(*texts), "Tom"))
    assert [s.resolved for s in out][1:] == ["Tom followed him.", '"I speak on,', '"and I end here," Tom said.']


def test_narrator_options():
    assert narrator_for(sentences("I ran.", "I slept."), "none") is None
    assert narrator_for(sentences("Peter ran.", "Peter slept."), "auto") is None
    unnamed = narrator_for(sentences("I ran.", "I slept."), "auto")
    assert unnamed.name == "" and unnamed.source == "none" and unnamed.first_person_share == 1.0
    out, same = resolve_narrator(sentences("I ran."), unnamed)
    assert out[0].resolved == "I ran." and same.resolved == 0
    assert narrator_for(sentences("I ran."), "Jane Eyre").source == "user"
    assert check_narrator_option(" AUTO ") == "auto" and check_narrator_option("Jane  Eyre") == "Jane Eyre"
    for bad in ("", "x" * 81, "Robert'); DROP", "Jane\nEyre"):
        with pytest.raises(InputError, match="narrator"):
            IndexOptions(narrator=bad)
