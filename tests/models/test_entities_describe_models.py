"""Grounded entity descriptions with the real spaCy and MiniLM on self-written texts: every description sentence
is a grounding sentence of its entity, descriptions are stored with the index and reused incrementally, and the
LLM path (a real HTTP server on 127.0.0.1) is accepted, retried once, or falls back to the extractive one."""

from __future__ import annotations

import numpy as np
import pytest
from chatkit import ChatServer, completion

from kgcore.core.chat import ChatClient
from kgcore.core.settings import Settings
from kgcore.index.pipeline import Job, index_files, remove_documents
from kgcore.index.store.disk import Store
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.entities import describe as describe_mod
from kgcore.index.views.entities import entity_groups
from kgcore.index.views.entities.describe import (
    EXTRACTIVE,
    LLM,
    describe,
    entity_description,
    entity_descriptions,
    grounding_hash,
)
from kgcore.query.engine import QueryEngine
from samples import COUNCIL, LIGHT

PAINTER = ("A young painter named Ilya Sorn visited Gull Rock in the summer. Ilya Sorn painted the lighthouse at "
           "sunset. Marta Vell showed Ilya Sorn the great lamp. Ilya Sorn sold the painting in Port Ness.")
SETTINGS = Settings(entity_min_grounding=3)


def _job(name: str, text: str) -> Job:
    return Job(name, data=text.encode("utf-8"))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("entities"))
    index_files([_job("light.txt", LIGHT), _job("council.txt", COUNCIL)], store, "harbour", workers=1)
    return store


@pytest.fixture(scope="module")
def engine(store):
    return QueryEngine(store)


def _group(index, name):
    return next(g for g in entity_groups(index) if g.name == name)


def test_every_description_sentence_is_a_grounding_sentence_of_its_entity(engine):
    index = engine.index("harbour")
    found = entity_descriptions(index, engine.embedder, SETTINGS)
    groups = {g.entity_id: g for g in entity_groups(index)}
    expected = {g.entity_id for g in groups.values() if len(g.grounded_texts) >= 3}
    assert set(found.entity_ids) == expected and {"marta vell", "harbour council", "port ness"} <= expected
    for d in found.descriptions:
        assert d.method == EXTRACTIVE and 1 <= len(d.sentences) <= 3
        for sentence in d.sentences:
            (cited,) = sentence.cites
            assert cited in groups[d.entity_id].grounded_texts
            assert sentence.text == index.sentence(cited).original
    port = found.of("port ness")
    assert {index.sentence(i).doc_id for i in port.cited} == {"light", "council"}  # novelty reaches both documents
    assert found.vectors.shape == (len(expected), engine.embedder.dim)
    assert np.allclose(np.linalg.norm(found.vectors, axis=1), 1.0, atol=1e-4)
    # The vector is the description's own embedding: nearest to its own entity's text of all descriptions.
    row = found.row("harbour council")
    probe = engine.embedder.encode(["The Harbour Council repairs piers and sets fees."])[0]
    assert int(np.argmax(found.vectors @ probe)) == row


def test_descriptions_are_stored_with_the_index_and_read_back(store, engine, monkeypatch):
    index = store.load("harbour")
    built = entity_descriptions(index, engine.embedder, SETTINGS)
    assert (index.path / linked_folder(index.manifest.generation) / describe_mod.STORED).exists()
    monkeypatch.setattr(describe_mod, "build", lambda *a, **k: pytest.fail("stored descriptions must be read"))
    again = entity_descriptions(store.load("harbour"), engine.embedder, SETTINGS)
    assert again.loaded == len(built.descriptions) and again.descriptions == built.descriptions
    assert np.array_equal(again.vectors, built.vectors)
    # Another threshold is another signature: not read from the file of this one.
    monkeypatch.undo()
    fewer = entity_descriptions(store.load("harbour"), engine.embedder, Settings(entity_min_grounding=5))
    assert fewer.loaded == 0 and set(fewer.entity_ids) == {"marta vell"}


def test_one_entity_is_described_alone_as_the_full_build_describes_it(tmp_path, engine):
    """The Entity page describes its one entity without building (and encoding) every entity's description."""
    store = Store(tmp_path)
    index_files([_job("light.txt", LIGHT), _job("council.txt", COUNCIL)], store, "harbour", workers=1)
    index = store.load("harbour")
    stored = index.path / linked_folder(index.manifest.generation) / describe_mod.STORED
    groups = [g for g in entity_groups(index) if len(g.grounded_texts) >= 3]
    alone = {g.entity_id: entity_description(index, g, engine.embedder, SETTINGS) for g in groups}
    assert not stored.exists() and index.cache.peek(describe_mod.DESCRIPTIONS) is None
    rare = next(g for g in entity_groups(index) if len(g.grounded_texts) < 3)
    assert entity_description(index, rare, engine.embedder, SETTINGS) is None
    full = entity_descriptions(store.load("harbour"), engine.embedder, SETTINGS)
    assert alone == {d.entity_id: d for d in full.descriptions} and stored.exists()
    again = store.load("harbour")  # once stored, a page reads the collection's descriptions
    assert entity_description(again, groups[0], engine.embedder, SETTINGS) == full.of(groups[0].entity_id)
    assert again.cache.peek(describe_mod.DESCRIPTIONS).loaded == len(full.descriptions)


