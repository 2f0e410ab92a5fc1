"""Coreference without models: backend selection, the fastcoref backend's errors and its pure
cluster -> replacement logic (with a fake model), and the shared helpers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.core.types import Sentence
from kgcore.index.coref import NoCoref, apply_replacements, get_resolver
from kgcore.index.coref.fastcoref import (
    FastCoref,
    replacements_from_clusters,
    sentence_windows,
)
from paths import ROOT
from samples import MRS_RABBIT, PAPER, PAPER_RESOLVED


def make_sentences(*texts: str) -> list[Sentence]:
    return [Sentence(f"text_0-{i}", 0, i, i, t, t, t) for i, t in enumerate(texts)]


# --- backend selection ------------------------------------------------------------------------


def test_none_backend_copies_normalized():
    out = get_resolver("none").resolve([Sentence("text_0-0", 0, 0, 0, "o", "She ran.", "")])
    assert out[0].resolved == "She ran."
    assert isinstance(get_resolver("none"), NoCoref)


def test_unknown_backend_is_an_input_error():
    with pytest.raises(InputError) as info:
        get_resolver("neural")
    assert info.value.where == "coref"


def test_importing_coref_loads_no_backend():
    code = "import sys, kgcore.index.coref; print(any(m.startswith(('torch', 'fastcoref')) for m in sys.modules))"
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
    with pytest.raises(ModelUnavailableError, match=r"pip install -r requirements-fastcoref\.txt \(fastcoref==2"):
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
    assert apply_replacements(MRS_RABBIT[0], first).startswith(
        "Then old Mrs. Rabbit took a basket and old Mrs. Rabbit's umbrella"
    )
    assert (
        apply_replacements(MRS_RABBIT[1], second)
        == "Old Mrs. Rabbit bought a loaf of brown bread and five currant buns."
    )


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
