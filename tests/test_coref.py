"""Coreference: the heuristic backend on real Peter Rabbit sentences, the fastcoref
backend's errors and its pure cluster -> replacement logic, and the shared helpers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kgcore.backends.coref_fastcoref import (
    FastCoref,
    replacements_from_clusters,
    sentence_windows,
)
from kgcore.backends.coref_heuristic import HeuristicCoref
from kgcore.coref import CorefLink, NoCoref, apply_replacements, get_resolver
from kgcore.errors import InputError, ModelUnavailableError
from kgcore.settings import Settings
from kgcore.types import Sentence

ROOT = Path(__file__).resolve().parents[1]
PAPER = "Peter's mother put Peter to bed and made some camomile tea; and she gave a dose of it to Peter!"
PAPER_RESOLVED = (
    "Peter's mother put Peter to bed and made some camomile tea; "
    "and Peter's mother gave a dose of some camomile tea to Peter!"
)
MRS_RABBIT = [
    "Then old Mrs. Rabbit took a basket and her umbrella and went through the wood to the baker's.",
    "She bought a loaf of brown bread and five currant buns.",
]


def make_sentences(*texts: str) -> list[Sentence]:
    return [Sentence(f"text_0-{i}", 0, i, i, t, t, t) for i, t in enumerate(texts)]


@pytest.fixture(scope="module")
def heuristic() -> HeuristicCoref:
    return HeuristicCoref()


@pytest.fixture(scope="module")
def resolve(heuristic):
    def run(*texts: str) -> list[str]:
        return [s.resolved for s in heuristic.resolve(make_sentences(*texts))]

    return run


# --- heuristic backend: what must be resolved -------------------------------------------------


def test_paper_example(resolve):
    (resolved,) = resolve(PAPER)
    assert "Peter's mother gave" in resolved
    assert "of some camomile tea to Peter" in resolved
    assert resolved == PAPER_RESOLVED


def test_both_he_resolve_to_peter(resolve):
    text = ("Peter was most dreadfully frightened; he rushed all over the garden, "
            "for he had forgotten the way back to the gate.")
    assert resolve(text) == [
        "Peter was most dreadfully frightened; Peter rushed all over the garden, "
        "for Peter had forgotten the way back to the gate."
    ]


def test_she_and_her_across_sentences(resolve):
    first, second = resolve(*MRS_RABBIT)
    assert "took a basket and old Mrs. Rabbit's umbrella" in first
    assert second == "Old Mrs. Rabbit bought a loaf of brown bread and five currant buns."


def test_they_takes_the_coordinated_names(resolve):
    group = "Flopsy, Mopsy and Cotton-tail who were good little bunnies went down the lane together"
    _, resolved = resolve(group, "They gathered blackberries.")
    assert resolved == "Flopsy, Mopsy and Cotton-tail gathered blackberries."


def test_they_and_their_from_the_first_page(resolve):
    first, second = resolve(
        "Once upon a time there were four little rabbits, and their names were Flopsy, Mopsy, Cotton-tail and Peter.",
        "They lived with their mother in a sand-bank, underneath the root of a very big fir tree.",
    )
    assert "and four little rabbits' names were" in first
    assert second.startswith("Four little rabbits lived with four little rabbits' mother in a sand-bank")


def test_chain_uses_resolved_text_not_pronoun(resolve):
    """``she`` -> ``His mother`` must come out as ``Peter's mother``, never ``His mother``."""
    _, resolved = resolve(
        "I am sorry to say that Peter was not very well during the evening.",
        "His mother put him to bed and made some camomile tea; and she gave a dose of it to Peter!",
    )
    assert resolved == PAPER_RESOLVED


def test_gender_and_binding_block_the_nearest_subject(resolve):
    """``her`` is the mouse, not Peter (male, and the subject of the same verb)."""
    first, second = resolve(
        "An old mouse was running in and out over the stone doorstep, carrying peas and beans to her family in the wood.",
        "Peter asked her the way to the gate.",
    )
    assert "to the old mouse's family" in first
    assert second == "Peter asked an old mouse the way to the gate."


def test_object_of_light_verb_is_not_the_subject(resolve):
    _, resolved = resolve(
        "Peter got down very quietly off the wheel-barrow.",
        "Mr. McGregor caught sight of him at the corner, but Peter did not care.",
    )
    assert resolved.startswith("Mr. McGregor caught sight of Peter at the corner")