def test_adding_and_removing_a_document_redescribes_only_changed_entities(tmp_path, engine):
    store = Store(tmp_path)
    index_files([_job("light.txt", LIGHT), _job("council.txt", COUNCIL)], store, "c", workers=1)
    first_index = store.load("c")
    first = entity_descriptions(first_index, engine.embedder, SETTINGS)
    hashes = {g.entity_id: grounding_hash(first_index, g) for g in entity_groups(first_index)}
    index_files([_job("painter.txt", PAINTER)], store, "c", workers=1)
    index = store.load("c")
    second = entity_descriptions(index, engine.embedder, SETTINGS)
    changed = {g.entity_id for g in entity_groups(index) if len(g.grounded_texts) >= 3
               and hashes.get(g.entity_id) != grounding_hash(index, g)}
    assert {"marta vell", "port ness", "ilya sorn"} <= changed and "harbour council" not in changed
    assert (second.built, second.reused) == (len(changed), len(second.descriptions) - len(changed))
    assert second.of("harbour council") == first.of("harbour council")
    assert np.array_equal(second.vectors[second.row("harbour council")], first.vectors[first.row("harbour council")])
    assert any(index.sentence(i).doc_id == "painter" for i in _group(index, "Marta Vell").grounded_texts)
    remove_documents(store, "c", ["painter"])
    third = entity_descriptions(store.load("c"), engine.embedder, SETTINGS)
    assert third.reused >= 1 and "ilya sorn" not in third.entity_ids
    assert third.of("harbour council") == first.of("harbour council")


# -- the LLM path, against a real HTTP server -------------------------------------------------------------------
def Endpoint(script) -> ChatServer:  # noqa: N802 - reads as the server it returns
    """A local chat endpoint answering request n with ``script[n - 1]`` (the last for later ones): (status, text),
    the text a string or a function of the prompt; an error status carries the text as its message."""
    script = list(script)

    def respond(body: dict, n: int) -> tuple[int, dict, float]:
        status, text = script[min(n, len(script)) - 1]
        if callable(text):  # a reply made from the prompt
            text = text(body["messages"][0]["content"])
        return status, completion(text, "m") if status == 200 else {"error": {"message": text}}, 0.0

    return ChatServer(respond)


def _chat(url: str) -> ChatClient:
    settings = Settings(openai_base_url=url, openai_model="test-model", openai_timeout_s=5.0, openai_retries=1,
                        entity_describe_llm=True)
    return ChatClient(settings, "Entity description", backoff_s=0.01)


def _llm_case(engine, script):
    index = engine.index("harbour")
    group = _group(index, "Marta Vell")
    with Endpoint(script(group)) as server:
        result = describe(index, group, grounding_hash(index, group), _chat(server.url))
    return index, group, result, server.prompts


def test_llm_description_citing_the_entitys_own_sentences_is_accepted(engine):
    def script(group):
        a, b = group.grounded_texts[0], group.grounded_texts[3]
        return [(200, f"Marta Vell kept the lighthouse on Gull Rock [{a}]. She rescued two fishermen [{b}, {a}].")]

    index, group, result, prompts = _llm_case(engine, script)
    assert result.method == LLM and len(prompts) == 1
    assert [s.text for s in result.sentences] == ["Marta Vell kept the lighthouse on Gull Rock.",
                                                  "She rescued two fishermen."]
    assert result.sentences[1].cites == (group.grounded_texts[3], group.grounded_texts[0])
    assert all(f"[{sid}]" in prompts[0] for sid in group.grounded_texts)  # the prompt lists the entity's grounding


def test_llm_description_with_a_foreign_id_is_retried_once_and_then_accepted(engine):
    def script(group):
        foreign = "council/text_0-1"
        assert foreign not in group.grounded_texts
        return [(200, f"Marta Vell repaired the pier [{foreign}]."),
                (200, f"Marta Vell kept the lighthouse [{group.grounded_texts[0]}].")]

    _, group, result, prompts = _llm_case(engine, script)
    assert len(prompts) == 2 and "rejected" in prompts[1] and "council/text_0-1" in prompts[1]
    assert result.method == LLM and result.cited == (group.grounded_texts[0],)


def test_llm_description_rejected_twice_falls_back_to_the_extractive_one(engine):
    _, group, result, prompts = _llm_case(engine, lambda g: [(200, "Marta Vell is a lighthouse keeper."),
                                                             (200, "She is brave. She is kind [x/text_0-0].")])
    index = engine.index("harbour")
    assert len(prompts) == 2 and result.method == EXTRACTIVE and "rejected twice" in result.note
    assert result.sentences == describe(index, group, result.grounding_hash).sentences


