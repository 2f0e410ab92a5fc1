"""Questions that chain facts on a real index (spaCy, MiniLM) of a few encyclopedia pages written here: the default
ranking walks from the page the question names to the page its sentence leads to, and names the path."""

from __future__ import annotations

import pytest

from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import index_files
from kgcore.index.store.disk import Store
from kgcore.query import asked_kind, multihop
from kgcore.query.engine import QueryEngine

PAGES = {
    "harbour-lights.txt": "Harbour Lights\n\nHarbour Lights is a 1987 British drama film directed by Mara Okonjo. "
                          "The film follows a lighthouse keeper on the Cornish coast. It was shot in the winter of "
                          "1986 and premiered at a festival in Bristol.",
    "mara-okonjo.txt": "Mara Okonjo\n\nMara Okonjo (born 3 March 1941 in Lagos) is a Nigerian-British film director. "
                       "She studied painting in London before she made documentaries. Her films are known for long "
                       "takes of the sea.",
    "tomas-verhoek.txt": "Tomas Verhoek\n\nTomas Verhoek (born 12 June 1958) is a Dutch film director. He was born in "
                         "Rotterdam and directed films about lighthouse keepers.",
    "lighthouse.txt": "Lighthouse\n\nA lighthouse is a tower that emits light to guide ships. Keepers lived in the "
                      "lighthouse and tended the lamp. Many films show the life of a lighthouse keeper.",
}


@pytest.fixture(scope="module")
def encyclopedia(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = Store(folder / "store")
    index_files(sorted(folder.glob("*.txt")), store, "pages", workers=1)
    return QueryEngine(store)


def _ids(result, doc: str) -> list[str]:
    return [s.id for s in result.sentences if s.document == doc]


def test_a_chained_question_gets_the_linked_pages_fact_and_its_path(encyclopedia):
    question = "When was the director of Harbour Lights born?"
    result = encyclopedia.retrieve("pages", question, RetrievalOptions(budget_words=45))
    born = [s for s in result.sentences if s.document == "mara-okonjo"]
    assert born and "3 March 1941" in born[0].text
    assert born[0].signals["path"] == "Harbour Lights —directed-by→ Mara Okonjo [born-on]"
    assert _ids(result, "harbour-lights")  # the linking fact stays in the context


def test_without_the_walk_the_same_budget_misses_the_birth(encyclopedia, monkeypatch):
    question = "When was the director of Harbour Lights born?"
    with_walk = encyclopedia.retrieve("pages", question, RetrievalOptions(budget_words=45))
    monkeypatch.setattr(multihop, "ENABLED", False)
    typed = encyclopedia.retrieve("pages", question, RetrievalOptions(budget_words=45))
    monkeypatch.setattr(asked_kind, "WEIGHT", 0.0)  # nor raising the sentences that hold a date ("when")
    flat = encyclopedia.retrieve("pages", question, RetrievalOptions(budget_words=45))
    assert not any("path" in s.signals for s in flat.sentences + typed.sentences)
    assert not any("3 March 1941" in s.text for s in flat.sentences)  # the birth shares no word but "born"
    assert any("3 March 1941" in s.text for s in with_walk.sentences)
    assert any("3 March 1941" in s.text for s in typed.sentences)  # the asked kind alone finds it here


def test_a_comparison_gets_both_entities_birth_sentences(encyclopedia):
    result = encyclopedia.retrieve("pages", "Who was born first, Mara Okonjo or Tomas Verhoek?",
                                   RetrievalOptions(budget_words=40))
    texts = " ".join(s.text for s in result.sentences)
    assert "3 March 1941" in texts and "12 June 1958" in texts