def test_object_is_not_whoever_the_subject_is(resolve):
    """Principle B through a chain: "him" cannot be the man "He" already stands for."""
    _, resolved = resolve("Robinson Crusoe saw the savage.", "He shot him.")
    assert resolved == "Robinson Crusoe shot the savage."


def test_degree_clause_it_refers(resolve):
    _, resolved = resolve("Peter found a big stone.", "It was so heavy that he could not lift it.")
    assert resolved == "A big stone was so heavy that Peter could not lift a big stone."


def test_reflexive_binds_to_clause_subject(resolve):
    (resolved,) = resolve("Peter gave himself up for lost and shed big tears;")
    assert resolved == "Peter gave Peter up for lost and shed big tears;"


def test_it_takes_the_object_and_case_follows_position(resolve):
    _, inside = resolve("Mr. McGregor shut the gate.", "Peter could not open it.")
    assert inside == "Peter could not open the gate."
    _, initial = resolve("His mother made some camomile tea.", "It smelled of flowers.")
    assert initial == "Some camomile tea smelled of flowers."


# --- heuristic backend: what must be left alone ----------------------------------------------


def test_pleonastic_it_is_kept(resolve):
    texts = (
        "Peter lost his jacket in the garden.",
        "It was raining.",
        "It was the second little jacket and pair of shoes that Peter had lost in a fortnight!",
    )
    assert resolve(*texts)[1:] == list(texts[1:])


def test_extraposed_it_is_kept_but_her_is_resolved(resolve):
    _, resolved = resolve(
        "A white cat was staring at some gold-fish.",
        "Peter thought it best to go away without speaking to her.",
    )
    assert resolved == "Peter thought it best to go away without speaking to a white cat."


def test_first_and_second_person_are_never_changed(resolve):
    texts = ("Mrs. Rabbit spoke to Peter.", "I am going out.", "You may go into the fields.", "We ran.")
    assert resolve(*texts) == list(texts)


def test_it_without_compatible_antecedent_is_kept(resolve):
    texts = ("Mr. McGregor saw Peter and Benjamin.", "It was locked.")
    assert resolve(*texts) == list(texts)


def test_he_with_only_inanimate_candidates_is_kept(resolve):
    texts = ("The bed was soft and the tea was hot.", "He slept.")
    assert resolve(*texts) == list(texts)


def test_window_limits_the_search(heuristic):
    texts = ("Peter ran home.", "The sun was bright.", "The sky was blue.", "He slept.")
    narrow = HeuristicCoref(heuristic.nlp, window=1).resolve(make_sentences(*texts))
    wide = HeuristicCoref(heuristic.nlp, window=3).resolve(make_sentences(*texts))
    assert narrow[3].resolved == "He slept."
    assert wide[3].resolved == "Peter slept."


# --- heuristic backend: contract --------------------------------------------------------------


def test_sentences_keep_ids_order_and_texts(heuristic):
    sentences = [Sentence(f"text_1-{i}", 1, i, 10 + i, "orig " + t, t, "") for i, t in enumerate(MRS_RABBIT)]
    out = heuristic.resolve(sentences)
    assert [(s.id, s.chunk, s.index, s.position) for s in out] == [
        (s.id, s.chunk, s.index, s.position) for s in sentences
    ]
    assert [s.normalized for s in out] == MRS_RABBIT
    assert [s.original for s in out] == [s.original for s in sentences]
    assert sentences[1].resolved == ""  # inputs are not modified
    assert heuristic.resolve([]) == []


def test_unchanged_sentence_resolved_equals_normalized(heuristic):
    out = heuristic.resolve([Sentence("text_0-0", 0, 0, 0, "x", "Peter ran.", "stale")])
    assert out[0].resolved == "Peter ran."