def test_llm_http_error_falls_back_to_the_extractive_one(engine):
    _, group, result, prompts = _llm_case(engine, lambda g: [(500, "the model is overloaded")])
    assert len(prompts) == 1 and result.method == EXTRACTIVE and "HTTP 500" in result.note
    assert set(result.cited) <= set(group.grounded_texts)


# -- the structured overview ------------------------------------------------------------------------------------
def test_overview_ranks_central_entities_and_cites_every_statement(store, engine, tmp_path):
    from kgcore.cli import main
    from kgcore.index.views.entities.overview import collection_overview, entity_links, overview_markdown

    index = engine.index("harbour")
    ov = collection_overview(index, engine.embedder, SETTINGS, top=4, depth=2)
    groups = {g.entity_id: g for g in entity_groups(index)}
    links = entity_links(index)
    assert ov.central[0].entity_id == "marta vell"  # the most linked entity of the two texts
    assert [c.pagerank for c in ov.central] == sorted((c.pagerank for c in ov.central), reverse=True)
    row = next(i for i, g in enumerate(links.groups) if g.entity_id == "marta vell")
    assert ov.central[0].degree == links.matrix.indptr[row + 1] - links.matrix.indptr[row]
    assert sorted(e for members in ov.subtopics for e in members) == sorted(c.entity_id for c in ov.central)
    for c in ov.central:
        assert c.within[0] <= c.within[1]
        assert all(set(s.cites) <= set(groups[c.entity_id].grounded_texts) for s in c.description)
        for other, _name, statement in c.neighbours:
            (sid,) = statement.cites
            assert sid in groups[c.entity_id].grounded_texts and sid in groups[other].grounded_texts
    markdown = overview_markdown(ov)
    statements = [line for line in markdown.splitlines() if line and not line.startswith(("#", "|", "Linked to"))]
    assert len(statements) > 5 and all(line.endswith("]") for line in statements[1:])
    out = tmp_path / "overview.md"
    assert main(["overview", "--store", str(store.root), "--collection", "harbour", "--kind", "entities", "--top",
                 "4", "--out", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[0] == "# Overview of harbour"


def test_build_with_the_llm_describes_every_entity_and_keys_its_store_to_the_model(engine, tmp_path):
    import re

    def reply(prompt: str) -> str:
        first = re.search(r"^\[([^\]]+)\]", prompt, re.MULTILINE).group(1)
        return f"It is named in the collection [{first}]."

    index = engine.index("harbour")
    with Endpoint([(200, reply)]) as server:
        settings = Settings(openai_base_url=server.url, openai_model="test-model", openai_retries=1,
                            entity_describe_llm=True, entity_min_grounding=3)
        found = describe_mod.build(index, engine.embedder, settings)
    assert len(server.prompts) == len(found.descriptions) == 3
    assert all(d.method == LLM and d.sentences[0].text == "It is named in the collection." for d in found.descriptions)
    groups = {g.entity_id: g for g in entity_groups(index)}
    assert all(set(d.cited) <= set(groups[d.entity_id].grounded_texts) for d in found.descriptions)
    assert describe_mod.signature(engine.embedder, settings) != describe_mod.signature(engine.embedder, SETTINGS)


def test_a_merge_decision_redescribes_the_merged_entity_and_reuses_the_rest(tmp_path, engine):
    """A person's merge changes entities within one generation: the stored descriptions no longer apply to it,
    the merged entity is described again from its whole grounding and every other description is reused."""
    from kgcore.index.views.entities import review
    from kgcore.index.views.entities.decisions import CONFIRMED

    store = Store(tmp_path)
    index_files([_job("light.txt", LIGHT), _job("council.txt", COUNCIL)], store, "harbour", workers=1)
    index = store.load("harbour")
    before = entity_descriptions(index, engine.embedder, SETTINGS)
    described = sorted((g for g in entity_groups(index) if before.of(g.entity_id) is not None),
                       key=lambda g: -len(g.grounded_texts))
    a, b = described[0], described[1]
    review.record(index, a.node_ids[0], b.node_ids[0], CONFIRMED, "ann")
    merged = next(g for g in entity_groups(index) if set(a.node_ids) | set(b.node_ids) <= set(g.node_ids))
    after = entity_descriptions(index, engine.embedder, SETTINGS)  # the same loaded index: no stale cache
    assert after.of(merged.entity_id).grounding_hash == grounding_hash(index, merged)
    assert after.built >= 1 and after.reused == len(after.descriptions) - after.built > 0
    assert {c for s in after.of(merged.entity_id).sentences for c in s.cites} <= set(merged.grounded_texts)
    again = entity_descriptions(store.load("harbour"), engine.embedder, SETTINGS)  # stored with the decision
    assert again.loaded == len(after.descriptions) and again.descriptions == after.descriptions
