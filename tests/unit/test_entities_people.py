"""The cues a person's name leaves in papers (kgcore.index.views.entities.people): reference entries' author
surnames and the citations that make a surname a cited author."""

from __future__ import annotations

from kgcore.core.types import Sentence
from kgcore.index.views.entities.people import Authors, author_surnames, cited_person, written_for_pronoun


def _sentence(text: str, *citations: str, doc: str = "paper") -> Sentence:
    return Sentence(f"{doc}-s", 0, 0, 0, text, text, text, doc_id=doc, citations=citations)


def test_an_organisations_author_field_gives_no_surname():
    fields = ["IBM Corporation (2013)", "R Core Team", "SAS Institute Inc.", "Pew Research Center",
              "Google Research", "Apache Software Foundation"]
    assert author_surnames(fields) == frozenset()
    assert author_surnames(["Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung", "Kandel S, Paepcke A (2011)"]) \
        == {"ghemawat", "gobioff", "leung", "kandel", "paepcke"}


AUTHORS = Authors(frozenset({"bing", "lam", "brooks"}), {("paper", "ref-1"): frozenset({"bing", "lam"}),
                                                        ("paper", "ref-2"): frozenset({"brooks"})})


def test_a_numbered_bracket_that_resolved_to_nothing_is_no_citation():
    for text in ("We query Bing and keep pages whose scores fall in [0.5, 0.9].",
                 "Bing returns the vector x[3] for each page.", "We query Bing [0, 1] times a second."):
        assert not cited_person("Bing", [_sentence(text)], AUTHORS), text


def test_a_surname_cited_by_number_is_an_author_of_the_entry_cited():
    assert cited_person("Lam", [_sentence("Lam [1] reads pages with a graph.", "ref-1")], AUTHORS)
    assert not cited_person("Bing", [_sentence("We query Bing as in [2].", "ref-2")], AUTHORS)  # Brooks's entry
    assert not cited_person("Bing", [_sentence("We query Bing as in [1].", "ref-1", doc="other")], AUTHORS)


def test_a_citation_by_key_or_year_still_counts():
    assert cited_person("Brooks", [_sentence("As Brooks noted [Bro86], state is hard.")], AUTHORS)
    assert cited_person("Brooks", [_sentence("Brooks argued this (Brooks, 1986) at length.")], AUTHORS)
    assert not cited_person("Chubby", [_sentence("Chubby noted [Bro86] locks.")], AUTHORS)  # no author's surname


def test_a_name_coreference_wrote_for_he_or_she_is_referred_to_as_a_person():
    def said(text: str, resolved: str) -> Sentence:
        return Sentence("s", 0, 0, 0, text, text, resolved)

    assert written_for_pronoun("Jeff Dean", [said("He designed Bigtable.", "Jeff Dean designed Bigtable.")])
    assert written_for_pronoun("Dean", [said("His team built it.", "Jeff Dean's team built it.")])
    assert not written_for_pronoun("Bigtable", [said("It stores tablets.", "Bigtable stores tablets.")])
    assert not written_for_pronoun("Neuilly-sur-Seine", [said(
        "Mayor of Neuilly-sur-Seine from 1983, he was Minister.",
        "Mayor of Neuilly-sur-Seine from 1983, Mayor of Neuilly-sur-Seine was Minister.")])
    assert not written_for_pronoun("Dean", [said("Dean designed it.", "Dean designed it.")])