def test_links_explain_each_replacement(heuristic):
    sentences = make_sentences(*MRS_RABBIT)
    _, links = heuristic.resolve_with_links(sentences)
    assert all(isinstance(link, CorefLink) for link in links)
    by_pronoun = {(link.sentence_id, link.pronoun): link for link in links}
    her = by_pronoun[("text_0-0", "her")]
    she = by_pronoun[("text_0-1", "She")]
    assert MRS_RABBIT[0][her.start:her.end] == "her"
    assert MRS_RABBIT[1][she.start:she.end] == "She"
    assert she.antecedent == her.antecedent == "old Mrs. Rabbit"
    assert she.antecedent_sentence_id == "text_0-0"
    assert (her.replacement, she.replacement) == ("old Mrs. Rabbit's", "Old Mrs. Rabbit")
    assert len(links) == 2


def _book_sentences() -> list[str]:
    text = (ROOT / "assets" / "peter_rabbit.txt").read_text(encoding="utf-8")
    body = text.split("*** START")[1].split("*** END")[0]
    body = re.sub(r"\[Illustration:?\]", " ", body)
    flat = re.sub(r"\s+", " ", body)
    return [s for s in re.split(r'(?<=[.!?])\s+(?=["A-Z])', flat) if s.strip()]


def test_whole_book_resolves_the_paper_sentence(heuristic):
    texts = _book_sentences()
    out = heuristic.resolve(make_sentences(*texts))
    assert len(out) == len(texts)
    resolved = [s.resolved for s in out if "camomile" in s.normalized]
    assert resolved == [PAPER_RESOLVED]
    changed = sum(s.resolved != s.normalized for s in out)
    assert 0.2 * len(out) < changed < 0.8 * len(out)


# --- backend selection ------------------------------------------------------------------------


def test_none_backend_copies_normalized():
    out = get_resolver("none").resolve([Sentence("text_0-0", 0, 0, 0, "o", "She ran.", "")])
    assert out[0].resolved == "She ran."
    assert isinstance(get_resolver("none"), NoCoref)


def test_unknown_backend_is_an_input_error():
    with pytest.raises(InputError) as info:
        get_resolver("neural")
    assert info.value.where == "coref"


def test_heuristic_is_the_default_backend():
    assert get_resolver().name == "heuristic"


def test_importing_coref_loads_no_backend():
    code = "import sys, kgcore.coref; print(any(m.startswith(('kgcore.backends', 'torch', 'fastcoref')) for m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == "False"


# --- fastcoref backend: errors ----------------------------------------------------------------


def test_fastcoref_without_path_explains_download():
    with pytest.raises(ModelUnavailableError) as info:
        get_resolver("fastcoref", Settings(fastcoref_model=""))
    message = str(info.value)
    assert "KGCORE_FASTCOREF_MODEL" in message
    assert "huggingface-cli download biu-nlp/f-coref" in message


def test_fastcoref_missing_folder_and_folder_without_weights(tmp_path):
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        FastCoref(str(tmp_path / "absent"))
    with pytest.raises(ModelUnavailableError, match="config.json") as info:
        get_resolver("fastcoref", Settings.from_env({"KGCORE_FASTCOREF_MODEL": str(tmp_path)}))
    assert "biu-nlp/f-coref" in str(info.value)
    lingmess = tmp_path / "lingmess-coref"
    lingmess.mkdir()
    with pytest.raises(ModelUnavailableError, match="biu-nlp/lingmess-coref"):
        get_resolver("fastcoref", Settings(fastcoref_model=str(lingmess)))


def test_fastcoref_missing_package(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "fastcoref", None)
    with pytest.raises(ModelUnavailableError, match=r"pip install fastcoref==2\.1\.6"):
        FastCoref(str(tmp_path))


def test_fastcoref_unknown_kind(tmp_path):
    with pytest.raises(InputError):
        FastCoref(str(tmp_path), kind="bert")


# --- fastcoref backend: pure cluster logic ----------------------------------------------------


def _span(text: str, mention: str, after: int = 0) -> tuple[int, int]:
    start = text.index(mention, after)
    return start, start + len(mention)


def test_clusters_resolve_the_paper_sentence():
    she, it = _span(PAPER, "she"), _span(PAPER, " it ")
    clusters = [
        [(0, 14), she],
        [_span(PAPER, "some camomile tea"), (it[0] + 1, it[1] - 1)],
        [(0, 5), _span(PAPER, "Peter", 6), _span(PAPER, "Peter", 30)],
    ]
    assert clusters[0][0] == (0, 14) and PAPER[0:14] == "Peter's mother"
    (replacements,) = replacements_from_clusters(PAPER, clusters, [0])
    assert apply_replacements(PAPER, replacements) == PAPER_RESOLVED


