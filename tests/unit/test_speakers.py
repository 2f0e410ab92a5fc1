"""The speakers of quotations, pure rules: attribution, ambiguity, continued speech, the narrator's "said I"."""

from __future__ import annotations

from kgcore.core.types import Sentence
from kgcore.index.speakers import resolve_speakers


def paragraphs(*paras: list[str]) -> list[Sentence]:
    """Sentences numbered in order, ``paras`` giving each paragraph's sentences."""
    texts = [(p, t) for p, sentences in enumerate(paras) for t in sentences]
    return [Sentence(f"text_0-{i}", 0, i, i, t, t, t, paragraph=p) for i, (p, t) in enumerate(texts)]


def resolved(*paras: list[str], narrator: str = "") -> list[str]:
    return [s.resolved for s in resolve_speakers(paragraphs(*paras), narrator)[0]]


def test_one_named_speaker_owns_the_first_person_of_the_paragraphs_quotations():
    assert resolved(['"I lost my key," said M. Richard.', '"Find it for me."'], ["I went home."]) == [
        '"M. Richard lost M. Richard\'s key," said M. Richard.', '"Find it for M. Richard."', "I went home."]
    assert resolved(['Then Raoul said, "I know."']) == ['Then Raoul said, "Raoul know."']


def test_two_speakers_or_a_speech_verb_naming_nobody_leave_the_paragraph_alone():
    two = ['"I go," said Raoul; "I stay," Christine replied.']
    unnamed = ['"I go," said Raoul.', '"And I stay," says he.']
    assert resolved(two) == two[:1] and resolved(unnamed) == unnamed
    assert resolved(['"I go," he said.']) == ['"I go," he said.']


def test_a_paragraph_continuing_an_open_quotation_keeps_its_speaker():
    paras = (['Christine said: "I was a child then.'], ['"I sang every night.'], ['"I sang," she sighed.'])
    assert resolved(*paras) == ['Christine said: "Christine was a child then.', '"Christine sang every night.',
                                '"I sang," she sighed.']


def test_said_i_names_the_narrator():
    assert resolved(['"I will build a hut," said I.'], narrator="Tom Harlow") == [
        '"Tom Harlow will build a hut," said I.']
    assert resolved(['"I will build a hut," said I.']) == ['"I will build a hut," said I.']