def test_clusters_across_sentences_map_back_to_each_sentence():
    text = " ".join(MRS_RABBIT)
    offsets = [0, len(MRS_RABBIT[0]) + 1]
    cluster = [_span(text, "old Mrs. Rabbit"), _span(text, "her"), _span(text, "She")]
    first, second = replacements_from_clusters(text, [cluster], offsets)
    assert apply_replacements(MRS_RABBIT[0], first).startswith("Then old Mrs. Rabbit took a basket and old Mrs. Rabbit's umbrella")
    assert apply_replacements(MRS_RABBIT[1], second) == "Old Mrs. Rabbit bought a loaf of brown bread and five currant buns."


def test_clusters_leave_non_third_person_and_pronoun_only_clusters():
    text = "I saw Peter. He waved at me. They left; it rained."
    clusters = [
        [_span(text, "I"), _span(text, "me")],
        [_span(text, "Peter"), _span(text, "He")],
        [_span(text, "They"), _span(text, "it")],
        [(None, None), _span(text, "Peter")],
    ]
    (replacements,) = replacements_from_clusters(text, clusters, [0])
    assert apply_replacements(text, replacements) == "I saw Peter. Peter waved at me. They left; it rained."


def test_clusters_prefer_proper_names_and_tell_her_apart():
    text = "The old mouse ran. Peter asked her the way but Mrs. Mouse shook her head."
    cluster = [_span(text, "The old mouse"), _span(text, "her"), _span(text, "Mrs. Mouse"), _span(text, "her", 50)]
    (replacements,) = replacements_from_clusters(text, [cluster], [0])
    assert apply_replacements(text, replacements) == (
        "The old mouse ran. Peter asked Mrs. Mouse the way but Mrs. Mouse shook Mrs. Mouse's head."
    )


def test_sentence_windows_cover_every_sentence_once():
    texts = [f"Sentence {i}." for i in range(7)]
    windows = sentence_windows(texts, window=3, context=2)
    targets = [i for _, _, _, target in windows for i in target]
    assert targets == list(range(7))
    for first, text, offsets, _ in windows:
        for k, offset in enumerate(offsets):
            assert text[offset:offset + len(texts[first + k])] == texts[first + k]


class _FakeResult:
    def __init__(self, clusters):
        self.clusters = clusters

    def get_clusters(self, as_strings=True):
        assert as_strings is False
        return self.clusters


class _FakeModel:
    """Clusters "Peter's mother"/"she" and "some camomile tea"/"it" wherever they occur."""

    def predict(self, texts):
        results = []
        for text in texts:
            clusters = []
            for name, pronoun in (("Peter's mother", " she "), ("some camomile tea", " it ")):
                if name in text and pronoun in text:
                    start = text.index(pronoun) + 1
                    clusters.append([_span(text, name), (start, start + len(pronoun) - 2)])
            results.append(_FakeResult(clusters))
        return results


def test_fastcoref_resolver_maps_windows_back(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    resolver = FastCoref(str(tmp_path), window=1, context=1)
    resolver._model = _FakeModel()
    texts = ["Peter's mother made some camomile tea.", "And she gave a dose of it to Peter!"]
    out, links = resolver.resolve_with_links(make_sentences(*texts))
    assert [s.resolved for s in out] == [
        texts[0], "And Peter's mother gave a dose of some camomile tea to Peter!",
    ]
    assert {(link.pronoun, link.antecedent, link.antecedent_sentence_id) for link in links} == {
        ("she", "Peter's mother", "text_0-0"), ("it", "some camomile tea", "text_0-0"),
    }


# --- shared helper ------------------------------------------------------------------------------


def test_apply_replacements_any_order_and_rejects_overlap():
    text = "she gave it to him"
    replacements = [(15, 18, "Peter"), (0, 3, "Mother"), (9, 11, "tea")]
    assert apply_replacements(text, replacements) == "Mother gave tea to Peter"
    assert apply_replacements(text, []) == text
    with pytest.raises(InputError):
        apply_replacements(text, [(0, 4, "x"), (3, 6, "y")])
    with pytest.raises(InputError):
        apply_replacements(text, [(10, 99, "x")])
